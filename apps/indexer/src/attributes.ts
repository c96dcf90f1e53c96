/**
 * Item attributes (MS-FSDPD 2.2.14, 2.2.16-2.2.28) as plain values, their JSON form in the store, and the text the
 * full-text index sees.
 *
 *   const attrs = attributesOf(op.doc.document_attributes);   // { title: 'Hello', size: 42, tags: ['a', 'b'] }
 *   const row = encodeAttributes(attrs);                        // JSON text; bytes and non-finite floats tagged
 *   const { title, body, extra } = searchableText(attrs);
 */
import {
  BoolAttribute,
  BoolCollection,
  BytearrayAttribute,
  BytearrayCollection,
  FloatAttribute,
  FloatCollection,
  IntegerAttribute,
  IntegerCollection,
  KeyValueCollection,
  type KeyValuePair,
  LongAttribute,
  LongCollection,
  StringAttribute,
  StringCollection,
} from '@esp/codecs';

/** One entry of a key_value_collection: its order and repeated keys are kept. */
export interface KeyedValue {
  key: string;
  value: AttributeValue;
}

/**
 * What an attribute holds: string / bool / float / integer / long attributes are scalars, bytearray is a
 * Uint8Array, the *_collection types are arrays, a key_value_collection is an array of {key, value}, and a bare
 * key_value_pair (a key without a value) is null.
 */
export type AttributeValue = string | number | boolean | Uint8Array | null | readonly AttributeValue[] | readonly KeyedValue[];
export type Attributes = Record<string, AttributeValue>;

export function attributeValue(kvp: KeyValuePair): AttributeValue {
  if (kvp instanceof StringAttribute || kvp instanceof BoolAttribute || kvp instanceof FloatAttribute) return kvp.value;
  if (kvp instanceof IntegerAttribute || kvp instanceof LongAttribute || kvp instanceof BytearrayAttribute) return kvp.value;
  if (kvp instanceof StringCollection || kvp instanceof BoolCollection || kvp instanceof FloatCollection) return [...kvp.values];
  if (kvp instanceof IntegerCollection || kvp instanceof LongCollection || kvp instanceof BytearrayCollection) return [...kvp.values];
  if (kvp instanceof KeyValueCollection) return kvp.values.map((v) => ({ key: v.key, value: attributeValue(v) }));
  return null;
}

/**
 * The attributes of a document entity by key. A key given twice keeps the last value; `repeated` names such keys
 * so that the caller can warn.
 */
export function attributesOf(kvps: readonly KeyValuePair[]): { attributes: Attributes; repeated: string[] } {
  const attributes: Attributes = Object.create(null) as Attributes;
  const repeated: string[] = [];
  for (const kvp of kvps) {
    if (Object.prototype.hasOwnProperty.call(attributes, kvp.key) && !repeated.includes(kvp.key)) repeated.push(kvp.key);
    attributes[kvp.key] = attributeValue(kvp);
  }
  return { attributes, repeated };
}

// ---- JSON form: bytes as {"$bytes": base64}, NaN / ±Infinity as {"$float": "NaN"}; everything else is plain JSON

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

function toJson(v: unknown): Json {
  if (v instanceof Uint8Array) return { $bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (typeof v === 'number') return Number.isFinite(v) ? v : { $float: String(v) };
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === 'object') {
    const out = Object.create(null) as Record<string, Json>; // a key "__proto__" stays an ordinary key
    for (const [k, x] of Object.entries(v)) out[k] = toJson(x);
    return out;
  }
  return v as string | boolean | null;
}

function fromJson(v: Json): unknown {
  if (Array.isArray(v)) return v.map(fromJson);
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1 && typeof v['$bytes'] === 'string') return new Uint8Array(Buffer.from(v['$bytes'], 'base64'));
    if (keys.length === 1 && typeof v['$float'] === 'string') return Number(v['$float']);
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v)) out[k] = fromJson(x);
    return out;
  }
  return v;
}

export function encodeAttributes(attrs: Attributes): string {
  return JSON.stringify(toJson(attrs));
}

export function decodeAttributes(text: string): Attributes {
  return fromJson(JSON.parse(text) as Json) as Attributes;
}

// ---- what the full-text index sees

/** Attribute keys whose text is the title; the first present wins. Matched without regard to case. */
export const TITLE_KEYS = ['title'] as const;
/** Attribute keys whose text is the body, in this order. */
export const BODY_KEYS = ['body', 'text', 'content'] as const;

function strings(v: AttributeValue, out: string[]): void {
  if (typeof v === 'string') {
    if (v.length > 0) out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v as readonly (AttributeValue | KeyedValue)[]) {
      if (x !== null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof Uint8Array)) strings((x as KeyedValue).value, out);
      else strings(x as AttributeValue, out);
    }
  }
}

/**
 * The three columns of the full-text index: `title` (attribute "title"), `body` ("body", "text", "content") and
 * `extra` (the strings of every other attribute, key_value_collections included; bytes and numbers are not text).
 */
export function searchableText(attrs: Attributes): { title: string; body: string; extra: string } {
  const title: string[] = [];
  const body: string[] = [];
  const extra: string[] = [];
  const byLower = new Map<string, string[]>();
  for (const key of Object.keys(attrs)) {
    const lower = key.toLowerCase();
    byLower.set(lower, [...(byLower.get(lower) ?? []), key]);
  }
  const used = new Set<string>();
  const take = (keys: readonly string[], into: string[]): void => {
    for (const k of keys) {
      for (const key of byLower.get(k) ?? []) {
        strings(attrs[key] ?? null, into);
        used.add(key);
      }
    }
  };
  take(TITLE_KEYS, title);
  take(BODY_KEYS, body);
  for (const key of Object.keys(attrs)) if (!used.has(key)) strings(attrs[key] ?? null, extra);
  return { title: title.join(' '), body: body.join('\n'), extra: extra.join('\n') };
}
