/**
 * Test support (not exported from the lib): hand-crafted Cheetah extension bytes. `extBytes([typeId, checksum,
 * ...fields])` wraps a plain MessagePack array (nested entities as nested arrays) in the extension header;
 * `wireOf(entity)` turns an encoded entity back into such an array, to be edited and re-wrapped.
 */
import { pack, unpack } from 'msgpackr';
import { CHEETAH_EXT_TYPE, encodeCheetah } from './extension';
import type { CheetahEntity } from './entity';

export const DM = 211918678;
export const CORE = -1479218033;

/** The extension payload of an encoded top-level entity. */
export function payloadOf(bytes: Uint8Array): Uint8Array {
  const header = bytes[0] === 0xc7 ? 3 : bytes[0] === 0xc8 ? 4 : 6;
  if (bytes[header - 1] !== CHEETAH_EXT_TYPE) throw new Error('not a Cheetah extension');
  return bytes.subarray(header);
}

/** Wraps raw payload bytes in an ext 32 header of the Cheetah type. */
export function extOf(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(6 + payload.length);
  out[0] = 0xc9;
  new DataView(out.buffer).setUint32(1, payload.length);
  out[5] = CHEETAH_EXT_TYPE;
  out.set(payload, 6);
  return out;
}

/** A Cheetah extension whose payload is `wire` packed as plain MessagePack. */
export function extBytes(wire: readonly unknown[]): Uint8Array {
  return extOf(pack(wire));
}

/** The wire array of an entity (nested entities as nested arrays, int64 as bigint). */
export function wireOf(entity: CheetahEntity): unknown[] {
  return unpack(payloadOf(encodeCheetah(entity))) as unknown[];
}
