/**
 * Generated web sites served on 127.0.0.1 for crawler tests and benchmarks: several hosts (one port each), pages
 * linking within and across hosts, redirects (301 within a host, 302 across hosts), a robots.txt that excludes
 * /private/, and pages whose content is identical under different URLs. Every request is counted, and the sets a
 * correct crawl must produce are computed from the link graph.
 *
 *   const sites = await LocalWebSites.start({ hosts: 4, pagesPerHost: 60 });
 *   sites.startUris;           // ['http://127.0.0.1:41234/', ...]
 *   sites.expectedFetches;     // every URL a correct crawl fetches (exactly once each)
 *   sites.hits.get(url);       // how often it was fetched
 *   await sites.stop();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { LocalWebSiteExtras } from './local-web-site-extras';
import { tinyPng } from './png';

export interface LocalWebSitesOptions {
  hosts?: number;
  pagesPerHost?: number;
  /** Every n-th page has a byte-identical copy at /copy-<i>.html (default 7). */
  copyEvery?: number;
  /** Extra bytes of text per page (default 2000). */
  pageBytes?: number;
  /**
   * Serve HTTPS with this key and certificate (PEM; `selfSignedCertificate()` makes one for 127.0.0.1): every URL
   * is then https://. Clients must trust the certificate (NODE_EXTRA_CA_CERTS for a child process).
   */
  tls?: { key: string; cert: string };
  /**
   * Every home page also links to what sites have besides pages, under /res/: a stylesheet (text/css), a PNG
   * (image/png), a PNG served as text/html, and a gzip-compressed HTML page (Content-Encoding: gzip) with a token of
   * its own. The first three are fetched but must never be indexed (`notIndexable`); the last is a content page.
   */
  resources?: boolean;
  /**
   * Every host also has what local-web-site-extras.ts lists: robots.txt behind a redirect with a Crawl-delay and a
   * Sitemap line, a sitemap index with a gzipped sitemap, nofollow and noindex pages, a Latin-1 page, a 3 MB page,
   * and pages that `change()` alters or removes.
   */
  extras?: boolean;
}

const PNG = tinyPng();
const RESOURCES = ['/res/style.css', '/res/logo.png', '/res/png-as-html.html', '/res/gzip.html'];

export class LocalWebSites {
  readonly hits = new Map<string, number>();
  readonly startUris: string[] = [];
  /** URLs a correct crawl fetches, each exactly once (pages, copies, redirect sources; robots.txt aside). */
  readonly expectedFetches = new Set<string>();
  /** URLs linked but excluded by robots.txt: never fetched. */
  readonly excluded = new Set<string>();
  /** Groups of URLs with identical content. */
  readonly duplicateGroups: string[][] = [];
  /** URLs whose content is unique or first of a group... every page with content (redirect sources excluded). */
  readonly contentPages = new Set<string>();
  /** A word that appears in exactly one page's content (copies share their original's). */
  readonly tokenOf = new Map<string, string>();
  /** With `resources`: URLs fetched that are not documents to index (a stylesheet, images). */
  readonly notIndexable = new Set<string>();
  /** With `extras`: pages fetched that ask not to be indexed (meta robots noindex). */
  readonly noindexPages = new Set<string>();
  /**
   * HTML pages answer with an ETag (their content's hash) and 304 to a request that names it (If-None-Match): how
   * many 304s each URL answered.
   */
  readonly notModified = new Map<string, number>();
  /** Every request, in the order they came, with the time it came (politeness is checked on it). */
  readonly requestLog: Array<{ url: string; at: number }> = [];
  private readonly extras: LocalWebSiteExtras | undefined;
  private readonly servers: Server[] = [];
  private ports: number[] = [];

  private constructor(private readonly opts: Required<Omit<LocalWebSitesOptions, 'tls' | 'resources' | 'extras'>> & Pick<LocalWebSitesOptions, 'tls' | 'resources' | 'extras'>) {
    this.extras = opts.extras ? new LocalWebSiteExtras((h) => this.base(h)) : undefined;
  }

  static async start(options: LocalWebSitesOptions = {}): Promise<LocalWebSites> {
    const s = new LocalWebSites({ hosts: 4, pagesPerHost: 60, copyEvery: 7, pageBytes: 2000, tls: undefined, resources: false, ...options });
    await s.listen();
    s.plan();
    return s;
  }

  get totalHits(): number {
    let n = 0;
    // robots.txt and sitemap.xml are the crawler's, not pages
    for (const [url, c] of this.hits) if (!url.endsWith('/robots.txt') && !url.endsWith('/sitemap.xml')) n += c;
    return n;
  }

  /** With `extras`: alters /changing-0.html and removes /changing-1.html on every host (the sets follow). */
  change(): { changed: string[]; removed: string[] } {
    if (!this.extras) throw new Error('change() needs the extras option');
    return this.extras.change(this.opts.hosts, this);
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  private base(h: number): string {
    return `${this.opts.tls ? 'https' : 'http'}://127.0.0.1:${this.ports[h]}`;
  }

  private page(h: number, i: number): string {
    return `${this.base(h)}/page-${i}.html`;
  }

  /** The links of page i of host h (the home page "/" is page 0). */
  private linksOf(h: number, i: number): string[] {
    const { hosts, pagesPerHost: P, copyEvery } = this.opts;
    const out: string[] = [];
    const local = (j: number): void => {
      if (j < P) out.push(`/page-${j}.html`);
    };
    local(i + 1);
    local(i + 2);
    local(i * 2 + 1);
    out.push(`/private/secret-${i}.html`);
    if (i % 5 === 0) out.push(`/r/${i + 3}`); // 301 to /page-(i+3).html
    if (i % copyEvery === 3) out.push(`/copy-${i}.html`);
    if (i % 10 === 4 && hosts > 1) out.push(`${this.base((h + 1) % hosts)}/x/${i}`); // 302 to the next host
    if (i % 3 === 0 && hosts > 1) out.push(this.page((h + 1) % hosts, (i + 5) % P)); // a plain cross-host link
    out.push('#top', 'mailto:someone@example.com');
    if (i === 0 && this.opts.resources) out.push(...RESOURCES);
    return out;
  }

  private content(h: number, i: number): string {
    const token = `tok${h}x${i}q`;
    const links = this.linksOf(h, i)
      .map((l, k) => `<a href="${l}">link ${k}</a>`)
      .join(' ');
    const filler = `Generated page ${i} of site ${h}. `.repeat(Math.ceil(this.opts.pageBytes / 40));
    const extras = i === 0 && this.extras ? this.extras.homeHtml() : '';
    return `<!DOCTYPE html><html><head><title>Site ${h} page ${i}</title></head><body><h1>Page ${i}</h1><p>${token} ${filler}</p><p>${links}</p>${extras}</body></html>`;
  }

  private async listen(): Promise<void> {
    for (let h = 0; h < this.opts.hosts; h++) {
      const handler = (req: IncomingMessage, res: ServerResponse): void => {
        const url = `${this.base(h)}${req.url ?? '/'}`;
        this.hits.set(url, (this.hits.get(url) ?? 0) + 1);
        this.requestLog.push({ url, at: Date.now() });
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const html = (body: string | Buffer, type = 'text/html; charset=utf-8'): void => {
          const etag = `"${createHash('md5').update(body).digest('hex')}"`;
          if (req.headers['if-none-match'] === etag) {
            this.notModified.set(url, (this.notModified.get(url) ?? 0) + 1);
            res.writeHead(304, { etag });
            return void res.end();
          }
          res.writeHead(200, { 'content-type': type, etag });
          res.end(body);
        };
        const extra = this.extras?.answer(h, path);
        let m: RegExpExecArray | null;
        if (extra) {
          if (extra.kind === 'html') html(extra.body, extra.contentType);
          else if (extra.kind === 'file') res.writeHead(200, { 'content-type': extra.contentType }).end(extra.body);
          else if (extra.kind === 'redirect') res.writeHead(301, { location: extra.location }).end();
          else res.writeHead(404).end();
        } else if (path === '/robots.txt') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('User-agent: *\nDisallow: /private/\n');
        } else if (path === '/') html(this.content(h, 0));
        else if ((m = /^\/page-(\d+)\.html$/.exec(path)) && Number(m[1]) < this.opts.pagesPerHost) html(this.content(h, Number(m[1])));
        else if ((m = /^\/copy-(\d+)\.html$/.exec(path))) html(this.content(h, Number(m[1])));
        else if ((m = /^\/r\/(\d+)$/.exec(path))) {
          res.writeHead(301, { location: `/page-${m[1]}.html` });
          res.end();
        } else if ((m = /^\/x\/(\d+)$/.exec(path))) {
          res.writeHead(302, { location: `/page-${m[1]}.html` });
          res.end();
        } else if (this.opts.resources && path === '/res/style.css') {
          res.writeHead(200, { 'content-type': 'text/css' });
          res.end(`body { font-family: tok${h}cssq; }`);
        } else if (this.opts.resources && (path === '/res/logo.png' || path === '/res/png-as-html.html')) {
          res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'text/html' });
          res.end(PNG);
        } else if (this.opts.resources && path === '/res/gzip.html') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
          res.end(gzipSync(`<!DOCTYPE html><html><head><title>Compressed</title></head><body><p>tok${h}gzq sent gzip-compressed</p></body></html>`));
        } else if (path.startsWith('/private/')) html('<html><body>excluded by robots.txt, must never be fetched</body></html>');
        else {
          res.writeHead(404);
          res.end();
        }
      };
      const tls = this.opts.tls;
      const server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handler) : createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      this.servers.push(server);
      this.ports.push((server.address() as { port: number }).port);
    }
  }

  /** Walks the link graph from the start URIs, as a correct crawler would. */
  private plan(): void {
    const P = this.opts.pagesPerHost;
    for (let h = 0; h < this.opts.hosts; h++) {
      this.startUris.push(`${this.base(h)}/`);
      this.extras?.plan(h, this);
    }
    const todo = [...this.startUris];
    const groups = new Map<string, string[]>();
    while (todo.length > 0) {
      const url = todo.pop() as string;
      if (this.expectedFetches.has(url)) continue;
      const u = new URL(url);
      const h = this.ports.indexOf(Number(u.port));
      if (u.pathname.startsWith('/private/')) {
        this.excluded.add(url);
        continue;
      }
      this.expectedFetches.add(url);
      let m: RegExpExecArray | null;
      let i: number | undefined;
      if (u.pathname === '/') i = 0;
      else if ((m = /^\/page-(\d+)\.html$/.exec(u.pathname))) i = Number(m[1]);
      else if ((m = /^\/copy-(\d+)\.html$/.exec(u.pathname))) i = Number(m[1]);
      else if ((m = /^\/r\/(\d+)$/.exec(u.pathname))) todo.push(`${this.base(h)}/page-${m[1]}.html`);
      else if ((m = /^\/x\/(\d+)$/.exec(u.pathname))) todo.push(`${this.base(h)}/page-${m[1]}.html`);
      else if (u.pathname === '/res/gzip.html') {
        this.contentPages.add(url);
        this.tokenOf.set(url, `tok${h}gzq`);
      } else if (u.pathname.startsWith('/res/')) this.notIndexable.add(url);
      if (i === undefined || i >= P) continue;
      this.contentPages.add(url);
      const key = `${h}:${i}`;
      groups.set(key, [...(groups.get(key) ?? []), url]);
      this.tokenOf.set(url, `tok${h}x${i}q`);
      for (const l of this.linksOf(h, i)) {
        if (l.startsWith('#') || l.startsWith('mailto:')) continue;
        todo.push(new URL(l, url).toString());
      }
    }
    for (const g of groups.values()) if (g.length > 1) this.duplicateGroups.push(g.sort());
  }
}
