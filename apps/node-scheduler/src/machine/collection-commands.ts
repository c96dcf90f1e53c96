/**
 * The multinode scheduler's commands on a whole collection: add / update its configuration (start URIs requeued
 * on a newer one), remove it (its sites released, the index told, then CMD_UM_DELETE_OK), suspend / resume it,
 * suspend its feeding, refresh it (a new crawl round: recrawl.ts).
 */
import { FSCMT_CONF_STATES, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { CollectionTable } from './collection-table';
import type { CrawlQueue } from './crawl-queue';
import type { MnsLink } from './mns-link';
import type { RouteTable } from './route-table';
import type { SitePermissions } from './site-permissions';

export type CollectionCommand = Extract<
  FscmtNodeSchedulerMessage,
  {
    command:
      | 'CMD_ADM_CONF_ADD'
      | 'CMD_ADM_CONF_UPDATE'
      | 'CMD_ADM_CONF_REMOVE'
      | 'CMD_ADM_CONF_SUSPEND'
      | 'CMD_UM_CONF_STATE'
      | 'CMD_ADM_CONF_RESUME'
      | 'CMD_ADM_CONF_FEEDING_SUSPEND'
      | 'CMD_ADM_CONF_REFRESH';
  }
>;

export interface CollectionCommandsDeps {
  collections: CollectionTable;
  queue: CrawlQueue;
  permissions: SitePermissions;
  routes: RouteTable;
  mns: MnsLink;
  /** Work may be available (the crawler wakes up). */
  work: () => void;
  onFeedingSuspend: (collection: string, suspended: boolean) => void;
  /** A collection is being removed: what it fed leaves the index before the state goes. */
  onRemove: (collection: string, uris: string[]) => Promise<void> | void;
  /** CMD_ADM_CONF_REFRESH for a collection held here (recrawl.ts). */
  refresh: (collection: string, mask: number, subcollection: string | null) => void;
  log?: Logger;
}

export class CollectionCommands {
  constructor(private readonly deps: CollectionCommandsDeps) {}

  handle(msg: CollectionCommand): void {
    const { collections, queue } = this.deps;
    switch (msg.command) {
      case 'CMD_ADM_CONF_ADD': {
        // 3.1.5.10: an ADD for a collection held here is an UPDATE, when it brings a newer configuration; the same
        // epoch again is the scheduler re-registering us (or restarted), and must not recrawl the start URIs
        const held = collections.get(msg.dspecName);
        const update = held !== undefined && msg.epoch !== undefined && msg.epoch > held.epoch;
        if (collections.configure(msg.dspecName, msg.dspec, msg.epoch) && update) queue.requeueStartUris(msg.dspecName);
        return;
      }
      case 'CMD_ADM_CONF_UPDATE':
        // 3.1.5.11: an update of a collection not held here is ignored
        if (!collections.has(msg.dspecName)) return;
        if (collections.configure(msg.dspecName, msg.dspec, msg.epoch)) queue.requeueStartUris(msg.dspecName);
        return;
      case 'CMD_ADM_CONF_REMOVE':
        return void this.remove(msg.dspecName);
      case 'CMD_ADM_CONF_SUSPEND':
      case 'CMD_UM_CONF_STATE': {
        const c = collections.get(msg.dspecName);
        if (c) c.state = msg.state;
        if (c && msg.state === FSCMT_CONF_STATES.ACTIVE) this.deps.work();
        return;
      }
      case 'CMD_ADM_CONF_RESUME': {
        const c = collections.get(msg.dspecName);
        if (c) c.state = FSCMT_CONF_STATES.ACTIVE;
        return this.deps.work();
      }
      case 'CMD_ADM_CONF_FEEDING_SUSPEND': {
        const c = collections.get(msg.dspecName);
        if (c) c.feedingSuspended = msg.data.suspend;
        return this.deps.onFeedingSuspend(msg.dspecName, msg.data.suspend);
      }
      case 'CMD_ADM_CONF_REFRESH':
        // 3.1.5.9: a new crawl refresh cycle
        this.deps.log?.info({ collection: msg.dspecName, mask: msg.refresh.mask, subcollection: msg.refresh.subcollection }, 'refresh requested');
        return this.deps.refresh(msg.dspecName, msg.refresh.mask, msg.refresh.subcollection);
    }
  }

  private async remove(name: string): Promise<void> {
    const c = this.deps.collections.get(name);
    if (!c) return;
    c.state = FSCMT_CONF_STATES.REMOVING;
    const uris = [...c.sites.values()].flatMap((s) => [...s.fetched]);
    for (const s of c.sites.values()) this.deps.permissions.release(c, s);
    await this.deps.onRemove(name, uris);
    this.deps.collections.delete(name);
    this.deps.routes.forget(name);
    this.deps.mns.send({ command: 'CMD_UM_DELETE_OK', dspecName: name });
  }
}
