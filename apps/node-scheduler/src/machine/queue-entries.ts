/** Crawl queue entries made here (links, start URIs, promoted URIs), with their crawl depth in `extra`. */
import { fscmtParsedUri, fscmtUnparsedUri, FswcuDict, type FscmtQueueEntry, type FscmtRedirect } from '@esp/codecs';

const DEPTH_KEY = new TextEncoder().encode('depth');
/** Entries entryFor made (and nobody changed since: entries are replaced, not mutated): a store keeps their arguments. */
const made = new WeakSet<FscmtQueueEntry>();

export function entryFor(uri: string, referrer: string, depth: number, redirects: FscmtRedirect[], uriFlags = 0): FscmtQueueEntry {
  const entry: FscmtQueueEntry = {
    uri: fscmtParsedUri(uri),
    referrer: fscmtUnparsedUri(referrer),
    uriFlags,
    frameFlags: 0,
    redirects,
    queueFlags: 0,
    refreshCycle: 0,
    extra: new FswcuDict([[DEPTH_KEY, depth]]),
  };
  made.add(entry);
  return entry;
}

/** Whether entryFor(entry's uri, referrer, depth, redirects, uriFlags) gives the entry back. */
export function madeByEntryFor(entry: FscmtQueueEntry): boolean {
  return made.has(entry);
}

export function depthOf(entry: FscmtQueueEntry): number {
  const d = entry.extra.getText('depth');
  return typeof d === 'number' ? d : 0;
}
