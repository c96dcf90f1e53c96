/**
 * Encoded forms kept with decoded entities, for a process that passes entities on unchanged (the content distributor
 * hands each client batch to an item processor as it came): encoding such an entity again writes the bytes it was
 * decoded from instead of walking its fields. Opt-in per class and per process, because it relies on the decoded
 * instances not being changed afterwards (the codec's entities are plain objects; nothing stops a change, which
 * would then not be sent).
 *
 *   keepEncodedForms(OperationSet);         // at startup, in a process that only reads what it decodes
 *   const set = decodeCheetah(bytes);       // remembers the extension payload it came from (a copy)
 *   encodeCheetah([set]);                   // writes those bytes again
 *   encodedEntityOf(set);                   // the entity alone, as encodeCheetah(set) would give it, without a copy
 */
import type { CheetahEntity } from './entity';

const kept = new Set<abstract new (...args: never) => CheetahEntity>();
/**
 * The entity as a whole MessagePack value (extension header + payload), copied once out of the input: a property of
 * the entity (non-enumerable, under a symbol), not a WeakMap entry keyed by it. V8 treats WeakMap entries as
 * ephemerons and clears them in full collections, so a process that decodes and re-sends large batches with the
 * forms in a WeakMap runs into repeated mark-compacts; with them on the entity it does not.
 */
const form = Symbol('cheetah.encodedForm');
type WithForm = CheetahEntity & { [form]?: Uint8Array };

/** From now on, instances of `cls` decoded in this process keep their encoded form. */
export function keepEncodedForms(cls: abstract new (...args: never) => CheetahEntity): void {
  kept.add(cls);
}

/** The MessagePack extension header of a payload of `length` bytes of extension `type` (ext 8, 16 or 32). */
export function extensionHeader(length: number, type: number): Uint8Array {
  if (length < 0x100) return Uint8Array.of(0xc7, length, type);
  if (length < 0x10000) return Uint8Array.of(0xc8, length >>> 8, length & 0xff, type);
  return Uint8Array.of(0xc9, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff, type);
}

/**
 * Called by the extension with a decoded entity and the payload it came from (a view into the input). The payload is
 * copied (it is a view into a receive buffer that is reused) together with its extension header, in one exact-size
 * buffer: the entity's whole encoding, which a process that keeps the entity (the distributor's session replication)
 * can hold as it is, with no encoding and no second copy.
 */
export function rememberEncodedForm(entity: CheetahEntity, payload: Uint8Array, type: number): void {
  if (kept.size === 0 || !kept.has(entity.constructor as abstract new (...args: never) => CheetahEntity)) return;
  const header = extensionHeader(payload.length, type);
  const whole = new Uint8Array(header.length + payload.length);
  whole.set(header, 0);
  whole.set(payload, header.length);
  Object.defineProperty(entity, form, { value: whole, enumerable: false, writable: false, configurable: false });
}

/**
 * Encodes `entity` now and keeps the bytes with it, so that encoding it again later (in a call's arguments) copies
 * them instead of walking its fields: a content client builds a batch and then waits for a free item processor, and
 * so encodes it while it waits, not after. Don't change the entity afterwards (as with kept forms).
 */
export function encodeAhead(entity: CheetahEntity, encode: (e: CheetahEntity) => Uint8Array): void {
  // kept already (decoded with its form, or encoded ahead before): those are its bytes
  if ((entity as WithForm)[form]) return;
  // a copy of exactly its size: the encoder's result is a view into a larger buffer it shares between values
  const whole = new Uint8Array(encode(entity));
  Object.defineProperty(entity, form, { value: whole, enumerable: false, writable: false, configurable: false });
}

/** The payload `entity` was decoded from (kept forms) or encoded ahead to (a view: don't change it). */
export function encodedFormOf(entity: CheetahEntity): Uint8Array | undefined {
  const whole = (entity as WithForm)[form];
  return whole?.subarray(headerLength(whole));
}

/**
 * The entity's whole encoding (what encodeCheetah(entity) returns) if its class keeps encoded forms: the kept bytes
 * themselves, not a copy; don't change them.
 */
export function encodedEntityOf(entity: CheetahEntity): Uint8Array | undefined {
  return (entity as WithForm)[form];
}

function headerLength(whole: Uint8Array): number {
  return whole[0] === 0xc7 ? 3 : whole[0] === 0xc8 ? 4 : 6;
}
