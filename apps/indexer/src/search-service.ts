/**
 * `indexing::search` 1.0: what the indexer has written, by id and by full-text query (bm25, best first).
 *
 *   const { proxy } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
 *   await proxy.search('news', 'storm "north sea"', 10, 0);   // { total, hits: [{ id, score, title, snippet }] }
 *
 * Any query text is safe (see fts-query.ts); one without a single word raises bad_parameter.
 */
import { UnknownCollection, type Implementation, type IndexedDocument, type SearchHit, type searchInterface } from '@esp/interfaces';
import { BadParameter } from '@esp/middleware';
import { EmptyQueryError, toFtsQuery } from './fts-query';
import type { DocumentStore } from './collection-store';

export class SearchService implements Implementation<typeof searchInterface> {
  constructor(private readonly collections: ReadonlyMap<string, { docs: DocumentStore }>) {}

  private docs(collection: string): DocumentStore {
    const c = this.collections.get(collection);
    if (!c) {
      const served = [...this.collections.keys()];
      throw new UnknownCollection(`collection "${collection}" is not served by this indexer (it serves: ${served.join(', ')})`, { collection, served });
    }
    return c.docs;
  }

  get(collection: string, id: string): IndexedDocument | null {
    const d = this.docs(collection).get(id);
    if (!d) return null;
    const attributes = Object.create(null) as IndexedDocument['attributes']; // a key "__proto__" stays a key
    for (const [key, value] of Object.entries(d.attributes)) {
      // the interface's attribute values are finite numbers: a NaN / ±Infinity float attribute is given by name
      attributes[key] = typeof value === 'number' && !Number.isFinite(value) ? String(value) : (value as IndexedDocument['attributes'][string]);
    }
    return { id: d.id, collection, attributes, op_id: d.op_id, updated_at: d.updated_at };
  }

  search(collection: string, query: string, limit: number, offset: number): { total: number; hits: SearchHit[] } {
    const docs = this.docs(collection);
    let match: string;
    try {
      match = toFtsQuery(query);
    } catch (err) {
      if (err instanceof EmptyQueryError) throw new BadParameter(`search: ${err.message}`, { argument: 'query', reason: err.message });
      throw err;
    }
    return docs.search(match, limit, offset);
  }

  count(collection: string): number {
    return this.docs(collection).count();
  }
}
