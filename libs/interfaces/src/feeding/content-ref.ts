import { z } from 'zod';

/**
 * A claim check: a document attribute too large to travel in a batch is stored in a JetStream object store and the
 * operation carries this reference instead, as a string attribute named `esp.ref.<attribute>` holding its JSON. The
 * next stage fetches the object, checks its size and digest, and puts the bytes back under `<attribute>`.
 */
export const contentRefSchema = z.strictObject({
  bucket: z.string().min(1).max(255),
  name: z.string().min(1).max(1024),
  /** Bytes of the object. */
  size: z.number().int().min(0),
  /** "SHA-256=" and the base64url digest of the bytes (the object store's own notation). */
  digest: z.string().regex(/^SHA-256=[A-Za-z0-9_-]{43}=?$/),
  /** The bytes are UTF-8 text: restore a string attribute, not a bytearray. */
  text: z.boolean().optional(),
});
export type ContentRef = z.infer<typeof contentRefSchema>;

/** Key prefix of reference attributes: `esp.ref.body` stands for attribute `body`. */
export const CONTENT_REF_PREFIX = 'esp.ref.';

/** The bucket documents' out-of-band content goes to unless configured otherwise. */
export const DEFAULT_CONTENT_BUCKET = 'esp_content';

export function contentRefKey(attribute: string): string {
  return CONTENT_REF_PREFIX + attribute;
}

/** The attribute a reference key stands for, or undefined when `key` is not a reference. */
export function referencedAttribute(key: string): string | undefined {
  return key.startsWith(CONTENT_REF_PREFIX) && key.length > CONTENT_REF_PREFIX.length ? key.slice(CONTENT_REF_PREFIX.length) : undefined;
}

export class BadContentRef extends Error {
  override name = 'BadContentRef';
}

export function encodeContentRef(ref: ContentRef): string {
  return JSON.stringify(ref);
}

/** Parses a reference attribute's value; throws BadContentRef saying what is wrong. */
export function decodeContentRef(value: string): ContentRef {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new BadContentRef('content reference is not JSON');
  }
  const r = contentRefSchema.safeParse(json);
  if (!r.success) throw new BadContentRef(`bad content reference: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

/**
 * The object an item processor stores a processed attribute under when its content came by reference: named after
 * the client's object, so that whoever processes the document again (another processor after a crash, a
 * resubmission) replaces it instead of leaving one behind, and the client can delete it with its own.
 */
export function processedContentName(sourceName: string, attribute: string): string {
  return `${sourceName}/processed/${encodeURIComponent(attribute)}`;
}
