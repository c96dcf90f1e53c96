/**
 * What LocalWebSites adds to each host with `extras`: the parts of a real site a crawler product must get right.
 *
 *   /robots.txt            a 301 to /robots-real.txt: Disallow /private/, Crawl-delay, a Sitemap line
 *   /sitemap-index.xml     a sitemap index of /sitemap-a.xml and /sitemap-b.xml.gz (gzip-compressed)
 *   /sm/a.html, /sm/b.html pages only the sitemaps list
 *   /nofollow.html         <meta name="robots" content="nofollow">: its link /nf/never-1.html is not followed
 *   /nf/never-2.html       linked from the home page with rel="nofollow"
 *   /noindex.html          <meta name="robots" content="noindex">: fetched, its link /from-noindex.html followed,
 *                          itself never indexed
 *   /latin1.html           ISO-8859-1 bytes, declared in the Content-Type header
 *   /big.html              a page of BIG_PAGE_BYTES, its token at the very end
 *   /changing-<k>.html     pages `change()` alters (k = 0) or removes (k = 1); k = 2 stays as it is
 *
 * The home page links to the pages above (not to the sitemap-only ones).
 */
import { gzipSync } from 'node:zlib';

export const BIG_PAGE_BYTES = 3 * 1024 * 1024;
export const EXTRAS_CRAWL_DELAY_SECONDS = 0.2;

/** What the extras answer: a page (HTML, or bytes with their type), a redirect, or nothing here. */
export type ExtraAnswer =
  | { kind: 'html'; body: string | Buffer; contentType?: string }
  | { kind: 'file'; body: string | Buffer; contentType: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'gone' };

/** The sets a correct crawl produces, as LocalWebSites keeps them. */
export interface CrawlExpectations {
  readonly expectedFetches: Set<string>;
  readonly excluded: Set<string>;
  readonly contentPages: Set<string>;
  readonly tokenOf: Map<string, string>;
  readonly noindexPages: Set<string>;
}

const page = (title: string, body: string, head = ''): string => `<!DOCTYPE html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
const urlset = (locs: string[]): string => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

export class LocalWebSiteExtras {
  /** per host: version of /changing-0.html (0 before `change()`), and whether /changing-1.html is gone */
  private version = 0;
  private readonly bigPages = new Map<number, string>();

  constructor(private readonly base: (h: number) => string) {}

  /** What the home page adds: links to the pages above, one of them rel="nofollow". */
  homeHtml(): string {
    const links = ['/nofollow.html', '/noindex.html', '/latin1.html', '/big.html', '/changing-0.html', '/changing-1.html', '/changing-2.html'];
    return `<p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')} <a rel="nofollow" href="/nf/never-2.html">not followed</a></p>`;
  }

  robots(h: number): string {
    return `User-agent: *\nDisallow: /private/\nCrawl-delay: ${EXTRAS_CRAWL_DELAY_SECONDS}\nSitemap: ${this.base(h)}/sitemap-index.xml\n`;
  }

  token(h: number, path: string): string | undefined {
    const name = /^\/(?:sm\/)?([a-z0-9-]+)\.html$/.exec(path)?.[1];
    if (name === undefined || name === 'noindex' || name.startsWith('never')) return undefined;
    if (name === 'changing-0' && this.version > 0) return `tok${h}chg0v${this.version}q`;
    return `tok${h}${name.replace(/-/g, '')}q`;
  }

  answer(h: number, path: string): ExtraAnswer | undefined {
    const b = this.base(h);
    const tok = this.token(h, path);
    switch (path) {
      case '/robots.txt':
        return { kind: 'redirect', location: '/robots-real.txt' };
      case '/robots-real.txt':
        return { kind: 'file', body: this.robots(h), contentType: 'text/plain' };
      case '/sitemap-index.xml':
        return {
          kind: 'file',
          contentType: 'application/xml',
          body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${b}/sitemap-a.xml</loc></sitemap><sitemap><loc>${b}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
        };
      case '/sitemap-a.xml':
        return { kind: 'file', contentType: 'application/xml', body: urlset([`${b}/sm/a.html`, `${b}/page-1.html`, `${b}/private/in-sitemap.html`]) };
      case '/sitemap-b.xml.gz':
        return { kind: 'file', contentType: 'application/gzip', body: gzipSync(urlset([`${b}/sm/b.html`])) };
      case '/sm/a.html':
      case '/sm/b.html':
      case '/from-noindex.html':
      case '/changing-2.html':
        return { kind: 'html', body: page(path, `<p>${tok} a page of its own</p>`) };
      case '/nofollow.html':
        return { kind: 'html', body: page('No follow', `<p>${tok} indexed, links not followed</p><a href="/nf/never-1.html">never</a>`, '<meta name="robots" content="nofollow">') };
      case '/noindex.html':
        return { kind: 'html', body: page('No index', '<p>tokNOINDEXq must not be indexed</p><a href="/from-noindex.html">followed</a>', '<meta name="robots" content="noindex">') };
      case '/latin1.html':
        return { kind: 'html', body: Buffer.from(page('Latin-1', `<p>${tok} caf\u00e9 cr\u00e8me d\u00e9j\u00e0 vu</p>`), 'latin1'), contentType: 'text/html; charset=ISO-8859-1' };
      case '/big.html':
        return { kind: 'html', body: this.big(h) };
      case '/changing-0.html':
        return { kind: 'html', body: page('Changing', `<p>${tok} version ${this.version}</p>`) };
      case '/changing-1.html':
        return this.version > 0 ? { kind: 'gone' } : { kind: 'html', body: page('Soon gone', `<p>${tok} removed by change()</p>`) };
      default:
        return undefined;
    }
  }

  /** Walks the extras of host h into the expectations (the home page's links and the sitemaps' pages). */
  plan(h: number, into: CrawlExpectations): void {
    const b = this.base(h);
    const fetched = ['/nofollow.html', '/noindex.html', '/from-noindex.html', '/latin1.html', '/big.html', '/changing-0.html', '/changing-1.html', '/changing-2.html', '/sm/a.html', '/sm/b.html'];
    for (const p of fetched) {
      into.expectedFetches.add(b + p);
      const tok = this.token(h, p);
      if (tok === undefined) {
        into.noindexPages.add(b + p);
        continue;
      }
      into.contentPages.add(b + p);
      into.tokenOf.set(b + p, tok);
    }
    for (const p of ['/nf/never-1.html', '/nf/never-2.html', '/private/in-sitemap.html']) into.excluded.add(b + p);
  }

  /** /changing-0.html gets new content (a new token), /changing-1.html goes (404); what changed, per host. */
  change(hosts: number, into: CrawlExpectations): { changed: string[]; removed: string[] } {
    this.version++;
    const changed: string[] = [];
    const removed: string[] = [];
    for (let h = 0; h < hosts; h++) {
      const b = this.base(h);
      changed.push(`${b}/changing-0.html`);
      into.tokenOf.set(`${b}/changing-0.html`, this.token(h, '/changing-0.html') as string);
      removed.push(`${b}/changing-1.html`);
      into.contentPages.delete(`${b}/changing-1.html`);
    }
    return { changed, removed };
  }

  private big(h: number): string {
    let p = this.bigPages.get(h);
    if (!p) {
      const para = `<p>${'Filler words of a very long page that goes on and on. '.repeat(20)}</p>\n`;
      const head = page('Big', '').replace('</body></html>', '');
      const tail = `<p>tok${h}bigq at the end</p></body></html>`;
      p = head + para.repeat(Math.ceil((BIG_PAGE_BYTES - head.length - tail.length) / para.length)) + tail;
      this.bigPages.set(h, p);
    }
    return p;
  }
}
