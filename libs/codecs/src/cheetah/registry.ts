/**
 * The type id / checksum tables of MS-FSCDFT 2.2 and MS-FSDPD 2.2 as a lookup from (checksum, type id) to the
 * entity class. The two namespaces reuse type ids (3 and 7), so the checksum picks the table.
 */
import { CheetahChecksumError, CheetahFieldError, CheetahUnknownTypeError } from './cheetah-errors';
import { DocumentEntity, DocumentId } from './documents';
import { FeedingPriority, Guarantee, GuaranteeSet } from './core-entities';
import {
  CHEETAH_CORE_CHECKSUM,
  CHEETAH_DOCUMENTMESSAGES_CHECKSUM,
  type CheetahEntity,
  type CheetahEntityClass,
} from './entity';
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
  KeyValuePair,
  LongAttribute,
  LongCollection,
  StringAttribute,
  StringCollection,
} from './key-value-pairs';
import { OperationStatusInfo, SubsystemIdSet } from './operation-status';
import { setEntityDispatcher } from './wire-reader';
import {
  FailedOperation,
  Operation,
  OperationSet,
  PartialUpdateOperation,
  RemoveOperation,
  UpdateOperation,
  UrlchangeOperation,
} from './operations';
import {
  DocumentError,
  FormatError,
  OperationDropped,
  OperationLost,
  ProcessingError,
  ServerUnavailable,
  Utf8Error,
  Warning,
  XmlError,
} from './warnings-and-errors';

/** Every Cheetah entity class, `cht::core` first, then `cht::documentmessages` in spec table order. */
export const CHEETAH_ENTITY_CLASSES: readonly CheetahEntityClass[] = Object.freeze([
  Guarantee,
  FeedingPriority,
  GuaranteeSet,
  KeyValuePair,
  KeyValueCollection,
  BoolAttribute,
  BoolCollection,
  BytearrayAttribute,
  BytearrayCollection,
  Warning,
  Operation,
  DocumentId,
  DocumentEntity,
  DocumentError,
  FailedOperation,
  FloatAttribute,
  FloatCollection,
  ProcessingError,
  FormatError,
  StringAttribute,
  IntegerAttribute,
  IntegerCollection,
  LongAttribute,
  LongCollection,
  OperationDropped,
  OperationLost,
  OperationSet,
  SubsystemIdSet,
  OperationStatusInfo,
  PartialUpdateOperation,
  RemoveOperation,
  ServerUnavailable,
  StringCollection,
  UpdateOperation,
  UrlchangeOperation,
  Utf8Error,
  XmlError,
]);

const coreById: (CheetahEntityClass | undefined)[] = [];
const documentMessagesById: (CheetahEntityClass | undefined)[] = [];
for (const type of CHEETAH_ENTITY_CLASSES) {
  // the wire writer puts the array header and the type id in one byte each
  if (type.cheetah.fields.length > 13 || type.cheetah.typeId >= 0x80) throw new Error(`${type.cheetah.name}: layout`);
  const table = type.cheetah.checksum === CHEETAH_CORE_CHECKSUM ? coreById : documentMessagesById;
  if (table[type.cheetah.typeId] !== undefined) throw new Error(`duplicate Cheetah type id ${type.cheetah.typeId}`);
  table[type.cheetah.typeId] = type;
}

/** The class for a (type id, checksum) pair, or undefined. */
export function findCheetahClass(typeId: number, checksum: number): CheetahEntityClass | undefined {
  if (checksum === CHEETAH_DOCUMENTMESSAGES_CHECKSUM) return documentMessagesById[typeId];
  if (checksum === CHEETAH_CORE_CHECKSUM) return coreById[typeId];
  return undefined;
}

/** The class for a (type id, checksum) pair; throws CheetahUnknownTypeError or CheetahChecksumError. */
export function resolveCheetahClass(typeId: number, checksum: number): CheetahEntityClass {
  const found = findCheetahClass(typeId, checksum);
  if (found !== undefined) return found;
  const candidates = [documentMessagesById[typeId], coreById[typeId]].filter(
    (c): c is CheetahEntityClass => c !== undefined,
  );
  if (candidates.length === 0) throw new CheetahUnknownTypeError(typeId, checksum);
  throw new CheetahChecksumError(
    candidates.map((c) => c.cheetah.name).join(' or '),
    typeId,
    checksum,
    candidates.map((c) => c.cheetah.checksum),
  );
}

function arityError(type: CheetahEntityClass, present: number): never {
  const { name, fields } = type.cheetah;
  if (present < fields.length) {
    const detail = `missing field (${present} of ${fields.length} fields present)`;
    throw new CheetahFieldError(name, fields[present] ?? '?', 'missing', detail);
  }
  const detail = `${present - fields.length} field(s) more than the ${fields.length} of the entity`;
  throw new CheetahFieldError(name, `#${fields.length}`, 'extra', detail);
}

/**
 * Decodes the entity whose header `[typeId, checksum` the reader just consumed, `n` fields following. One `case`
 * per class keeps every decoder call site monomorphic; a test checks the field counts against the descriptors.
 */
export function decodeCheetahEntity(typeId: number, checksum: number, n: number): CheetahEntity {
  if (checksum === CHEETAH_DOCUMENTMESSAGES_CHECKSUM) {
    switch (typeId) {
      case 0:
        return n === 1 ? KeyValuePair.decodeCheetahFields() : arityError(KeyValuePair, n);
      case 1:
        return n === 2 ? KeyValueCollection.decodeCheetahFields() : arityError(KeyValueCollection, n);
      case 2:
        return n === 2 ? BoolAttribute.decodeCheetahFields() : arityError(BoolAttribute, n);
      case 3:
        return n === 2 ? BoolCollection.decodeCheetahFields() : arityError(BoolCollection, n);
      case 4:
        return n === 2 ? BytearrayAttribute.decodeCheetahFields() : arityError(BytearrayAttribute, n);
      case 5:
        return n === 2 ? BytearrayCollection.decodeCheetahFields() : arityError(BytearrayCollection, n);
      case 6:
        return n === 5 ? Warning.decodeCheetahFields() : arityError(Warning, n);
      case 7:
        return n === 2 ? Operation.decodeCheetahFields() : arityError(Operation, n);
      case 11:
        return n === 2 ? DocumentId.decodeCheetahFields() : arityError(DocumentId, n);
      case 12:
        return n === 2 ? DocumentEntity.decodeCheetahFields() : arityError(DocumentEntity, n);
      case 15:
        return n === 7 ? DocumentError.decodeCheetahFields() : arityError(DocumentError, n);
      case 18:
        return n === 7 ? FailedOperation.decodeCheetahFields() : arityError(FailedOperation, n);
      case 19:
        return n === 2 ? FloatAttribute.decodeCheetahFields() : arityError(FloatAttribute, n);
      case 20:
        return n === 2 ? FloatCollection.decodeCheetahFields() : arityError(FloatCollection, n);
      case 21:
        return n === 8 ? ProcessingError.decodeCheetahFields() : arityError(ProcessingError, n);
      case 22:
        return n === 8 ? FormatError.decodeCheetahFields() : arityError(FormatError, n);
      case 26:
        return n === 2 ? StringAttribute.decodeCheetahFields() : arityError(StringAttribute, n);
      case 28:
        return n === 2 ? IntegerAttribute.decodeCheetahFields() : arityError(IntegerAttribute, n);
      case 30:
        return n === 2 ? IntegerCollection.decodeCheetahFields() : arityError(IntegerCollection, n);
      case 34:
        return n === 2 ? LongAttribute.decodeCheetahFields() : arityError(LongAttribute, n);
      case 35:
        return n === 2 ? LongCollection.decodeCheetahFields() : arityError(LongCollection, n);
      case 36:
        return n === 8 ? OperationDropped.decodeCheetahFields() : arityError(OperationDropped, n);
      case 37:
        return n === 7 ? OperationLost.decodeCheetahFields() : arityError(OperationLost, n);
      case 38:
        return n === 2 ? OperationSet.decodeCheetahFields() : arityError(OperationSet, n);
      case 39:
        return n === 1 ? SubsystemIdSet.decodeCheetahFields() : arityError(SubsystemIdSet, n);
      case 40:
        return n === 6 ? OperationStatusInfo.decodeCheetahFields() : arityError(OperationStatusInfo, n);
      case 42:
        return n === 3 ? PartialUpdateOperation.decodeCheetahFields() : arityError(PartialUpdateOperation, n);
      case 45:
        return n === 3 ? RemoveOperation.decodeCheetahFields() : arityError(RemoveOperation, n);
      case 47:
        return n === 8 ? ServerUnavailable.decodeCheetahFields() : arityError(ServerUnavailable, n);
      case 49:
        return n === 2 ? StringCollection.decodeCheetahFields() : arityError(StringCollection, n);
      case 52:
        return n === 3 ? UpdateOperation.decodeCheetahFields() : arityError(UpdateOperation, n);
      case 53:
        return n === 3 ? UrlchangeOperation.decodeCheetahFields() : arityError(UrlchangeOperation, n);
      case 54:
        return n === 8 ? Utf8Error.decodeCheetahFields() : arityError(Utf8Error, n);
      case 55:
        return n === 8 ? XmlError.decodeCheetahFields() : arityError(XmlError, n);
    }
  } else if (checksum === CHEETAH_CORE_CHECKSUM) {
    switch (typeId) {
      case 3:
        return n === 0 ? Guarantee.decodeCheetahFields() : arityError(Guarantee, n);
      case 7:
        return n === 1 ? FeedingPriority.decodeCheetahFields() : arityError(FeedingPriority, n);
      case 9:
        return n === 1 ? GuaranteeSet.decodeCheetahFields() : arityError(GuaranteeSet, n);
    }
  }
  return resolveCheetahClass(typeId, checksum) as never; // throws: every known pair has its case above
}

setEntityDispatcher(decodeCheetahEntity);
