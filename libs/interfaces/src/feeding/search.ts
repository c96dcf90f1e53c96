import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { nonEmptyString } from '../processing/fsidl-types';
import { attributeValueSchema, SEARCH_TYPE } from './feeding-types';

export const indexedDocumentSchema = z.object({
  id: z.string(),
  collection: z.string(),
  attributes: z.record(z.string(), attributeValueSchema),
  /** Operation id and session of the last write. */
  op_id: z.number().int(),
  updated_at: z.string(),
});
export type IndexedDocument = z.output<typeof indexedDocumentSchema>;

export const searchHitSchema = z.object({
  id: z.string(),
  score: z.number(),
  title: z.string(),
  snippet: z.string(),
});
export type SearchHit = z.output<typeof searchHitSchema>;

/** `indexing::search` 1.0 (ours): what the indexer makes findable. */
export const searchInterface = defineInterface({
  type: SEARCH_TYPE,
  version: '1.0',
  doc: 'Queries over what the indexer has completed.',
  methods: {
    get: method({
      params: [['collection', nonEmptyString], ['id', nonEmptyString]],
      returns: indexedDocumentSchema.nullable(),
      doc: 'The document with this id, or null.',
    }),
    search: method({
      params: [
        ['collection', nonEmptyString],
        ['query', z.string().min(1).max(4096)],
        ['limit', z.number().int().min(1).max(1000).default(10)],
        ['offset', z.number().int().min(0).default(0)],
      ],
      returns: z.object({ total: z.number().int(), hits: z.array(searchHitSchema) }),
      raises: ['unknown_collection'],
      doc: 'Full-text search with ranking (best first).',
    }),
    count: method({
      params: [['collection', nonEmptyString]],
      returns: z.number().int(),
      doc: 'How many documents the collection holds.',
    }),
  },
});
