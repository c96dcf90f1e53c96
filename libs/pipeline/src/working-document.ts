import {
  BoolAttribute,
  BytearrayAttribute,
  DocumentEntity,
  FloatAttribute,
  IntegerAttribute,
  KeyValuePair,
  LongAttribute,
  StringAttribute,
  StringCollection,
  type DocumentId,
} from '@esp/codecs';

/** One attribute change, kept for the Item Log Table when Tracing is on (MS-FSDPD 3.1.4.1). */
export interface AttributeChange {
  readonly stage: string;
  readonly key: string;
  readonly change: 'added' | 'changed' | 'removed';
  /** A short rendering of the new value (empty for a removal). */
  readonly value: string;
}

/** A scalar an attribute can be set from; numbers become int, long or float attributes, as they fit. */
export type AttributeScalar = string | number | boolean;

const PREVIEW_CHARS = 80;

/** A short, single-line rendering of an attribute's value, for logs. */
export function previewAttribute(attr: KeyValuePair): string {
  let s: string;
  if (attr instanceof BytearrayAttribute) s = `<${attr.value.length} bytes>`;
  else if ('value' in attr) {
    // only the head is shown: never stringify and scan a whole document body for a preview
    const v = (attr as { value: unknown }).value;
    s = JSON.stringify(typeof v === 'string' && v.length > PREVIEW_CHARS * 2 ? v.slice(0, PREVIEW_CHARS * 2) : v) ?? '';
  }
  else if ('values' in attr) s = `[${(attr as { values: readonly unknown[] }).values.length} values]`;
  else s = '';
  s = s.replace(/\s+/g, ' ');
  return s.length > PREVIEW_CHARS ? `${s.slice(0, PREVIEW_CHARS)}...` : s;
}

/** The same attribute entity (same class, same value) under another key. */
export function withKey(attr: KeyValuePair, key: string): KeyValuePair {
  const Ctor = attr.constructor as new (fields: object) => KeyValuePair;
  return new Ctor({ ...attr, key });
}

/** The attribute entity for a scalar: string, bool, int (32-bit), long (safe integer) or float. */
export function scalarAttribute(key: string, value: AttributeScalar): KeyValuePair {
  if (typeof value === 'string') return new StringAttribute({ key, value });
  if (typeof value === 'boolean') return new BoolAttribute({ key, value });
  if (Number.isInteger(value)) return (value | 0) === value ? new IntegerAttribute({ key, value }) : new LongAttribute({ key, value });
  return new FloatAttribute({ key, value });
}

/** A change whose preview is made only when read (tracing on): most documents' changes are never looked at. */
class LazyChange implements AttributeChange {
  readonly key: string;

  constructor(
    readonly stage: string,
    private readonly attr: KeyValuePair,
    readonly change: 'added' | 'changed',
  ) {
    this.key = attr.key;
  }

  get value(): string {
    return previewAttribute(this.attr);
  }
}

/**
 * The document a pipeline works on: the attributes of one item, editable by the stages, turned back into a
 * Cheetah `document` at the end. Every edit is recorded (stage, key, kind) so that Tracing can log it.
 *
 *   const doc = new WorkingDocument(op.doc);
 *   doc.setString('title', 'Hello');
 *   doc.remove('raw');
 *   const entity = doc.toEntity();
 */
export class WorkingDocument {
  readonly docId: DocumentId;
  private attrs: KeyValuePair[];
  readonly changes: AttributeChange[] = [];
  /** Name of the stage making edits now (set by the pipeline). */
  stage = '';

  constructor(doc: DocumentEntity) {
    this.docId = doc.doc_id;
    this.attrs = [...doc.document_attributes];
  }

  get id(): string {
    return this.docId.id;
  }

  /** The first attribute with this key. */
  get(key: string): KeyValuePair | undefined {
    return this.attrs.find((a) => a.key === key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The value of a string attribute, or undefined when absent or of another type. */
  getString(key: string): string | undefined {
    const a = this.get(key);
    return a instanceof StringAttribute ? a.value : undefined;
  }

  /** The text of a string attribute or of a bytearray attribute read as UTF-8 (invalid bytes replaced). */
  getText(key: string): string | undefined {
    const a = this.get(key);
    if (a instanceof StringAttribute) return a.value;
    if (a instanceof BytearrayAttribute) return new TextDecoder('utf-8').decode(a.value);
    return undefined;
  }

  keys(): string[] {
    return this.attrs.map((a) => a.key);
  }

  all(): readonly KeyValuePair[] {
    return this.attrs;
  }

  /** Replaces the first attribute with the same key (keeping its place), or appends. */
  set(attr: KeyValuePair): void {
    const i = this.attrs.findIndex((a) => a.key === attr.key);
    if (i >= 0) {
      this.attrs[i] = attr;
      // a later duplicate of the key would shadow nothing (get returns the first), but would still be indexed: drop it
      if (this.attrs.some((a, j) => j > i && a.key === attr.key)) this.attrs = this.attrs.filter((a, j) => j <= i || a.key !== attr.key);
    } else {
      this.attrs.push(attr);
    }
    this.changes.push(new LazyChange(this.stage, attr, i >= 0 ? 'changed' : 'added'));
  }

  setString(key: string, value: string): void {
    this.set(new StringAttribute({ key, value }));
  }

  setStrings(key: string, values: readonly string[]): void {
    this.set(new StringCollection({ key, values }));
  }

  setScalar(key: string, value: AttributeScalar): void {
    this.set(scalarAttribute(key, value));
  }

  /** Removes every attribute with this key; returns whether there was one. */
  remove(key: string): boolean {
    const before = this.attrs.length;
    this.attrs = this.attrs.filter((a) => a.key !== key);
    if (this.attrs.length === before) return false;
    this.changes.push({ stage: this.stage, key, change: 'removed', value: '' });
    return true;
  }

  toEntity(): DocumentEntity {
    return new DocumentEntity({ doc_id: this.docId, document_attributes: this.attrs });
  }
}
