/**
 * What `npm run crawl` shows: a progress line on stderr while the crawl runs, and the summary on stdout (text, or
 * one JSON object with --json). Pure functions of the admin API's status.
 */
import type { CrawlStatus } from '@esp/interfaces';

/** The counters a summary names, from the nodes' totals (missing ones are 0). */
export function counters(st: CrawlStatus): { fetched: number; fed: number; duplicates: number; failed: number; excluded: number } {
  const n = (k: string): number => st.stats[k] ?? 0;
  return { fetched: n('fetched'), fed: n('fed'), duplicates: n('duplicates'), failed: n('errors') + n('feed_failed'), excluded: n('excluded') + n('excluded_type') + n('excluded_size') + n('noindex') };
}

/** Pages queued anywhere (the scheduler's queue and the nodes') and in flight. */
export function pending(st: CrawlStatus): { queued: number; inFlight: number } {
  return { queued: st.queued + st.nodes.reduce((s, n) => s + n.queued, 0), inFlight: st.nodes.reduce((s, n) => s + n.in_flight, 0) };
}

/** One line: counters, what is pending, and the busiest sites (fetched/queued). */
export function progressLine(st: CrawlStatus): string {
  const c = counters(st);
  const p = pending(st);
  const sites = [...st.sites].sort((a, b) => b.queued - a.queued || b.fetched - a.fetched);
  const shown = sites.slice(0, 3).map((s) => `${s.site} ${s.fetched}/${s.queued}`);
  const more = sites.length > 3 ? ` +${sites.length - 3} sites` : '';
  const state = st.state === 'active' ? '' : ` [${st.state}]`;
  return (
    `crawl ${st.collection}${state}: fetched ${c.fetched}, fed ${c.fed}, duplicates ${c.duplicates}, failed ${c.failed}, excluded ${c.excluded}` +
    ` | queued ${p.queued}, in flight ${p.inFlight} | ${st.nodes.length} node${st.nodes.length === 1 ? '' : 's'}` +
    (shown.length ? ` | ${shown.join(', ')}${more}` : '')
  );
}

export function summaryText(st: CrawlStatus, elapsedMs: number | undefined): string {
  const c = counters(st);
  const head = elapsedMs === undefined ? `crawl of ${st.collection}: ${st.done ? 'done' : st.state}` : `crawl of ${st.collection} done in ${(elapsedMs / 1000).toFixed(1)} s`;
  const lines = [head, `  fetched ${c.fetched}  fed ${c.fed}  duplicates ${c.duplicates}  failed ${c.failed}  excluded ${c.excluded}  redirects ${st.stats['redirects'] ?? 0}`];
  const p = pending(st);
  if (!st.done) lines.push(`  queued ${p.queued}  in flight ${p.inFlight}  state ${st.state}  epoch ${st.epoch}`);
  if (st.nodes.length) lines.push(`  nodes: ${st.nodes.map((n) => `${n.node}${n.idle ? ' idle' : ` ${n.queued} queued, ${n.in_flight} in flight`}`).join('; ')}`);
  const width = Math.max(0, ...st.sites.map((s) => s.site.length));
  for (const s of [...st.sites].sort((a, b) => a.site.localeCompare(b.site))) {
    lines.push(`  ${s.site.padEnd(width)}  fetched ${s.fetched}${s.queued ? `  queued ${s.queued}` : ''}${s.errors ? `  errors ${s.errors}` : ''}${s.node ? `  (${s.node})` : ''}`);
    if (s.held) lines.push(`  ${' '.repeat(width)}  held back: ${heldText(s)}`);
    if (s.last_error) lines.push(`  ${' '.repeat(width)}  last error: ${s.last_error}`);
  }
  return lines.join('\n') + '\n';
}

export function summaryJson(st: CrawlStatus, elapsedMs: number | undefined): Record<string, unknown> {
  return { collection: st.collection, done: st.done, state: st.state, epoch: st.epoch, ...(elapsedMs === undefined ? {} : { elapsed_ms: elapsedMs }), ...counters(st), ...pending(st), stats: st.stats, nodes: st.nodes, sites: st.sites };
}

type SiteStatus = CrawlStatus['sites'][number];

/** Why a site waits, and when it is tried again: "robots.txt unreachable (...), next try in 58 s". */
export function heldText(s: SiteStatus): string {
  return `${s.held ?? ''}${s.next_try_ms !== undefined ? `, next try in ${Math.ceil(s.next_try_ms / 1000)} s` : ''}`;
}

/**
 * What stops a crawl from fetching anything, one line per site: why it is held back, else its last fetch error.
 * Empty when no site says anything.
 */
export function reasons(st: CrawlStatus): string[] {
  const out: string[] = [];
  for (const s of [...st.sites].sort((a, b) => a.site.localeCompare(b.site))) {
    if (s.held) out.push(`${s.site}: held back: ${heldText(s)}`);
    else if (s.last_error) out.push(`${s.site}: ${s.errors ?? 1} fetch error${s.errors === 1 ? '' : 's'}, the last: ${s.last_error}`);
  }
  return out;
}

/** Something happened to the crawl (a page read, refused, failed, excluded...): the counters and sites' counts. */
export function activity(st: CrawlStatus): string {
  const c = counters(st);
  return [c.fetched, c.fed, c.duplicates, c.failed, c.excluded, st.stats['redirects'] ?? 0, st.stats['unchanged'] ?? 0, ...st.sites.map((s) => `${s.site}=${s.fetched}/${s.errors ?? 0}`)].join(' ');
}

/** Nothing was fetched (no page read, none found unchanged): the crawl reached nothing. */
export function nothingFetched(st: CrawlStatus): boolean {
  return counters(st).fetched === 0 && (st.stats['unchanged'] ?? 0) === 0;
}
