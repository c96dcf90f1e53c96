/**
 * The operator commands of the admin API (crawl::admin command) as the MS-FSCMT messages they are: collection
 * commands through the machine (suspend / resume keep the collection's state), site and URI commands to every node
 * scheduler (the one that crawls the site acts, the others hold nothing of it), urgent URIs to the front of the
 * collection's queue (CMD_UM_URI_URG, 3.2.5.7).
 *
 *   operatorMessage(machine, 'web', { kind: 'delete_site', site: 'www.example.com' });   // 'CMD_UM_DELETE_SITE'
 */
import { FSCMT_REFRESH_BITS } from '@esp/codecs';
import type { CrawlCommand } from '@esp/interfaces';
import type { MultinodeSchedulerMachine } from './multinode-scheduler-machine';

/** A site as routed (host[:port], lower case): given as such, or as a URL of the site. */
export function siteName(site: string): string {
  try {
    const u = new URL(site);
    if (u.host) return u.host.toLowerCase();
  } catch {
    // not a URL: a site name
  }
  return site.toLowerCase();
}

/** Acts on the command and answers the name of the message it sent. */
export function operatorMessage(machine: MultinodeSchedulerMachine, collection: string, cmd: CrawlCommand): string {
  const dspecName = collection;
  switch (cmd.kind) {
    case 'suspend':
      machine.suspend(collection);
      return 'CMD_ADM_CONF_SUSPEND';
    case 'resume':
      machine.resume(collection);
      return 'CMD_ADM_CONF_RESUME';
    case 'refresh':
      machine.progress.reset(collection);
      machine.broadcast({ command: 'CMD_ADM_CONF_REFRESH', dspecName, refresh: { subcollection: null, mask: FSCMT_REFRESH_BITS.REFRESH_COLLECTION | FSCMT_REFRESH_BITS.REQUEUE_START_URIS } });
      return 'CMD_ADM_CONF_REFRESH';
    case 'delete_site':
      machine.broadcast({ command: 'CMD_UM_DELETE_SITE', dspecName, site: siteName(cmd.site) });
      return 'CMD_UM_DELETE_SITE';
    case 'delete_uris': {
      const bySite = new Map<string, string[]>();
      for (const uri of cmd.uris) {
        const site = siteName(uri);
        bySite.set(site, [...(bySite.get(site) ?? []), uri]);
      }
      machine.broadcast({ command: 'CMD_UM_DELETE_URIS', dspecName, data: { urisBySite: bySite, errcode: 'USR' } });
      return 'CMD_UM_DELETE_URIS';
    }
    case 'quarantine': {
      const command = cmd.requeue ? 'CMD_UM_QUARANTINE_SITE_REQUEUE' : 'CMD_UM_QUARANTINE_SITE';
      machine.broadcast({ command, dspecName, data: { site: siteName(cmd.site), seconds: cmd.seconds } });
      return command;
    }
    case 'preempt':
      machine.broadcast({ command: 'CMD_ADM_PREEMPT_SITE', dspecName, data: { site: siteName(cmd.site), requeue: cmd.requeue } });
      return 'CMD_ADM_PREEMPT_SITE';
    case 'reprocess':
      machine.progress.reset(collection);
      machine.broadcast({ command: 'CMD_UM_REPROCESS_SITE', dspecName, data: { site: siteName(cmd.site), uriPrefix: cmd.uri_prefix, destination: null, exactMatch: false } });
      return 'CMD_UM_REPROCESS_SITE';
    case 'feeding_suspend':
      machine.broadcast({ command: 'CMD_ADM_CONF_FEEDING_SUSPEND', dspecName, data: { suspend: cmd.suspend, destinations: null } });
      return 'CMD_ADM_CONF_FEEDING_SUSPEND';
    case 'urgent':
      machine.enqueueUrgent(collection, cmd.uris);
      return 'CMD_UM_URI_URG';
    case 'delete':
      // the admin service removes the configuration file first (crawl-admin-service.ts); here the collection only
      machine.removeCollection(collection);
      return 'CMD_ADM_CONF_REMOVE';
  }
}
