import { DocumentEntity, StringAttribute, type KeyValuePair } from '@esp/codecs';
import { contentRefKey, encodeContentRef, type ContentRef } from '@esp/interfaces';
import type { BlobStore } from '@esp/middleware';
import { attributeBytes, documentBytes, outOfBandValue } from './attribute-size';

export interface CheckOutOptions {
  /** The store, opened only when something goes out of band. */
  store: () => Promise<BlobStore>;
  /** A string or bytearray attribute over this many bytes always goes out of band. */
  thresholdBytes: number;
  /** The documents together must fit this many bytes: the largest attributes go out of band until they do. */
  budgetBytes?: number;
  /**
   * The object name for one attribute of the `index`-th document. Objects of the same name replace each other: a
   * name that is the same when the same work is done again (another processor taking over a batch) leaves no orphan.
   */
  objectName: (index: number, key: string) => string;
}

/** What checkOut made: the documents (references in place of large attributes) and the objects it stored. */
export interface CheckedOut {
  readonly docs: DocumentEntity[];
  readonly refs: ContentRef[];
}

/**
 * Claim check on the way out: every string or bytearray attribute over the threshold is stored in the object
 * store and replaced by its reference (`esp.ref.<key>`); then, while the documents together are over the budget,
 * the largest remaining one goes too. One object at a time, so memory holds no more than the documents already do.
 */
export async function checkOut(docs: readonly DocumentEntity[], opts: CheckOutOptions): Promise<CheckedOut> {
  const attrs = docs.map((d) => [...d.document_attributes]);
  const refs: ContentRef[] = [];
  let total = docs.reduce((n, d) => n + documentBytes(d), 0);
  const moveOut = async (list: KeyValuePair[], i: number, j: number): Promise<void> => {
    const attr = list[j];
    const value = attr && outOfBandValue(attr);
    if (!attr || !value) return;
    const ref = await (await opts.store()).put(opts.objectName(i, attr.key), value.bytes, { text: value.text });
    const replacement: KeyValuePair = new StringAttribute({ key: contentRefKey(attr.key), value: encodeContentRef(ref) });
    total += attributeBytes(replacement) - attributeBytes(attr);
    list[j] = replacement;
    refs.push(ref);
  };
  const candidates: Array<{ list: KeyValuePair[]; i: number; j: number; size: number }> = [];
  for (const [i, list] of attrs.entries()) {
    for (const [j, attr] of list.entries()) {
      if (!outOfBandValue(attr)) continue;
      const size = attributeBytes(attr);
      if (size > opts.thresholdBytes) await moveOut(list, i, j);
      else if (size > 4096) candidates.push({ list, i, j, size });
    }
  }
  if (opts.budgetBytes !== undefined && total > opts.budgetBytes) {
    candidates.sort((a, b) => b.size - a.size);
    for (const c of candidates) {
      if (total <= opts.budgetBytes) break;
      await moveOut(c.list, c.i, c.j);
    }
  }
  if (!refs.length) return { docs: [...docs], refs };
  return {
    docs: docs.map((d, i) => {
      const list = attrs[i] ?? [];
      return list.every((a, j) => a === d.document_attributes[j]) ? d : new DocumentEntity({ doc_id: d.doc_id, document_attributes: list });
    }),
    refs,
  };
}
