/**
 * The multinode scheduler's commands on one site of a collection: preempt it (stop crawling now, its entries
 * dropped or kept in front), quarantine it for a while (its queue dropped or kept), delete what it fed (and forget
 * it, so that a crawl round does not fetch it again), or list what it fed for reprocessing.
 */
import type { FscmtNodeSchedulerMessage } from '@esp/codecs';
import type { Clock } from '@esp/timers';
import type { CollectionTable } from './collection-table';
import type { SitePermissions } from './site-permissions';
import { siteOf } from './sites';

export type SiteCommand = Extract<
  FscmtNodeSchedulerMessage,
  { command: 'CMD_ADM_PREEMPT_SITE' | 'CMD_UM_QUARANTINE_SITE' | 'CMD_UM_QUARANTINE_SITE_REQUEUE' | 'CMD_UM_DELETE_SITE' | 'CMD_UM_DELETE_URIS' | 'CMD_UM_REPROCESS_SITE' }
>;

export interface SiteCommandsDeps {
  clock: Clock;
  collections: CollectionTable;
  permissions: SitePermissions;
  /** Delete these URIs from the index (`site`: they are the whole site, deleted). */
  onDelete: (collection: string, uris: string[], site?: string) => void;
  onReprocess: (collection: string, uris: string[]) => void;
}

export class SiteCommands {
  constructor(private readonly deps: SiteCommandsDeps) {}

  handle(msg: SiteCommand): void {
    switch (msg.command) {
      case 'CMD_ADM_PREEMPT_SITE': {
        const c = this.deps.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.data.site);
        if (!c || !s) return;
        // preempt: stop crawling the site now; with requeue its entries go back to the front
        if (!msg.data.requeue) this.deps.collections.dropped(c, s.site, s.queue.splice(0));
        return this.deps.permissions.release(c, s);
      }
      case 'CMD_UM_QUARANTINE_SITE':
      case 'CMD_UM_QUARANTINE_SITE_REQUEUE': {
        const c = this.deps.collections.get(msg.dspecName);
        if (!c) return;
        c.quarantine.set(msg.data.site, this.deps.clock.now() + msg.data.seconds * 1000);
        const s = c.sites.get(msg.data.site);
        if (s && msg.command === 'CMD_UM_QUARANTINE_SITE') this.deps.collections.dropped(c, s.site, s.queue.splice(0));
        return;
      }
      case 'CMD_UM_DELETE_SITE': {
        const c = this.deps.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.site);
        if (!c || !s) return;
        const uris = [...s.fetched];
        this.deps.collections.dropped(c, s.site, s.queue.splice(0));
        s.fetched.clear();
        // what was deleted is not fetched again by the next crawl round
        for (const uri of c.known.keys()) if (siteOf(uri)?.site === s.site) c.known.delete(uri);
        return this.deps.onDelete(c.name, uris, s.site);
      }
      case 'CMD_UM_DELETE_URIS': {
        const c = this.deps.collections.get(msg.dspecName);
        if (!c) return;
        const gone: string[] = [];
        for (const [site, uris] of msg.data.urisBySite) {
          const s = c.sites.get(site);
          for (const u of uris) {
            c.known.delete(u);
            if (s?.fetched.delete(u)) gone.push(u);
          }
        }
        return this.deps.onDelete(c.name, gone);
      }
      case 'CMD_UM_REPROCESS_SITE': {
        const c = this.deps.collections.get(msg.dspecName);
        const s = c?.sites.get(msg.data.site);
        if (!c || !s) return;
        const uris = [...s.fetched].filter((u) => (msg.data.exactMatch ? u === msg.data.uriPrefix : u.startsWith(msg.data.uriPrefix)));
        return this.deps.onReprocess(c.name, uris);
      }
    }
  }
}
