/**
 * The type id / checksum tables of MS-FSCDFT 2.2 and MS-FSDPD 2.2 as a lookup from (checksum, type id) to the
 * entity class. The two namespaces reuse type ids (3 and 7), so the checksum picks the table.
 */
import {
  CheetahChecksumError,
  CheetahFieldError,
  CheetahMalformedError,
  CheetahUnknownTypeError,
} from './cheetah-errors';
import { DocumentEntity, DocumentId } from './documents';
import { FeedingPriority, Guarantee, GuaranteeSet } from './core-entities';
import {
  CHEETAH_CORE_CHECKSUM,
  CHEETAH_DOCUMENTMESSAGES_CHECKSUM,
  type CheetahEntity,
  type CheetahEntityClass,
  type CheetahWire,
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

function arityError(type: CheetahEntityClass, w: CheetahWire): never {
  const { name, fields } = type.cheetah;
  const present = w.length - 2;
  if (present < fields.length) {
    const detail = `missing field (${present} of ${fields.length} fields present)`;
    throw new CheetahFieldError(name, fields[present] ?? '?', 'missing', detail);
  }
  const detail = `${present - fields.length} field(s) more than the ${fields.length} of the entity`;
  throw new CheetahFieldError(name, `#${fields.length}`, 'extra', detail);
}

function unresolved(w: CheetahWire): never {
  const typeId = w[0];
  const checksum = w[1];
  if (!Number.isInteger(typeId) || !Number.isInteger(checksum)) {
    throw new CheetahMalformedError(
      `a Cheetah extension must start with an integer type id and checksum, got ${String(typeId)}, ${String(checksum)}`,
    );
  }
  return resolveCheetahClass(typeId as number, checksum as number) as never; // throws: the switch knows every class
}

/**
 * Builds the entity a decoded extension payload `[typeId, checksum, ...fields]` stands for, checking the number
 * of fields, their types and the spec's MUSTs. One `case` per class keeps each construction site monomorphic,
 * which is what makes decoding cheap; a test checks it against CHEETAH_ENTITY_CLASSES.
 */
export function decodeCheetahWire(w: CheetahWire): CheetahEntity {
  if (w[1] === CHEETAH_DOCUMENTMESSAGES_CHECKSUM) {
    switch (w[0]) {
      case 0:
        return w.length === 3 ? KeyValuePair.decodeCheetahFields(w) : arityError(KeyValuePair, w);
      case 1:
        return w.length === 4 ? KeyValueCollection.decodeCheetahFields(w) : arityError(KeyValueCollection, w);
      case 2:
        return w.length === 4 ? BoolAttribute.decodeCheetahFields(w) : arityError(BoolAttribute, w);
      case 3:
        return w.length === 4 ? BoolCollection.decodeCheetahFields(w) : arityError(BoolCollection, w);
      case 4:
        return w.length === 4 ? BytearrayAttribute.decodeCheetahFields(w) : arityError(BytearrayAttribute, w);
      case 5:
        return w.length === 4 ? BytearrayCollection.decodeCheetahFields(w) : arityError(BytearrayCollection, w);
      case 6:
        return w.length === 7 ? Warning.decodeCheetahFields(w) : arityError(Warning, w);
      case 7:
        return w.length === 4 ? Operation.decodeCheetahFields(w) : arityError(Operation, w);
      case 11:
        return w.length === 4 ? DocumentId.decodeCheetahFields(w) : arityError(DocumentId, w);
      case 12:
        return w.length === 4 ? DocumentEntity.decodeCheetahFields(w) : arityError(DocumentEntity, w);
      case 15:
        return w.length === 9 ? DocumentError.decodeCheetahFields(w) : arityError(DocumentError, w);
      case 18:
        return w.length === 9 ? FailedOperation.decodeCheetahFields(w) : arityError(FailedOperation, w);
      case 19:
        return w.length === 4 ? FloatAttribute.decodeCheetahFields(w) : arityError(FloatAttribute, w);
      case 20:
        return w.length === 4 ? FloatCollection.decodeCheetahFields(w) : arityError(FloatCollection, w);
      case 21:
        return w.length === 10 ? ProcessingError.decodeCheetahFields(w) : arityError(ProcessingError, w);
      case 22:
        return w.length === 10 ? FormatError.decodeCheetahFields(w) : arityError(FormatError, w);
      case 26:
        return w.length === 4 ? StringAttribute.decodeCheetahFields(w) : arityError(StringAttribute, w);
      case 28:
        return w.length === 4 ? IntegerAttribute.decodeCheetahFields(w) : arityError(IntegerAttribute, w);
      case 30:
        return w.length === 4 ? IntegerCollection.decodeCheetahFields(w) : arityError(IntegerCollection, w);
      case 34:
        return w.length === 4 ? LongAttribute.decodeCheetahFields(w) : arityError(LongAttribute, w);
      case 35:
        return w.length === 4 ? LongCollection.decodeCheetahFields(w) : arityError(LongCollection, w);
      case 36:
        return w.length === 10 ? OperationDropped.decodeCheetahFields(w) : arityError(OperationDropped, w);
      case 37:
        return w.length === 9 ? OperationLost.decodeCheetahFields(w) : arityError(OperationLost, w);
      case 38:
        return w.length === 4 ? OperationSet.decodeCheetahFields(w) : arityError(OperationSet, w);
      case 39:
        return w.length === 3 ? SubsystemIdSet.decodeCheetahFields(w) : arityError(SubsystemIdSet, w);
      case 40:
        return w.length === 8 ? OperationStatusInfo.decodeCheetahFields(w) : arityError(OperationStatusInfo, w);
      case 42:
        return w.length === 5 ? PartialUpdateOperation.decodeCheetahFields(w) : arityError(PartialUpdateOperation, w);
      case 45:
        return w.length === 5 ? RemoveOperation.decodeCheetahFields(w) : arityError(RemoveOperation, w);
      case 47:
        return w.length === 10 ? ServerUnavailable.decodeCheetahFields(w) : arityError(ServerUnavailable, w);
      case 49:
        return w.length === 4 ? StringCollection.decodeCheetahFields(w) : arityError(StringCollection, w);
      case 52:
        return w.length === 5 ? UpdateOperation.decodeCheetahFields(w) : arityError(UpdateOperation, w);
      case 53:
        return w.length === 5 ? UrlchangeOperation.decodeCheetahFields(w) : arityError(UrlchangeOperation, w);
      case 54:
        return w.length === 10 ? Utf8Error.decodeCheetahFields(w) : arityError(Utf8Error, w);
      case 55:
        return w.length === 10 ? XmlError.decodeCheetahFields(w) : arityError(XmlError, w);
    }
  } else if (w[1] === CHEETAH_CORE_CHECKSUM) {
    switch (w[0]) {
      case 3:
        return w.length === 2 ? Guarantee.decodeCheetahFields(w) : arityError(Guarantee, w);
      case 7:
        return w.length === 3 ? FeedingPriority.decodeCheetahFields(w) : arityError(FeedingPriority, w);
      case 9:
        return w.length === 3 ? GuaranteeSet.decodeCheetahFields(w) : arityError(GuaranteeSet, w);
    }
  }
  return unresolved(w);
}
