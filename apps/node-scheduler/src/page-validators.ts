/**
 * What the crawler remembers of each page it fetched, to ask for it again conditionally on a recrawl (RFC 9110
 * 13.1): the ETag (sent back as If-None-Match) and the Last-Modified date (sent back as If-Modified-Since). A 304
 * answer then costs no body, no duplicate check and no feed.
 *
 * Kept behind this interface so that a durable store of the node's state can keep them across restarts; the
 * in-memory one below forgets them with the process (the next recrawl then fetches every page whole, once).
 *
 *   const validators = new MemoryPageValidators();
 *   validators.set('web', uri, { etag: '"abc"', lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT' });
 *   validators.get('web', uri)?.etag;
 */
export interface Validators {
  /** the ETag header as served, quotes and W/ included */
  etag?: string;
  /** the Last-Modified header as served */
  lastModified?: string;
}

export interface PageValidators {
  get(collection: string, uri: string): Validators | undefined;
  /** Remembers the validators of a page just read (one without any is forgotten: it cannot be asked conditionally). */
  set(collection: string, uri: string, v: Validators): void;
  delete(collection: string, uri: string): void;
  /** The collection is removed. */
  forgetCollection(collection: string): void;
}

export class MemoryPageValidators implements PageValidators {
  private readonly byCollection = new Map<string, Map<string, Validators>>();

  get(collection: string, uri: string): Validators | undefined {
    return this.byCollection.get(collection)?.get(uri);
  }

  set(collection: string, uri: string, v: Validators): void {
    if (v.etag === undefined && v.lastModified === undefined) return this.delete(collection, uri);
    let pages = this.byCollection.get(collection);
    if (!pages) this.byCollection.set(collection, (pages = new Map()));
    pages.set(uri, { etag: v.etag, lastModified: v.lastModified });
  }

  delete(collection: string, uri: string): void {
    this.byCollection.get(collection)?.delete(uri);
  }

  forgetCollection(collection: string): void {
    this.byCollection.delete(collection);
  }
}

/** The request headers of a conditional GET for these validators (none: an unconditional GET). */
export function conditionalHeaders(v: Validators | undefined): Record<string, string> | undefined {
  if (!v) return undefined;
  const h: Record<string, string> = {};
  if (v.etag !== undefined) h['if-none-match'] = v.etag;
  if (v.lastModified !== undefined) h['if-modified-since'] = v.lastModified;
  return Object.keys(h).length > 0 ? h : undefined;
}
