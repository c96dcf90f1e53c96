/**
 * Cheetah entities as one msgpackr extension, type CHEETAH_EXT_TYPE ('C'). The extension's payload is the
 * MessagePack array `[typeId, checksum, ...fields]` in `cheetah.fields` order; an entity-typed field or collection
 * element is such an array again (inside a payload the schema says where entities are, so they are not wrapped a
 * second time). The payload is written and read by wire-writer / wire-reader, which check every field's type and
 * the spec's MUSTs; msgpackr handles whatever surrounds the entities.
 *
 * msgpackr keeps extensions in one registry for the whole process: once this module is loaded, every Packr and
 * Unpackr of the process writes and reads Cheetah entities.
 */
import { Packr, type Unpackr, addExtension } from 'msgpackr';
import { CodecError } from '../errors';
import { CheetahEncodeError, CheetahMalformedError } from './cheetah-errors';
import { encodeAhead, encodedFormOf, rememberEncodedForm } from './encoded-forms';
import { type CheetahDescriptor, CheetahEntity } from './entity';
import './registry';
import { beginRead, endRead, readEntity } from './wire-reader';
import { copyWritten, resetWriter, writeEntity, writtenLength } from './wire-writer';

/** The msgpackr extension type number of Cheetah entities ('C'). */
export const CHEETAH_EXT_TYPE = 0x43;

/** msgpackr's allocator for an extension's bytes: call it once, before anything else is packed. */
type Allocate = (size: number) => { target: Uint8Array; targetView: DataView; position: number };

function packEntity(value: CheetahEntity, allocate: Allocate): void {
  if ((value.constructor as unknown as { readonly cheetah?: CheetahDescriptor }).cheetah === undefined) {
    allocate(0); // hand msgpackr its buffer back before failing
    throw new CheetahEncodeError(`${value.constructor.name} is not an entity of the Cheetah tables`);
  }
  // decoded in a process that passes it on unchanged: the bytes it came from (./encoded-forms)
  const form = encodedFormOf(value);
  if (!form) {
    resetWriter();
    try {
      writeEntity(value);
    } catch (e) {
      allocate(0);
      throw e;
    }
  }
  const length = form ? form.length : writtenLength();
  const header = length < 0x100 ? 3 : length < 0x10000 ? 4 : 6;
  const out = allocate(header + length);
  const target = out.target;
  const p = out.position;
  if (header === 3) {
    target[p] = 0xc7;
    target[p + 1] = length;
    target[p + 2] = CHEETAH_EXT_TYPE;
  } else if (header === 4) {
    target[p] = 0xc8;
    out.targetView.setUint16(p + 1, length);
    target[p + 3] = CHEETAH_EXT_TYPE;
  } else {
    target[p] = 0xc9;
    out.targetView.setUint32(p + 1, length);
    target[p + 5] = CHEETAH_EXT_TYPE;
  }
  if (form) target.set(form, p + header);
  else copyWritten(target, p + header);
}

/** msgpackr calls the registered function with the payload of an extension of our type. */
function unpackEntity(payload: Uint8Array): CheetahEntity {
  beginRead(payload);
  const entity = readEntity(undefined, '');
  endRead();
  rememberEncodedForm(entity, payload, CHEETAH_EXT_TYPE);
  return entity;
}

const cheetahExtension = Object.assign(unpackEntity, {
  Class: CheetahEntity,
  type: CHEETAH_EXT_TYPE,
  pack: packEntity,
});

let registered = false;

/**
 * Makes msgpackr write and read Cheetah entities. msgpackr's extension registry is process-wide, so this covers
 * every Packr/Unpackr (the argument is returned for chaining); it is done once, when this module loads.
 */
export function registerCheetahExtension(): void;
export function registerCheetahExtension<T extends Unpackr>(packr: T): T;
export function registerCheetahExtension<T extends Unpackr>(packr?: T): T | undefined {
  if (!registered) {
    // `unpack` stays unset: msgpackr then calls the registered object itself with the payload
    addExtension(cheetahExtension as unknown as Parameters<typeof addExtension>[0]);
    registered = true;
  }
  return packr;
}

registerCheetahExtension();

/** The codec's own Packr: plain MessagePack maps and arrays (no records, no structured clone). */
export const cheetahPackr = new Packr({
  useRecords: false,
  structuredClone: false,
  moreTypes: false,
  mapsAsObjects: true,
});

/**
 * Encodes `entity` now and keeps the bytes with it: encoding it again later only copies them (./encoded-forms). Don't
 * change it afterwards.
 */
export function encodeCheetahAhead(entity: CheetahEntity): void {
  encodeAhead(entity, encodeCheetah);
}

/** Encodes any MessagePack value that may hold Cheetah entities anywhere inside. Throws CodecError subclasses. */
export function encodeCheetah(value: unknown): Uint8Array {
  try {
    return cheetahPackr.pack(value);
  } catch (e) {
    if (e instanceof CodecError) throw e;
    throw new CheetahEncodeError(`cannot encode value: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * Decodes one MessagePack value (the whole input), building Cheetah entities wherever they occur. Every failure
 * is a CodecError subclass: CheetahUnknownTypeError, CheetahChecksumError, CheetahFieldError,
 * CheetahConstraintError, or CheetahMalformedError (which wraps msgpackr's own errors).
 */
export function decodeCheetah(bytes: Uint8Array): unknown {
  try {
    return cheetahPackr.unpack(bytes) as unknown;
  } catch (e) {
    if (e instanceof CodecError) throw e;
    throw new CheetahMalformedError(`not a valid MessagePack value: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
}
