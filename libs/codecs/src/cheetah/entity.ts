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

export abstract class CheetahEntity {
  declare static readonly cheetah: CheetahDescriptor;

  /**
   * Internal to the codec: writes the fields, in `cheetah.fields` order, with the wire writer (the header is
   * written by the caller).
   */
  abstract encodeCheetahFields(): void;
}

/** The static side of an entity class: its descriptor and its decoder. */
export interface CheetahEntityClass<T extends CheetahEntity = CheetahEntity> {
  readonly cheetah: CheetahDescriptor;
  readonly prototype: T;
  /**
   * Internal to the codec: reads the fields (their number already checked) with the wire reader and builds the
   * instance, checking types and MUSTs like the constructor does.
   */
  decodeCheetahFields(): T;
}

/** An entity class used as the expected type of an attribute or a collection (may be a parent type). */
export type CheetahTypeRef<T> = (abstract new (...args: never) => T) & { readonly cheetah: CheetahDescriptor };

/** What an error names as the entity: an instance being built, or the class being decoded. */
export type CheetahOwner = CheetahEntity | { readonly cheetah: CheetahDescriptor };

/** T with its readonly fields writable: what a decoder constructor assigns to. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

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

/** The descriptor of an instance's most derived class. */
export function cheetahDescriptorOf(entity: CheetahEntity): CheetahDescriptor {
  return (entity.constructor as unknown as { readonly cheetah: CheetahDescriptor }).cheetah;
}

/** The spec name of an owner: the class's, or the instance's most derived class's. */
export function cheetahOwnerName(owner: CheetahOwner): string {
  return owner instanceof CheetahEntity ? cheetahDescriptorOf(owner).name : owner.cheetah.name;
}

/**
 * A decoder constructor for `type`: a plain function whose `prototype` is the class's prototype, so that its
 * instances are instances of `type` (and of its parents) but are built by one flat function instead of the
 * class's constructor chain (which costs more than the checks themselves). The decoder reads and checks the
 * values; `init` (or the decoder, on the fresh instance) assigns exactly the fields the class constructor does, in
 * the same order.
 */
export function wireConstructor<T extends CheetahEntity, A extends unknown[]>(
  type: abstract new (...args: never) => T,
  init: (this: Writable<T>, ...args: A) => void,
): new (...args: A) => T {
  (init as unknown as { prototype: T }).prototype = type.prototype;
  return init as unknown as new (...args: A) => T;
}

export function isCheetahEntity(v: unknown): v is CheetahEntity {
  return v instanceof CheetahEntity;
}
