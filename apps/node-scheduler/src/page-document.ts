/**
 * The document a crawled page becomes for the feeding client: its raw bytes (never decoded here) with the server's
 * Content-Type header as `content_type`, so that the pipeline's charset stage reads `charset=` from it, and its
 * detect stage the type from the bytes.
 *
 * A small body travels as the bytearray attribute `body`; a larger one as `content`, which the feeding client sends
 * out of band (a claim check in the object store) instead of in the batch, whose size the bus bounds.
 *
 *   await client.feed(pageDocument(page, 'node1'));
 */
import type { FeedDocument } from '@esp/content-client';
import type { CrawledPage } from './crawler';

/** Bodies up to this size go inline as attribute `body` (the feeding client's own inline bound, 256 KiB). */
export const INLINE_BODY_BYTES = 256 * 1024;

export function pageDocument(page: CrawledPage, crawledBy: string): FeedDocument {
  const attributes: NonNullable<FeedDocument['attributes']> = { url: page.uri, site: page.site, crawled_by: crawledBy };
  if (page.contentType) attributes['content_type'] = page.contentType;
  if (page.title) attributes['title'] = page.title;
  const body = page.body;
  if (body.length <= INLINE_BODY_BYTES) return { id: page.uri, attributes: { ...attributes, body } };
  return {
    id: page.uri,
    attributes,
    content: {
      size: body.length,
      open: async function* () {
        yield body;
      },
    },
  };
}
