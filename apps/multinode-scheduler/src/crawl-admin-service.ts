/**
 * The crawl cluster's administration (crawl::admin, @esp/interfaces) served by the multinode scheduler on its admin
 * subject (@esp/crawl-bus crawlAdminSubject): create or update a collection's crawl (written as XML into the config
 * directory, and first made known to the feeding chain), report progress and "done", and pass operator commands
 * to the node schedulers as the MS-FSCMT messages they name.
 *
 *   const admin = await serveCrawlAdmin(mw, mns, { cluster: 'default', id: 'main', source, registerCollection });
 */
import { existsSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { FSCMT_CONF_STATES } from '@esp/codecs';
import { crawlAdminAor, crawlAdminSubject } from '@esp/crawl-bus';
import {
  CollectionNotRegistered,
  CrawlSpecInvalid,
  crawlAdminInterface,
  UnknownCollection,
  type CrawlCommand,
  type CrawlSpec,
  type CrawlStatus,
  type Implementation,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Middleware, ServerObject } from '@esp/middleware';
import { collectionsFromXml, loadCollections, reconcile } from './collections';
import type { CrawlConfigSource } from './config-source';
import { crawlSpecXml, includeRules } from './crawl-spec-xml';
import type { MultinodeScheduler } from './multinode-scheduler';
import { operatorMessage } from './operator-messages';

export interface CrawlAdminOptions {
  cluster: string;
  id: string;
  source: CrawlConfigSource;
  /** Makes the collection known to the feeding chain (the config service); none: the chain is not asked. */
  registerCollection?: (name: string) => Promise<void>;
  log?: Logger;
}

const STATE_NAMES = new Map<number, string>(Object.entries(FSCMT_CONF_STATES).map(([k, v]) => [v, k.toLowerCase()]));

export function crawlAdminImpl(mns: Pick<MultinodeScheduler, 'machine' | 'atomically'>, opts: CrawlAdminOptions): Implementation<typeof crawlAdminInterface> {
  const { machine } = mns;
  const status = (name: string): CrawlStatus => {
    const st = machine.crawlState(name);
    if (!st) throw new UnknownCollection(`no crawl of collection "${name}"`, { collection: name });
    const now = Date.now();
    const nodes = machine.nodeIds().map((node) => {
      const p = machine.progress.of(name, node);
      return { node, idle: p ? p.queued === 0 && p.inFlight === 0 : false, queued: p?.queued ?? 0, in_flight: p?.inFlight ?? 0, reported_ms_ago: p ? Math.max(0, now - p.reportedAt) : -1 };
    });
    const sites = [...machine.progress.sitesOf(name)].map(([site, p]) => ({
      site,
      node: st.routes.get(site) ?? '',
      fetched: p.fetched,
      queued: p.queued,
      ...(p.errors ? { errors: p.errors } : {}),
      ...(p.lastError !== undefined ? { last_error: p.lastError } : {}),
      ...(p.held && p.held.until > now ? { held: p.held.reason, next_try_ms: Math.round(p.held.until - now) } : {}),
    }));
    return { collection: name, state: STATE_NAMES.get(st.state) ?? String(st.state), epoch: st.epoch, queued: st.queued, nodes, stats: machine.totalStats(name), sites, done: st.done };
  };

  const setCrawl = async (spec: CrawlSpec) => {
    let xml: string;
    let parsed;
    try {
      xml = crawlSpecXml(spec);
      [parsed] = collectionsFromXml(xml, `the crawl of "${spec.collection}"`);
    } catch (err) {
      throw new CrawlSpecInvalid((err as Error).message, { collection: spec.collection });
    }
    if (!parsed) throw new CrawlSpecInvalid(`the crawl of "${spec.collection}" made no configuration`);
    const file = opts.source.fileOf(spec.collection);
    // a collection another file defines is that file's: two definitions would make every reload fail
    const elsewhere = opts.source.paths().filter((p) => p !== file);
    try {
      const defined = elsewhere.length ? loadCollections(elsewhere) : [];
      if (defined.some((c) => c.name === spec.collection)) {
        throw new CrawlSpecInvalid(`collection "${spec.collection}" is defined in a configuration file of its own (${elsewhere.join(', ')}): edit that file`);
      }
    } catch (err) {
      if (err instanceof CrawlSpecInvalid) throw err;
      throw new CrawlSpecInvalid(`the crawl configuration files do not load: ${(err as Error).message}`);
    }
    let registered = false;
    if (opts.registerCollection) {
      try {
        await opts.registerCollection(spec.collection);
        registered = true;
      } catch (err) {
        throw new CollectionNotRegistered(`collection "${spec.collection}" could not be made known to the feeding chain: ${(err as Error).message}`, { collection: spec.collection });
      }
    }
    const created = machine.crawlState(spec.collection) === undefined;
    if (file) {
      writeFileSync(`${file}.tmp`, xml);
      renameSync(`${file}.tmp`, file);
      const all = opts.source.load();
      mns.atomically(() => reconcile(machine, all));
    } else {
      const c = parsed;
      mns.atomically(() => (created ? machine.addCollection(c.name, c.dspec, c.startUris) : machine.updateCollection(c.name, c.dspec)));
    }
    opts.log?.info({ collection: spec.collection, created, file, registered, start_uris: spec.start_uris }, 'crawl set through the admin API');
    return { collection: spec.collection, created, include: includeRules(spec), file: file ?? '', registered };
  };

  /** The crawl's file goes (a reload would bring it back), then the collection: CMD_ADM_CONF_REMOVE to every node. */
  const deleteCrawl = (collection: string): string => {
    const file = opts.source.fileOf(collection);
    const elsewhere = opts.source.paths().filter((p) => p !== file);
    let defined: string[] = [];
    try {
      defined = elsewhere.filter((p) => loadCollections([p]).some((c) => c.name === collection));
    } catch (err) {
      throw new CrawlSpecInvalid(`the crawl configuration files do not load: ${(err as Error).message}`, { collection });
    }
    if (defined.length) throw new CrawlSpecInvalid(`collection "${collection}" is defined in ${defined.join(', ')}: remove it from that file`, { collection });
    if (file && existsSync(file)) {
      unlinkSync(file);
      mns.atomically(() => reconcile(machine, opts.source.load()));
    }
    // reconcile removed it if the file held it; a crawl made without a config directory goes here
    if (machine.crawlState(collection)) mns.atomically(() => machine.removeCollection(collection));
    return 'CMD_ADM_CONF_REMOVE';
  };

  return {
    set_crawl: setCrawl,
    status: (collection) => {
      const names = collection ? [collection] : [...machine.collectionConfigs().keys()];
      return names.map(status);
    },
    command: (collection, command: CrawlCommand) => {
      if (!machine.crawlState(collection)) throw new UnknownCollection(`no crawl of collection "${collection}"`, { collection });
      let sent = '';
      if (command.kind === 'delete') sent = deleteCrawl(collection);
      else
        mns.atomically(() => {
          sent = operatorMessage(machine, collection, command);
        });
      opts.log?.info({ collection, command: command.kind, message: sent, nodes: machine.nodeIds().length }, 'operator command');
      return { message: sent, nodes: machine.nodeIds().length };
    },
  };
}

/** Activates the administration on the crawl cluster's admin subject. */
export async function serveCrawlAdmin(mw: Middleware, mns: Pick<MultinodeScheduler, 'machine' | 'atomically'>, opts: CrawlAdminOptions): Promise<ServerObject<typeof crawlAdminInterface>> {
  const peer = { cluster: opts.cluster, id: opts.id };
  return mw.activateAt(crawlAdminSubject(peer), crawlAdminInterface, crawlAdminImpl(mns, opts), crawlAdminAor(peer, 'mns'));
}
