/**
 * The type id / checksum tables of MS-FSCDFT 2.2 and MS-FSDPD 2.2 as a lookup from (checksum, type id) to the
 * entity class. The two namespaces reuse type ids (3 and 7), so the checksum picks the table.
 */
import { CheetahChecksumError, CheetahUnknownTypeError } from './cheetah-errors';
import { DocumentEntity, DocumentId } from './documents';
import { FeedingPriority, Guarantee, GuaranteeSet } from './core-entities';
import {
  CHEETAH_CORE_CHECKSUM,
  CHEETAH_DOCUMENTMESSAGES_CHECKSUM,
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
