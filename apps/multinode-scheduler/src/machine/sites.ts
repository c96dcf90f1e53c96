/**
 * Crawl sites as the multinode scheduler routes them: the site of a queue entry (host[:port], the routing unit),
 * the host of a site, and the queue entry a start URI becomes.
 */
import { FSCMT_URI_FLAGS, fscmtParsedUri, fscmtUnparsedUri, FswcuDict, type FscmtQueueEntry } from '@esp/codecs';

/** The crawl site of an entry: host[:port] as in the URI (the routing unit), and the host to resolve. */
export function siteOf(entry: FscmtQueueEntry): { site: string; host: string } | undefined {
  try {
    const u = new URL(entry.uri.uri);
    if (!u.hostname) return undefined;
    return { site: u.host.toLowerCase(), host: u.hostname.toLowerCase() };
  } catch {
    return undefined;
  }
}

export function hostOfSite(site: string): string {
  const i = site.lastIndexOf(':');
  return i > 0 && !site.endsWith(']') ? site.slice(0, i) : site;
}

export function startEntry(uri: string): FscmtQueueEntry {
  return {
    uri: fscmtParsedUri(uri),
    referrer: fscmtUnparsedUri(''),
    uriFlags: FSCMT_URI_FLAGS.URIF_STARTURI,
    frameFlags: 0,
    redirects: [],
    queueFlags: 0,
    refreshCycle: 0,
    extra: new FswcuDict(),
  };
}
