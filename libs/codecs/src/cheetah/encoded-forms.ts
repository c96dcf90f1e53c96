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
 */
import type { CheetahEntity } from './entity';

const kept = new Set<abstract new (...args: never) => CheetahEntity>();
const forms = new WeakMap<CheetahEntity, Uint8Array>();

/** From now on, instances of `cls` decoded in this process keep their encoded form. */
export function keepEncodedForms(cls: abstract new (...args: never) => CheetahEntity): void {
  kept.add(cls);
}

/** Called by the extension with a decoded entity and the payload it came from (a view into the input). */
export function rememberEncodedForm(entity: CheetahEntity, payload: Uint8Array): void {
  // a copy: the payload is a view into a receive buffer that is reused
  if (kept.size > 0 && kept.has(entity.constructor as abstract new (...args: never) => CheetahEntity)) forms.set(entity, payload.slice());
}

/** The payload `entity` was decoded from, if its class keeps encoded forms. */
export function encodedFormOf(entity: CheetahEntity): Uint8Array | undefined {
  return kept.size > 0 ? forms.get(entity) : undefined;
}
