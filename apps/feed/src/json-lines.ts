import type { FeedDocument } from '@esp/content-client';
import { InputError } from './input-error';

/** JSON lines nested deeper than this are input errors (checked before parsing, without recursion). */
export const MAX_JSON_DEPTH = 64;
/** JSON lines longer than this (bytes, without the newline) are input errors; their bytes are not kept. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export type LineEvent = { n: number; line: string } | { n: number; tooLong: number };

/**
 * Bytes → lines (LF or CRLF), each line decoded as UTF-8, numbered from 1. A line over `maxBytes` is reported by its
 * length only: its bytes are dropped as they come, so one endless line costs no memory. Chunks are kept by reference
 * until their line ends: the caller must not reuse them.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private n = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (e: LineEvent) => void,
  ) {}

  parse(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.finish();
      start = nl + 1;
    }
  }

  /** The last line, when the input does not end with a newline. */
  end(): void {
    if (this.size > 0) this.finish();
  }

  private take(part: Uint8Array): void {
    if (part.length === 0) return;
    this.size += part.length;
    if (this.size > this.maxBytes + 1) this.parts = []; // + 1: a CR before the LF is not part of the line
    else this.parts.push(part);
  }

  private finish(): void {
    this.n++;
    const size = this.size;
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    const cr = size > 0 && lastByte(parts) === 0x0d;
    const length = cr ? size - 1 : size;
    if (length > this.maxBytes) {
      this.emit({ n: this.n, tooLong: length });
      return;
    }
    const bytes = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, size);
    this.emit({ n: this.n, line: this.decoder.decode(cr ? bytes.subarray(0, length) : bytes) });
  }
}

function lastByte(parts: Uint8Array[]): number | undefined {
  const last = parts[parts.length - 1];
  return last?.[last.length - 1];
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether JSON text nests arrays and objects deeper than `max`: one pass, strings skipped, no recursion. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * A JSON line → document. Either {"id", "attributes": {...}, "remove"?} or a flat object whose fields other than id
 * are the attributes. Nested values become JSON strings.
 */
export function documentFromJson(line: string, where: string, maxDepth = MAX_JSON_DEPTH): FeedDocument {
  if (nestedDeeperThan(line, maxDepth)) throw new InputError(`${where}: nested deeper than ${maxDepth} levels`);
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new InputError(`${where}: not JSON: ${(err as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new InputError(`${where}: expected a JSON object`);
  const o = v as Record<string, unknown>;
  if (typeof o['id'] !== 'string' || o['id'].length === 0) throw new InputError(`${where}: "id" must be a non-empty string`);
  const raw = (o['attributes'] && typeof o['attributes'] === 'object' ? o['attributes'] : Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'id' && k !== 'remove'))) as Record<string, unknown>;
  const attributes: NonNullable<FeedDocument['attributes']> = {};
  for (const [k, val] of Object.entries(raw)) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') attributes[k] = val;
    else if (Array.isArray(val) && val.every((x) => typeof x === 'string')) attributes[k] = val as string[];
    else if (val !== null && val !== undefined) attributes[k] = JSON.stringify(val);
  }
  return { id: o['id'], attributes, ...(o['remove'] === true ? { remove: true } : {}) };
}
