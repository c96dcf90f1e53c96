/** What the crawler (the I/O edge) takes from the machine to fetch, and what it reports back of each fetch. */
import type { FscmtQueueEntry } from '@esp/codecs';
import type { CrawlSettings } from '../crawl-settings';

export interface Fetch {
  collection: string;
  site: string;
  entry: FscmtQueueEntry;
  depth: number;
  settings: CrawlSettings;
}

/** What became of a page read: handed to the feeding client, owned by another URI, or owned and not fed. */
export type PageFate = 'fed' | 'duplicate' | 'unfed';

export type FetchOutcome =
  | { kind: 'page'; links: string[]; fate: PageFate }
  /** read, but not a type the pipeline indexes (the reason says which and why) */
  | { kind: 'not_indexable'; reason: string }
  /** the body (decompressed) is over the crawler's bound */
  | { kind: 'too_large'; maxBytes: number }
  /** read, its links followed (unless nofollow), not fed: the page asks not to be indexed */
  | { kind: 'noindex' }
  | { kind: 'redirect'; location: string; status: number }
  /** a recrawl found the page as indexed: 304 Not Modified, or the same checksum (nothing checked or fed) */
  | { kind: 'unchanged' }
  /** the server says the page is not there (404, 410): if it was fed, it leaves the index */
  | { kind: 'gone'; status: number }
  | { kind: 'excluded' }
  /** not fetched yet (robots.txt unreachable): back to the front of the site's queue, the site paused `retryInMs` */
  | { kind: 'deferred'; retryInMs: number; reason?: string }
  /** `read`: the page was read (a 2xx answer) and failed afterwards (its duplicate check, feeding): a page of max_doc */
  | { kind: 'error'; reason: string; read?: boolean };
