/**
 * `cht::documentmessages::key_value_pair` (MS-FSDPD 2.2.28) and its subtypes 2.2.14, 2.2.16-2.2.27: the attributes
 * of an item. A collection of key_value_pair (document.document_attributes, key_value_collection.values) holds any
 * of them.
 */
import { type CheetahOwner, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import {
  checkBool,
  checkBools,
  checkBytes,
  checkBytesList,
  checkEntities,
  checkFloat,
  checkFloats,
  checkInt,
  checkInts,
  checkLong,
  checkLongs,
  checkString,
  checkStrings,
  fieldTypeError,
} from './field-checks';
import {
  EMPTY_COLLECTION,
  readBool,
  readBools,
  readBytes,
  readBytesList,
  readEntity,
  readEntityCollectionHeader,
  readFloat,
  readFloats,
  readInt,
  readInts,
  readLong,
  readLongs,
  readString,
  readStrings,
} from './wire-reader';
import {
  writeBool,
  writeBools,
  writeBytes,
  writeBytesList,
  writeEntities,
  writeFloat,
  writeFloats,
  writeInteger,
  writeIntegers,
  writeString,
  writeStrings,
} from './wire-writer';

export interface KeyValuePairFields {
  readonly key: string;
}

/** 2.2.28 `cht::documentmessages::key_value_pair` (type id 0): a key; the parent of every attribute type. */
export class KeyValuePair extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'key_value_pair', 0, ['key']);
  declare readonly key: string;

  constructor(fields: KeyValuePairFields) {
    super();
    this.key = checkString(this, 'key', fields.key);
  }

  static decodeCheetahFields(): KeyValuePair {
    return new KeyValuePairWire(readString(KeyValuePair, 'key'));
  }

  encodeCheetahFields(): void {
    writeString(this.key);
  }
}

const KeyValuePairWire = wireConstructor(KeyValuePair, function (key: string) {
  this.key = key;
});

/** Reads a collection of key_value_pair (any subtype) from the wire. */
export function readKeyValuePairs(owner: CheetahOwner, field: string): readonly KeyValuePair[] {
  const n = readEntityCollectionHeader(owner, field);
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<KeyValuePair>(n);
  for (let i = 0; i < n; i++) {
    const e = readEntity(owner, field, i);
    if (!(e instanceof KeyValuePair)) throw fieldTypeError(owner, field, `a ${KeyValuePair.cheetah.name}`, e, i);
    out[i] = e;
  }
  return out;
}

function kvpDescriptor(name: string, typeId: number, field: 'value' | 'values') {
  return cheetahDescriptor('documentmessages', name, typeId, [...KeyValuePair.cheetah.fields, field]);
}

export interface KeyValueCollectionFields extends KeyValuePairFields {
  /** key_value_pair entities or any of their subtypes, nested collections included. */
  readonly values: readonly KeyValuePair[];
}

/** 2.2.14 `cht::documentmessages::key_value_collection` (type id 1): a key and a collection of key_value_pair. */
export class KeyValueCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('key_value_collection', 1, 'values');
  declare readonly values: readonly KeyValuePair[];

  constructor(fields: KeyValueCollectionFields) {
    super(fields);
    this.values = checkEntities(this, 'values', fields.values, KeyValuePair);
  }

  static override decodeCheetahFields(): KeyValueCollection {
    return new KeyValueCollectionWire(
      readString(KeyValueCollection, 'key'),
      readKeyValuePairs(KeyValueCollection, 'values'),
    );
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeEntities(this.values);
  }
}

const KeyValueCollectionWire = wireConstructor(
  KeyValueCollection,
  function (key: string, values: readonly KeyValuePair[]) {
    this.key = key;
    this.values = values;
  },
);

export interface StringAttributeFields extends KeyValuePairFields {
  readonly value: string;
}

/** 2.2.16 `cht::documentmessages::string_attribute` (type id 26): a key and a string. */
export class StringAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('string_attribute', 26, 'value');
  declare readonly value: string;

  constructor(fields: StringAttributeFields) {
    super(fields);
    this.value = checkString(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): StringAttribute {
    return new StringAttributeWire(readString(StringAttribute, 'key'), readString(StringAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeString(this.value);
  }
}

const StringAttributeWire = wireConstructor(StringAttribute, function (key: string, value: string) {
  this.key = key;
  this.value = value;
});

export interface BoolAttributeFields extends KeyValuePairFields {
  readonly value: boolean;
}

/** 2.2.17 `cht::documentmessages::bool_attribute` (type id 2): a key and a bool. */
export class BoolAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('bool_attribute', 2, 'value');
  declare readonly value: boolean;

  constructor(fields: BoolAttributeFields) {
    super(fields);
    this.value = checkBool(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): BoolAttribute {
    return new BoolAttributeWire(readString(BoolAttribute, 'key'), readBool(BoolAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeBool(this.value);
  }
}

const BoolAttributeWire = wireConstructor(BoolAttribute, function (key: string, value: boolean) {
  this.key = key;
  this.value = value;
});

export interface FloatAttributeFields extends KeyValuePairFields {
  readonly value: number;
}

/** 2.2.18 `cht::documentmessages::float_attribute` (type id 19): a key and a float. */
export class FloatAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('float_attribute', 19, 'value');
  declare readonly value: number;

  constructor(fields: FloatAttributeFields) {
    super(fields);
    this.value = checkFloat(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): FloatAttribute {
    return new FloatAttributeWire(readString(FloatAttribute, 'key'), readFloat(FloatAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeFloat(this.value);
  }
}

const FloatAttributeWire = wireConstructor(FloatAttribute, function (key: string, value: number) {
  this.key = key;
  this.value = value;
});

export interface IntegerAttributeFields extends KeyValuePairFields {
  readonly value: number;
}

/** 2.2.19 `cht::documentmessages::integer_attribute` (type id 28): a key and an int (32-bit). */
export class IntegerAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('integer_attribute', 28, 'value');
  declare readonly value: number;

  constructor(fields: IntegerAttributeFields) {
    super(fields);
    this.value = checkInt(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): IntegerAttribute {
    return new IntegerAttributeWire(readString(IntegerAttribute, 'key'), readInt(IntegerAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeInteger(this.value);
  }
}

const IntegerAttributeWire = wireConstructor(IntegerAttribute, function (key: string, value: number) {
  this.key = key;
  this.value = value;
});

export interface LongAttributeFields extends KeyValuePairFields {
  readonly value: number;
}

/** 2.2.20 `cht::documentmessages::long_attribute` (type id 34): a key and a longint (safe integer). */
export class LongAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('long_attribute', 34, 'value');
  declare readonly value: number;

  constructor(fields: LongAttributeFields) {
    super(fields);
    this.value = checkLong(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): LongAttribute {
    return new LongAttributeWire(readString(LongAttribute, 'key'), readLong(LongAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeInteger(this.value);
  }
}

const LongAttributeWire = wireConstructor(LongAttribute, function (key: string, value: number) {
  this.key = key;
  this.value = value;
});

export interface BytearrayAttributeFields extends KeyValuePairFields {
  readonly value: Uint8Array;
}

/** 2.2.21 `cht::documentmessages::bytearray_attribute` (type id 4): a key and a byte array. */
export class BytearrayAttribute extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('bytearray_attribute', 4, 'value');
  declare readonly value: Uint8Array;

  constructor(fields: BytearrayAttributeFields) {
    super(fields);
    this.value = checkBytes(this, 'value', fields.value);
  }

  static override decodeCheetahFields(): BytearrayAttribute {
    return new BytearrayAttributeWire(readString(BytearrayAttribute, 'key'), readBytes(BytearrayAttribute, 'value'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeBytes(this.value);
  }
}

const BytearrayAttributeWire = wireConstructor(BytearrayAttribute, function (key: string, value: Uint8Array) {
  this.key = key;
  this.value = value;
});

export interface StringCollectionFields extends KeyValuePairFields {
  readonly values: readonly string[];
}

/** 2.2.22 `cht::documentmessages::string_collection` (type id 49): a key and a collection of strings. */
export class StringCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('string_collection', 49, 'values');
  declare readonly values: readonly string[];

  constructor(fields: StringCollectionFields) {
    super(fields);
    this.values = checkStrings(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): StringCollection {
    return new StringCollectionWire(readString(StringCollection, 'key'), readStrings(StringCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeStrings(this.values);
  }
}

const StringCollectionWire = wireConstructor(StringCollection, function (key: string, values: readonly string[]) {
  this.key = key;
  this.values = values;
});

export interface BoolCollectionFields extends KeyValuePairFields {
  readonly values: readonly boolean[];
}

/** 2.2.23 `cht::documentmessages::bool_collection` (type id 3): a key and a collection of bools. */
export class BoolCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('bool_collection', 3, 'values');
  declare readonly values: readonly boolean[];

  constructor(fields: BoolCollectionFields) {
    super(fields);
    this.values = checkBools(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): BoolCollection {
    return new BoolCollectionWire(readString(BoolCollection, 'key'), readBools(BoolCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeBools(this.values);
  }
}

const BoolCollectionWire = wireConstructor(BoolCollection, function (key: string, values: readonly boolean[]) {
  this.key = key;
  this.values = values;
});

export interface FloatCollectionFields extends KeyValuePairFields {
  readonly values: readonly number[];
}

/** 2.2.24 `cht::documentmessages::float_collection` (type id 20): a key and a collection of floats. */
export class FloatCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('float_collection', 20, 'values');
  declare readonly values: readonly number[];

  constructor(fields: FloatCollectionFields) {
    super(fields);
    this.values = checkFloats(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): FloatCollection {
    return new FloatCollectionWire(readString(FloatCollection, 'key'), readFloats(FloatCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeFloats(this.values);
  }
}

const FloatCollectionWire = wireConstructor(FloatCollection, function (key: string, values: readonly number[]) {
  this.key = key;
  this.values = values;
});

export interface IntegerCollectionFields extends KeyValuePairFields {
  readonly values: readonly number[];
}

/** 2.2.25 `cht::documentmessages::integer_collection` (type id 30): a key and a collection of ints (32-bit). */
export class IntegerCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('integer_collection', 30, 'values');
  declare readonly values: readonly number[];

  constructor(fields: IntegerCollectionFields) {
    super(fields);
    this.values = checkInts(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): IntegerCollection {
    return new IntegerCollectionWire(readString(IntegerCollection, 'key'), readInts(IntegerCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeIntegers(this.values);
  }
}

const IntegerCollectionWire = wireConstructor(IntegerCollection, function (key: string, values: readonly number[]) {
  this.key = key;
  this.values = values;
});

export interface LongCollectionFields extends KeyValuePairFields {
  readonly values: readonly number[];
}

/** 2.2.26 `cht::documentmessages::long_collection` (type id 35): a key and a collection of longints. */
export class LongCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('long_collection', 35, 'values');
  declare readonly values: readonly number[];

  constructor(fields: LongCollectionFields) {
    super(fields);
    this.values = checkLongs(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): LongCollection {
    return new LongCollectionWire(readString(LongCollection, 'key'), readLongs(LongCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeIntegers(this.values);
  }
}

const LongCollectionWire = wireConstructor(LongCollection, function (key: string, values: readonly number[]) {
  this.key = key;
  this.values = values;
});

export interface BytearrayCollectionFields extends KeyValuePairFields {
  readonly values: readonly Uint8Array[];
}

/** 2.2.27 `cht::documentmessages::bytearray_collection` (type id 5): a key and a collection of byte arrays. */
export class BytearrayCollection extends KeyValuePair {
  static override readonly cheetah = kvpDescriptor('bytearray_collection', 5, 'values');
  declare readonly values: readonly Uint8Array[];

  constructor(fields: BytearrayCollectionFields) {
    super(fields);
    this.values = checkBytesList(this, 'values', fields.values);
  }

  static override decodeCheetahFields(): BytearrayCollection {
    const key = readString(BytearrayCollection, 'key');
    return new BytearrayCollectionWire(key, readBytesList(BytearrayCollection, 'values'));
  }

  override encodeCheetahFields(): void {
    writeString(this.key);
    writeBytesList(this.values);
  }
}

const BytearrayCollectionWire = wireConstructor(
  BytearrayCollection,
  function (key: string, values: readonly Uint8Array[]) {
    this.key = key;
    this.values = values;
  },
);
