/**
 * The root of every Cheetah entity class. A class carries its spec identity in a static `cheetah` descriptor; its
 * instances carry the spec's fields under the spec's (snake_case) names, inherited fields first.
 */

/** Checksum of every `cht::core` entity (MS-FSCDFT 2.2). */
export const CHEETAH_CORE_CHECKSUM = -1479218033;
/** Checksum of every `cht::documentmessages` entity (MS-FSDPD 2.2). */
export const CHEETAH_DOCUMENTMESSAGES_CHECKSUM = 211918678;

export interface CheetahDescriptor {
  /** Spec name, e.g. `cht::documentmessages::operation_set`. */
  readonly name: string;
  /** Cheetah type identifier from the spec table. */
  readonly typeId: number;
  /** Cheetah checksum from the spec table. */
  readonly checksum: number;
  /** Field names in wire order: the parent's first, then the entity's own. */
  readonly fields: readonly string[];
}

/** What an entity writes its fields with: msgpackr's own `pack`, one call per field, in `fields` order. */
export type CheetahFieldWriter = (value: unknown) => void;

/** A decoded Cheetah extension payload: `[typeId, checksum, ...fields]`. */
export type CheetahWire = readonly unknown[];

export abstract class CheetahEntity {
  declare static readonly cheetah: CheetahDescriptor;

  /**
   * Writes the fields in wire order (the extension writes the header). Internal to the codec: entity classes
   * override it, calling `super` first.
   */
  abstract encodeCheetahFields(write: CheetahFieldWriter): void;
}

/** The static side of an entity class: its descriptor and the decoder from a wire array. */
export interface CheetahEntityClass<T extends CheetahEntity = CheetahEntity> {
  readonly cheetah: CheetahDescriptor;
  readonly prototype: T;
  /** Builds (and validates) an instance from a wire array whose length was already checked. */
  decodeCheetahFields(wire: CheetahWire): T;
}

/** An entity class used as the expected type of an attribute or a collection (may be a parent type). */
export type CheetahTypeRef<T> = (abstract new (...args: never) => T) & { readonly cheetah: CheetahDescriptor };

export function cheetahDescriptor(
  namespace: 'core' | 'documentmessages',
  name: string,
  typeId: number,
  fields: readonly string[],
): CheetahDescriptor {
  return Object.freeze({
    name: `cht::${namespace}::${name}`,
    typeId,
    checksum: namespace === 'core' ? CHEETAH_CORE_CHECKSUM : CHEETAH_DOCUMENTMESSAGES_CHECKSUM,
    fields: Object.freeze([...fields]),
  });
}

/** T with its readonly fields writable: what a decoder assigns to. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A decoder constructor for `type`: a plain function whose `prototype` is the class's prototype, so that its
 * instances are instances of `type` (and of its parents) but are built by one flat function instead of the
 * class's constructor chain (which costs more than the checks themselves). `init` reads the wire array and must
 * check and assign exactly what the class constructor does, in the same order.
 */
export function wireConstructor<T extends CheetahEntity>(
  type: abstract new (...args: never) => T,
  init: (this: Writable<T>, wire: CheetahWire) => void,
): new (wire: CheetahWire) => T {
  (init as unknown as { prototype: T }).prototype = type.prototype;
  return init as unknown as new (wire: CheetahWire) => T;
}

/** The spec name of the entity an instance is (its most derived class). */
export function cheetahNameOf(entity: CheetahEntity): string {
  return (entity.constructor as unknown as { readonly cheetah: CheetahDescriptor }).cheetah.name;
}

export function isCheetahEntity(v: unknown): v is CheetahEntity {
  return v instanceof CheetahEntity;
}
