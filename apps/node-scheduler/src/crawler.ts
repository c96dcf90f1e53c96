/**
 * The node scheduler's I/O edge: takes fetches from the machine as sites become due (at most `concurrency` at
 * once, one per site), fetches over HTTP(S) with robots.txt (robots-cache.ts: its Crawl-delay goes to the machine,
 * an unreadable one defers the site), bounded and decompressed bodies and timeouts, keeps only the types the
 * pipeline indexes (indexable-type.ts), extracts links from HTML decoded in its charset (page-text.ts), honours
 * noindex / nofollow (robots-directives.ts), reads each site's sitemaps once (sitemap.ts), checks the content
 * checksum with the duplicate server, and hands the owner's copy, its raw bytes and the server's Content-Type
 * header, to `feed`.
 *
 * A page queued again by a crawl round (machine/recrawl.ts) is asked for conditionally with the validators its last
 * answer carried (page-validators.ts): 304 means the indexed copy stands, 404 / 410 that it goes. Each 2xx answer
 * read can be kept in an archive (warc-writer.ts).
 *
 *   const crawler = new Crawler({ machine, userAgent: 'esp-crawler', checksum, feed });
 *   crawler.wake();
 */
import { createHash } from 'node:crypto';
import type { Logger } from '@esp/logging';
import { BodyTooLargeError, httpGet, type HttpGetOptions, type HttpGetResult } from './http-get';
import { isRecrawl } from './machine/recrawl';
import { conditionalHeaders, MemoryPageValidators, type PageValidators } from './page-validators';
import type { PageArchive } from './warc-writer';
import { indexableType, unwantedMedia, type IndexableFormat } from './indexable-type';
import { extractLinks } from './link-extractor';
import { pageText, preloadPageText } from './page-text';
import type { Fetch, NodeSchedulerMachine, PageFate } from './node-scheduler-machine';
import { productToken, robotsAllows, type RobotsRules } from './robots';
import { normalizeUrl } from './url-normalize';
import { headerRobotsDirectives, mergeDirectives, NO_DIRECTIVES } from './robots-directives';
import { ROBOTS_MAX_BYTES, RobotsCache } from './robots-cache';
import { readSitemaps } from './sitemap';

export interface CrawledPage {
  collection: string;
  uri: string;
  site: string;
  /** from an HTML page's <title>; '' otherwise */
  title: string;
  /** the body as served, decompressed; never decoded here (the pipeline's charset stage does that) */
  body: Uint8Array;
  /** the Content-Type header as served, charset= included ('' when there was none) */
  contentType: string;
  format: IndexableFormat;
  checksum: Uint8Array;
}

/** The body bound of a page unless configured: larger pages are not fed (excluded_size). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface CrawlerOptions {
  machine: NodeSchedulerMachine;
  userAgent?: string;
  concurrency?: number;
  timeoutMs?: number;
  /** A page's body at most, decompressed (default DEFAULT_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Who owns this content? Resolves to the owner URI (the duplicate server's answer), or the page's own URI. */
  checksum: (collection: string, uri: string, csum: Uint8Array) => Promise<string>;
  /**
   * On a recrawl, is this the content the index holds for the page already (its checksum is the one this node owns
   * it with)? Then it is not checked or fed again: a server without validators costs a body, not a feed.
   */
  sameContent?: (collection: string, uri: string, csum: Uint8Array) => boolean;
  /** Feeds an owned page; resolves true when it was handed to the feeding client (false: feeding off or suspended). */
  feed: (page: CrawledPage) => Promise<boolean>;
  /** A page whose content another URI owns. */
  onDuplicate?: (page: CrawledPage, ownUri: string) => void;
  log?: Logger;
  /** robots.txt unreachable: the first wait before reading it again (default 1 minute, doubling up to 30) */
  robotsRetryMs?: number;
  /** ETag / Last-Modified per page, for conditional GETs on a recrawl (default: kept in memory) */
  validators?: PageValidators;
  /** Keeps every 2xx answer read, with its request (a WARC writer) */
  archive?: PageArchive;
  /** What the crawler keeps across a restart: robots.txt rules read, sitemaps read (node-scheduler.ts keeps them in the node's store). */
  memory?: CrawlerMemory;
  /** Resolves once the machine's state is on disk: a page is asked for only after its entry is recorded as taken. */
  durable?: () => Promise<void>;
}

/** robots.txt rules and sitemaps read before, and where to note new ones. */
export interface CrawlerMemory {
  robots: Array<{ origin: string; rules: RobotsRules; expiresAt: number }>;
  /** "<collection> <origin>" */
  sitemaps: string[];
  robotsRead(origin: string, rules: RobotsRules, expiresAt: number): void;
  sitemapsRead(collection: string, origin: string): void;
}

const afterPoll = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class Crawler {
  private running = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  /** when the timer fires (performance.now()) */
  private timerAt = 0;
  private stopped = false;
  private readonly robots: RobotsCache;
  /** "<collection> <origin>" whose sitemaps were read (once a process) */
  private readonly sitemapsRead = new Set<string>();
  /** our product token, for robots.txt groups and <meta name="..."> */
  private readonly agent: string;
  /** Fetches per URI, so tests and benchmarks can check "each page once". */
  readonly fetchCount = new Map<string, number>();

  private readonly getOptions: HttpGetOptions;
  /** a line per page only when asked for: at hundreds of pages a second even building it costs */
  private readonly debug: boolean;
  readonly validators: PageValidators;

  constructor(private readonly opts: CrawlerOptions) {
    this.validators = opts.validators ?? new MemoryPageValidators();
    this.debug = opts.log?.isLevelEnabled('debug') ?? false;
    const base = { userAgent: opts.userAgent ?? 'esp-crawler', timeoutMs: opts.timeoutMs ?? 30_000, maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
    this.getOptions = { ...base, wanted: (media) => !unwantedMedia(media) };
    this.agent = productToken(this.getOptions.userAgent);
    // loaded in the background; a failure shows on the first HTML page
    preloadPageText().catch(() => undefined);
    const robotsGet: HttpGetOptions = { ...base, maxBodyBytes: ROBOTS_MAX_BYTES, truncate: true };
    this.robots = new RobotsCache({
      get: (url) => httpGet(url, robotsGet),
      userAgent: this.getOptions.userAgent,
      log: opts.log,
      retryMs: opts.robotsRetryMs,
      maxRetryMs: opts.robotsRetryMs === undefined ? undefined : opts.robotsRetryMs * 30,
      saved: opts.memory?.robots,
      onRules: opts.memory ? (origin, rules, expiresAt) => opts.memory?.robotsRead(origin, rules, expiresAt) : undefined,
    });
    for (const key of opts.memory?.sitemaps ?? []) this.sitemapsRead.add(key);
  }

  get inFlight(): number {
    return this.running;
  }

  wake(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => this.pump());
  }

  /** A crawl round of the collection began: its sites' sitemaps are read again (they may list new pages). */
  roundStarted(collection: string): void {
    for (const key of this.sitemapsRead) if (key.startsWith(`${collection} `)) this.sitemapsRead.delete(key);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private readonly pumpNow = (): void => {
    this.timer = undefined;
    // a wake() already queued still runs its pump, which then finds nothing new: harmless
    this.pump();
  };

  private pump(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const max = this.opts.concurrency ?? 16;
    while (this.running < max) {
      const f = this.opts.machine.nextFetch();
      if (!f) break;
      this.running++;
      void this.crawl(f).finally(() => {
        this.running--;
        this.wake();
      });
    }
    const wait = this.opts.machine.nextWakeMs();
    if (wait === undefined) return;
    // a pump per page and more: the timer is re-armed only when something is due before it fires (one that fires
    // early finds nothing new and arms the next)
    const at = performance.now() + Math.max(1, wait);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    // the timer pumps at once: through wake()'s setImmediate a poll phase would come first, and the other sites'
    // pages it delivers (parsing, link extraction: about a millisecond each) would delay this site's request
    this.timer = setTimeout(this.pumpNow, Math.max(1, wait));
  }

  private async crawl(f: Fetch): Promise<void> {
    const m = this.opts.machine;
    const uri = f.entry.uri.uri;
    // a 2xx answer read counts against max_doc whatever becomes of the page afterwards
    let read = false;
    try {
      if (this.opts.durable) await this.opts.durable();
      const url = new URL(uri);
      let sitemaps: string[] = [];
      if (f.settings.robots) {
        const d = await this.robots.decide(url);
        if (d.kind === 'unreachable') return m.fetched(f, { kind: 'deferred', retryInMs: d.retryInMs, reason: `robots.txt unreachable (${d.reason})` });
        if (d.kind === 'given_up') return m.fetched(f, { kind: 'excluded' });
        if (d.rules.crawlDelayMs !== undefined) m.crawlDelay(f, d.rules.crawlDelayMs);
        sitemaps = d.rules.sitemaps;
        if (!robotsAllows(d.rules, url.pathname + url.search)) return m.fetched(f, { kind: 'excluded' });
      }
      this.readSitemaps(f, url, sitemaps);
      this.fetchCount.set(uri, (this.fetchCount.get(uri) ?? 0) + 1);
      // a page queued again by a crawl round is asked for only if it changed since its last answer
      const conditional = isRecrawl(f.entry.uriFlags) ? conditionalHeaders(this.validators.get(f.collection, uri)) : undefined;
      const getOptions = conditional ? { ...this.getOptions, headers: conditional } : this.getOptions;
      let res: HttpGetResult;
      try {
        res = await httpGet(url, getOptions);
      } catch (err) {
        if (err instanceof BodyTooLargeError) {
          this.validators.delete(f.collection, uri);
          return m.fetched(f, { kind: 'too_large', maxBytes: err.maxBytes });
        }
        throw err;
      }
      if (res.status === 304 && conditional) return m.fetched(f, { kind: 'unchanged' });
      // whatever else it answered, the validators of its last answer are of no more use (a fed page gets new ones)
      if (conditional) this.validators.delete(f.collection, uri);
      if (res.status === 404 || res.status === 410) return m.fetched(f, { kind: 'gone', status: res.status });
      if (res.status >= 300 && res.status < 400 && res.location) {
        const location = new URL(res.location, url);
        location.hash = '';
        return m.fetched(f, { kind: 'redirect', location: location.toString(), status: res.status });
      }
      if (res.status < 200 || res.status >= 300) return m.fetched(f, { kind: 'error', reason: `HTTP ${res.status}` });
      const { body, contentTypeHeader } = res;
      read = true;
      m.requestDone(f);
      // the page's processing waits for the check phase of this event-loop turn: the other responses that arrived in
      // the same poll phase are read first, and a request due to another site leaves first (undici writes a request
      // to a kept-alive connection in the check phase, from an immediate queued before this one)
      await afterPoll();
      if (this.opts.archive && !res.skipped) await this.opts.archive.record({ uri, date: new Date(), userAgent: this.getOptions.userAgent, requestHeaders: conditional, response: res });
      // the next round asks with these; taken back below if the page does not reach the index as read
      this.validators.set(f.collection, uri, { etag: res.etag, lastModified: res.lastModified });
      if (this.debug) this.opts.log?.debug({ collection: f.collection, uri, status: res.status, bytes: body.length, contentType: contentTypeHeader }, 'page fetched');
      const type = res.skipped ? { indexable: false as const, reason: `served as ${res.contentType}: body not read` } : await indexableType(contentTypeHeader, body);
      if (!type.indexable) {
        if (this.debug) this.opts.log?.debug({ collection: f.collection, uri, reason: type.reason }, 'not indexable: not fed');
        return m.fetched(f, { kind: 'not_indexable', reason: type.reason });
      }
      const page =
        type.format === 'html'
          ? extractLinks((await pageText(body, contentTypeHeader)).text, uri, f.settings.linkTags, { agent: this.agent, normalize: (u) => normalizeUrl(u, f.settings.stripQuery) })
          : { links: [], title: '', refresh: undefined, robots: NO_DIRECTIVES };
      const header = headerRobotsDirectives(res.robotsTag, this.agent);
      const robots = mergeDirectives(header, page.robots);
      // links first: the site's next request must not wait for this page's duplicate check
      m.linksFound(f, header.nofollow ? (page.refresh === undefined ? [] : [page.refresh]) : page.links);
      if (robots.noindex) {
        if (this.debug) this.opts.log?.debug({ collection: f.collection, uri }, 'noindex: links followed, not fed');
        return m.fetched(f, { kind: 'noindex' });
      }
      const checksum = new Uint8Array(createHash('md5').update(body).digest());
      if (isRecrawl(f.entry.uriFlags) && this.opts.sameContent?.(f.collection, uri, checksum)) return m.fetched(f, { kind: 'unchanged' });
      const crawled: CrawledPage = { collection: f.collection, uri, site: f.site, title: page.title, body, contentType: contentTypeHeader, format: type.format, checksum };
      const ownUri = await this.opts.checksum(f.collection, uri, checksum);
      let fate: PageFate = 'duplicate';
      if (ownUri === uri) fate = (await this.opts.feed(crawled)) ? 'fed' : 'unfed';
      else this.opts.onDuplicate?.(crawled, ownUri);
      // an unfed page is not in the index: it must be read whole next time, to be fed then
      if (fate === 'unfed') this.validators.delete(f.collection, uri);
      m.fetched(f, { kind: 'page', links: [], fate });
    } catch (err) {
      this.validators.delete(f.collection, uri);
      m.fetched(f, { kind: 'error', reason: (err as Error).message, ...(read ? { read } : {}) });
    }
  }

  /** Once per collection and origin, in the background: the sitemaps' URLs become start URIs of the site. */
  private readSitemaps(f: Fetch, url: URL, sources: string[]): void {
    const key = `${f.collection} ${url.origin}`;
    if (!f.settings.sitemaps || this.sitemapsRead.has(key)) return;
    this.sitemapsRead.add(key);
    const m = this.opts.machine;
    m.sitemapsStarted(f);
    const referrer = sources[0] ?? new URL('/sitemap.xml', url).href;
    readSitemaps({ get: (u) => httpGet(u, this.getOptions), site: url, sources, maxBodyBytes: this.getOptions.maxBodyBytes, gapMs: f.settings.delayMs, log: this.opts.log })
      .then((uris) => {
        if (uris.length > 0) this.opts.log?.info({ collection: f.collection, site: f.site, uris: uris.length }, 'sitemaps read: their URLs are start URIs');
        m.sitemapsRead(f, referrer, uris);
        this.opts.memory?.sitemapsRead(f.collection, url.origin);
      })
      .catch((err: unknown) => {
        this.opts.log?.info({ collection: f.collection, site: f.site, err: (err as Error).message }, 'sitemaps not read');
        m.sitemapsRead(f, referrer, []);
      });
  }
}
