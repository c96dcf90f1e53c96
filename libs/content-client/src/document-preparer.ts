import { randomUUID } from 'node:crypto';
import { BytearrayAttribute, DocumentEntity, DocumentId, RemoveOperation, StringAttribute, UpdateOperation, type Operation } from '@esp/codecs';
import { checkOut, documentBytes } from '@esp/claim-check';
import { contentRefKey, encodeContentRef, processedContentName, type ContentRef, type ProcessingErrorName } from '@esp/interfaces';
import type { BlobStore } from '@esp/middleware';
import { toOperation, type DocumentContent, type FeedDocument } from './feed-document';

/** A document ready to go into batches: its Cheetah form, references in place of large content. */
export interface PreparedDocument {
  readonly id: string;
  readonly entity?: DocumentEntity;
  readonly remove?: boolean;
  /** Bytes it adds to an encoded batch, about. */
  readonly bytes: number;
  /** Bytes of its content, inline or referenced: what the item processor will hold while it works on it. */
  readonly contentBytes: number;
  /** Objects stored for it, deleted once it has its final status. */
  readonly refs: readonly ContentRef[];
}

/** A document that fails before it is sent (too large, its content cannot be stored or read). */
export class PreparationFailure extends Error {
  override name = 'PreparationFailure';
  constructor(
    readonly error: Extract<ProcessingErrorName, 'document_too_large' | 'content_unavailable'>,
    message: string,
  ) {
    super(message);
  }
}

export interface PreparerOptions {
  store: () => Promise<BlobStore>;
  /**
   * Deletes objects of the store's bucket (and their processed text). Default: this connection deletes them, which
   * takes the bucket's read and purge API; a feed client asks the stack instead (requestContentRelease).
   */
  releaseObjects?: (bucket: string, names: readonly string[]) => Promise<void>;
  /** Content over this many bytes goes out of band. */
  inlineMaxBytes: number;
  /** Content over this many bytes fails the document. */
  maxDocumentBytes: number;
  /** What one document may add to a batch at most: larger attributes go out of band until it fits. */
  budgetBytes: number;
  /** Prefix of object names (unique per session). */
  objectPrefix: string;
}

async function readAll(content: DocumentContent, limit: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of content.open()) {
    total += chunk.length;
    if (total > limit) throw new PreparationFailure('document_too_large', `content grew past ${limit} bytes while being read`);
    parts.push(chunk);
  }
  return Buffer.concat(parts, total);
}

/** The Cheetah operation for a prepared document. */
export function operationOf(opId: number, doc: PreparedDocument): Operation {
  if (doc.remove || !doc.entity) return new RemoveOperation({ id: opId, doc_id: new DocumentId({ id: doc.id }) });
  return new UpdateOperation({ id: opId, doc: doc.entity });
}

/**
 * FeedDocument → PreparedDocument: reads small content inline (attribute `body`), streams large content into the
 * object store (attribute `esp.ref.body`), and moves any other attribute that is too large for a batch out of band
 * too. A document over the size limit, or whose content cannot be read or stored, fails alone.
 */
export class DocumentPreparer {
  constructor(private readonly opts: PreparerOptions) {}

  async prepare(doc: FeedDocument): Promise<PreparedDocument> {
    if (doc.remove) return { id: doc.id, remove: true, bytes: 64 + Buffer.byteLength(doc.id), contentBytes: 0, refs: [] };
    const { inlineMaxBytes, maxDocumentBytes } = this.opts;
    const size = doc.content?.size ?? 0;
    if (size > maxDocumentBytes) throw new PreparationFailure('document_too_large', `${size} bytes, over the limit of ${maxDocumentBytes} bytes (--max-document-bytes)`);
    const base = (toOperation(0, { id: doc.id, ...(doc.attributes ? { attributes: doc.attributes } : {}) }) as UpdateOperation).doc;
    const attrs = [...base.document_attributes];
    const refs: ContentRef[] = [];
    try {
      if (doc.content) {
        if (size <= inlineMaxBytes) {
          attrs.push(new BytearrayAttribute({ key: 'body', value: await readAll(doc.content, maxDocumentBytes) }));
        } else {
          const ref = await (await this.opts.store()).put(this.objectName(), doc.content.open());
          if (ref.size > maxDocumentBytes) {
            refs.push(ref);
            throw new PreparationFailure('document_too_large', `${ref.size} bytes, over the limit of ${maxDocumentBytes} bytes (--max-document-bytes)`);
          }
          attrs.push(new StringAttribute({ key: contentRefKey('body'), value: encodeContentRef(ref) }));
          refs.push(ref);
        }
      }
      const entity = new DocumentEntity({ doc_id: base.doc_id, document_attributes: attrs });
      const out = await checkOut([entity], { store: this.opts.store, thresholdBytes: inlineMaxBytes, budgetBytes: this.opts.budgetBytes, objectName: () => this.objectName() });
      refs.push(...out.refs);
      const prepared = out.docs[0] ?? entity;
      return { id: doc.id, entity: prepared, bytes: documentBytes(prepared), contentBytes: Math.max(size, documentBytes(entity)), refs };
    } catch (err) {
      await this.release(refs);
      if (err instanceof PreparationFailure) throw err;
      throw new PreparationFailure('content_unavailable', `cannot read or store the content: ${(err as Error).message}`);
    }
  }

  /**
   * Deletes the objects of a document (its final status came, or it failed before being sent), and the processed
   * text an item processor stored after one of them for the indexer: the indexer deletes that once it has it, but
   * not if it stopped in between.
   */
  async release(refs: readonly ContentRef[]): Promise<void> {
    if (!refs.length) return;
    const store = await this.opts.store();
    if (this.opts.releaseObjects) return this.opts.releaseObjects(store.bucket, refs.map((r) => r.name));
    for (const ref of refs) {
      await store.delete(ref.name);
      await store.delete(processedContentName(ref.name, 'body'));
    }
  }

  private objectName(): string {
    return `${this.opts.objectPrefix}/${randomUUID()}`;
  }
}
