/**
 * Cheetah entities of MS-FSCDFT 2.2 (`cht::core`) and MS-FSDPD 2.2 (`cht::documentmessages`) as classes, and
 * their msgpackr encoding (one extension carrying type id and checksum).
 *
 *   import { OperationSet, UpdateOperation, DocumentEntity, DocumentId, StringAttribute,
 *            encodeCheetah, decodeCheetah } from '@esp/codecs';
 *   const batch = new OperationSet({ completed_op_id: 0, operations: [new UpdateOperation({ id: 1, doc:
 *     new DocumentEntity({ doc_id: new DocumentId({ id: 'doc-1' }),
 *       document_attributes: [new StringAttribute({ key: 'title', value: 'Hello' })] }) })] });
 *   const back = decodeCheetah(encodeCheetah({ batch })) as { batch: OperationSet };
 *
 * Fields keep the spec's snake_case names; constructors and the decoder check types and the spec's MUSTs and
 * throw CheetahFieldError / CheetahConstraintError. int is a 32-bit integer, longint a safe-integer number, float
 * a number (float64 on the wire), bytearray a Uint8Array; collections are readonly arrays (a constructor keeps the
 * array it is given; a decoded empty collection is one shared frozen array). Decode with decodeCheetah, which
 * turns every failure into a CodecError subclass; msgpackr's registry is process-wide, so any Packr/Unpackr reads
 * and writes entities once this module is loaded (extension type CHEETAH_EXT_TYPE, 0x43).
 */
export {
  CheetahChecksumError,
  CheetahConstraintError,
  CheetahEncodeError,
  CheetahFieldError,
  type CheetahFieldProblem,
  CheetahMalformedError,
  CheetahUnknownTypeError,
} from './cheetah-errors';
export {
  CHEETAH_CORE_CHECKSUM,
  CHEETAH_DOCUMENTMESSAGES_CHECKSUM,
  type CheetahDescriptor,
  CheetahEntity,
  type CheetahEntityClass,
  isCheetahEntity,
} from './entity';
export {
  Action,
  type ActionName,
  actionName,
  isAction,
  isOperationState,
  OperationState,
  type OperationStateName,
  operationStateName,
} from './enums';
export { type CheetahSubsystem } from './field-checks';
export {
  assertSessionGuarantees,
  FeedingPriority,
  type FeedingPriorityFields,
  Guarantee,
  type GuaranteeFields,
  GuaranteeSet,
  type GuaranteeSetFields,
} from './core-entities';
export {
  BoolAttribute,
  type BoolAttributeFields,
  BoolCollection,
  type BoolCollectionFields,
  BytearrayAttribute,
  type BytearrayAttributeFields,
  BytearrayCollection,
  type BytearrayCollectionFields,
  FloatAttribute,
  type FloatAttributeFields,
  FloatCollection,
  type FloatCollectionFields,
  IntegerAttribute,
  type IntegerAttributeFields,
  IntegerCollection,
  type IntegerCollectionFields,
  KeyValueCollection,
  type KeyValueCollectionFields,
  KeyValuePair,
  type KeyValuePairFields,
  LongAttribute,
  type LongAttributeFields,
  LongCollection,
  type LongCollectionFields,
  StringAttribute,
  type StringAttributeFields,
  StringCollection,
  type StringCollectionFields,
} from './key-value-pairs';
export { DocumentEntity, type DocumentEntityFields, DocumentId, type DocumentIdFields } from './documents';
export {
  DocumentError,
  type DocumentErrorFields,
  FormatError,
  OperationDropped,
  OperationLost,
  ProcessingError,
  type ProcessingErrorFields,
  ServerUnavailable,
  Utf8Error,
  Warning,
  type WarningFields,
  XmlError,
} from './warnings-and-errors';
export {
  FailedOperation,
  type FailedOperationFields,
  Operation,
  type OperationFields,
  OperationSet,
  type OperationSetFields,
  PartialUpdateOperation,
  type PartialUpdateOperationFields,
  RemoveOperation,
  type RemoveOperationFields,
  UpdateOperation,
  type UpdateOperationFields,
  UrlchangeOperation,
} from './operations';
export {
  OperationStatusInfo,
  type OperationStatusInfoFields,
  SubsystemIdSet,
  type SubsystemIdSetFields,
} from './operation-status';
export { CHEETAH_ENTITY_CLASSES, findCheetahClass, resolveCheetahClass } from './registry';
export { encodedEntityOf, keepEncodedForms } from './encoded-forms';
export {
  CHEETAH_EXT_TYPE,
  cheetahPackr,
  decodeCheetah,
  encodeCheetah,
  encodeCheetahAhead,
  registerCheetahExtension,
} from './extension';
