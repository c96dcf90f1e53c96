/**
 * A node scheduler machine and its crawler, run against real local HTTP servers: what the crawler feeds is
 * captured, every request the servers answer is recorded.
 *
 *   const site = await TestSite.start((req, res) => ...);
 *   const run = await crawlSites({ sites: [site], dspec: [['delay', 0]], start: [`${site.base}/`], until: (r) => r.idle });
 *   run.fed.get(`${site.base}/`);
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFscmtNodeSchedulerMessage, FswcuDict, fswcuBytes, readFscmtMultinodeSchedulerMessage, type FscmtNodeSchedulerMessage, type FswcuValue } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { systemClock } from '@esp/timers';
import { Crawler, type CrawledPage } from '../src/crawler';
import { entryFor, NodeSchedulerMachine } from '../src/node-scheduler-machine';

export interface Request {
  path: string;
  at: number;
  headers: IncomingMessage['headers'];
}

export class TestSite {
  readonly requests: Request[] = [];
  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(handler: (req: IncomingMessage, res: ServerResponse, site: TestSite) => void): Promise<TestSite> {
    const holder: { site?: TestSite } = {};
    const server = createServer((req, res) => {
      holder.site?.requests.push({ path: req.url ?? '/', at: Date.now(), headers: req.headers });
      handler(req, res, holder.site as TestSite);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    holder.site = new TestSite(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return holder.site;
  }

  get host(): string {
    return new URL(this.base).host;
  }

  /** How often a path (with its query) was requested. */
  hits(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  /** The paths requested, robots.txt and sitemap.xml aside. */
  pages(): string[] {
    return this.requests.map((r) => r.path).filter((p) => p !== '/robots.txt' && p !== '/sitemap.xml');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

export function html(res: ServerResponse, body: string | Uint8Array, type = 'text/html; charset=utf-8'): void {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
}

export interface CrawlRun {
  fed: Map<string, CrawledPage>;
  /** every URI handed to `feed`, in order (a page fed again appears again) */
  feeds: string[];
  /** URIs the machine asked to delete from the index */
  deleted: string[];
  /** a message from the multinode scheduler */
  recv(msg: FscmtNodeSchedulerMessage): void;
  machine: NodeSchedulerMachine;
  crawler: Crawler;
  stop(): void;
}

export interface CrawlSitesOptions {
  sites: TestSite[];
  dspec?: Array<[string, FswcuValue]>;
  start: string[];
  robotsRetryMs?: number;
  userAgent?: string;
  log?: Logger;
  maxBodyBytes?: number;
}

/** Starts a crawl of `start` (every site routed to this node and allowed); `waitIdle` waits until it is over. */
export function crawlSites(o: CrawlSitesOptions): CrawlRun {
  // a site that asks for its IP again (released after a crawl round, asked again by the next) is allowed at once
  const send = (_to: string, dict: FswcuDict): void => {
    const msg = readFscmtMultinodeSchedulerMessage(dict);
    if (msg.command === 'CMD_UM_START_CRAWL_IP') setImmediate(() => recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: msg.dspecName, data: { ...msg.data, allowed: true } }));
  };
  const machine = new NodeSchedulerMachine({ nodeId: 'n1', mns: 'mns', clock: systemClock, ipKey: 'ip-port', send });
  const recv = (msg: FscmtNodeSchedulerMessage): void => machine.handle('mns', buildFscmtNodeSchedulerMessage(msg), 0);
  const fed = new Map<string, CrawledPage>();
  const feeds: string[] = [];
  const deleted: string[] = [];
  const owners = new Map<string, string>();
  const crawler = new Crawler({
    machine,
    userAgent: o.userAgent,
    log: o.log,
    maxBodyBytes: o.maxBodyBytes,
    robotsRetryMs: o.robotsRetryMs,
    checksum: (_c, uri, csum) => {
      const key = Buffer.from(csum).toString('hex');
      if (!owners.has(key)) owners.set(key, uri);
      return Promise.resolve(owners.get(key) as string);
    },
    // as the node scheduler does with what it owns: a recrawled page with the checksum it was fed with is not fed again
    sameContent: (_c, uri, csum) => fed.get(uri) !== undefined && Buffer.compare(fed.get(uri)!.checksum, csum) === 0,
    feed: (page) => {
      fed.set(page.uri, page);
      feeds.push(page.uri);
      return Promise.resolve(true);
    },
  });
  machine.connect({
    onWork: () => crawler.wake(),
    onDelete: (_c, uris) => deleted.push(...uris),
    onRound: (c) => crawler.roundStarted(c),
    onReprocess: (c, uris) => machine.promote(c, uris),
  });
  const dspec = new FswcuDict((o.dspec ?? [['delay', 0]]).map(([k, v]) => [fswcuBytes(k), v]));
  recv({ command: 'CMD_ADM_CONF_ADD', dspecName: 'web', dspec, epoch: 1 });
  for (const s of o.sites) {
    recv({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'web', route: { nodeId: 'n1', routingAttribute: s.host, site: s.host, addrinfo: null, ttl: 0 } });
  }
  for (const uri of o.start) recv({ command: 'CMD_UM_URI', dspecName: 'web', entry: entryFor(uri, '', 0, []) });
  for (const s of o.sites) recv({ command: 'CMD_UM_START_CRAWL_IP', dspecName: 'web', data: { ip: s.host, site: s.host, storeId: 0, allowed: true } });
  crawler.wake();
  return {
    fed,
    feeds,
    deleted,
    recv,
    machine,
    crawler,
    stop: () => {
      crawler.stop();
      machine.stop();
    },
  };
}

/** Waits until nothing is queued or in flight, then stops the crawl. */
export async function waitIdle(run: CrawlRun, timeoutMs = 20_000): Promise<void> {
  await untilIdle(run, timeoutMs);
  run.stop();
}

/** Waits until nothing is queued or in flight; the crawl goes on (another round may be started). */
export async function untilIdle(run: CrawlRun, timeoutMs = 20_000): Promise<void> {
  await waitFor(() => (run.machine.idle && run.crawler.inFlight === 0 ? true : undefined), { timeoutMs, what: 'the crawl to be over' });
}

/** A logger that keeps the lines it is given, for asserting on them. */
export function capturingLog(): { log: Logger; lines: Array<{ level: string; msg: string; obj: Record<string, unknown> }> } {
  const lines: Array<{ level: string; msg: string; obj: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      if (typeof obj === 'string') lines.push({ level, msg: obj, obj: {} });
      else lines.push({ level, msg: msg ?? '', obj: obj as Record<string, unknown> });
    };
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), trace: at('trace'), fatal: at('fatal'), isLevelEnabled: () => false, child: () => log } as unknown as Logger;
  return { log, lines };
}
