import { FswcuDict, fswcuBytes } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { CrawlProgress } from './machine/crawl-progress';

const dict = (entries: Array<[string, unknown]>) => new FswcuDict(entries.map(([k, v]) => [fswcuBytes(k), v] as [Uint8Array, never]));

describe('crawl progress of the nodes', () => {
  it("a site's hold (reason, until when on this clock), its errors and the last one's reason; an older node's report has none", () => {
    const clock = new ManualClock(1000);
    const p = new CrawlProgress(clock);
    const site = dict([
      ['fetched', 0],
      ['queued', 1],
      ['errors', 2],
      ['held', fswcuBytes('robots.txt unreachable (connect ECONNREFUSED)')],
      ['held_ms', 59_000],
      ['last_error', fswcuBytes('http://a/: HTTP 503')],
    ]);
    p.report('web', 'n1', dict([['progress', dict([['queued', 1], ['in_flight', 0], ['sites', dict([['a:80', site], ['b:80', dict([['fetched', 3], ['queued', 0]])]])]])]]));
    expect(p.sitesOf('web').get('a:80')).toEqual({ fetched: 0, queued: 1, errors: 2, lastError: 'http://a/: HTTP 503', held: { reason: 'robots.txt unreachable (connect ECONNREFUSED)', until: 60_000 } });
    expect(p.sitesOf('web').get('b:80')).toEqual({ fetched: 3, queued: 0, errors: 0, lastError: undefined, held: undefined });
  });
});
