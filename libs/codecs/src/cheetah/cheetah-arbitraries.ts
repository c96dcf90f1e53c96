/**
 * Test support (not exported from the lib): fast-check arbitraries for every Cheetah entity, with arbitrary valid
 * fields, subtypes in parent-typed attributes and collections, and nested key_value_collections.
 */
import fc from 'fast-check';
import { FeedingPriority, Guarantee, GuaranteeSet } from './core-entities';
import { DocumentEntity, DocumentId } from './documents';
import type { CheetahEntity, CheetahEntityClass } from './entity';
import { type Action, type OperationState } from './enums';
import type { CheetahSubsystem } from './field-checks';
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
  type DocumentErrorFields,
  FormatError,
  OperationDropped,
  OperationLost,
  ProcessingError,
  ServerUnavailable,
  Utf8Error,
  Warning,
  XmlError,
} from './warnings-and-errors';

const SMALL = { maxLength: 4 };

export const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
export const long = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  int32,
  fc.constantFrom(0, -1, 2 ** 32, -(2 ** 32), 2 ** 31, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
);
export const nonNegativeLong = fc.oneof(
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER),
);
/** Any double, NaN, infinities and -0 included: floats travel as float64. */
export const float = fc.double();
/** Well-formed strings (a lone surrogate cannot survive UTF-8), short and long, ASCII and not. */
export const text = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'grapheme', minLength: 17, maxLength: 400 }),
  fc.constantFrom('', 'title', 'language', 'en', 'http://example.com/a/b/c/d/e/f.html', 'é', '日本語'),
);
export const bytes = fc.uint8Array({ maxLength: 300 });
export const subsystem: fc.Arbitrary<CheetahSubsystem> = fc.constantFrom('indexing', 'processing');
export const action = fc.integer({ min: 0, max: 3 }) as fc.Arbitrary<Action>;
export const operationState = fc.integer({ min: 0, max: 4 }) as fc.Arbitrary<OperationState>;

// ---- core

export const guarantee = fc.constant(null).map(() => new Guarantee());
export const feedingPriority = fc.constantFrom({}, { priority: 0 }).map((f) => new FeedingPriority(f));
export const guaranteeSet = fc
  .array(fc.oneof(guarantee, feedingPriority), SMALL)
  .map((guarantees) => new GuaranteeSet({ guarantees }));

// ---- key_value_pair and subtypes

const attributes = {
  string: fc.record({ key: text, value: text }).map((f) => new StringAttribute(f)),
  bool: fc.record({ key: text, value: fc.boolean() }).map((f) => new BoolAttribute(f)),
  float: fc.record({ key: text, value: float }).map((f) => new FloatAttribute(f)),
  integer: fc.record({ key: text, value: int32 }).map((f) => new IntegerAttribute(f)),
  long: fc.record({ key: text, value: long }).map((f) => new LongAttribute(f)),
  bytearray: fc.record({ key: text, value: bytes }).map((f) => new BytearrayAttribute(f)),
  strings: fc.record({ key: text, values: fc.array(text, SMALL) }).map((f) => new StringCollection(f)),
  bools: fc.record({ key: text, values: fc.array(fc.boolean(), SMALL) }).map((f) => new BoolCollection(f)),
  floats: fc.record({ key: text, values: fc.array(float, SMALL) }).map((f) => new FloatCollection(f)),
  integers: fc.record({ key: text, values: fc.array(int32, SMALL) }).map((f) => new IntegerCollection(f)),
  longs: fc.record({ key: text, values: fc.array(long, SMALL) }).map((f) => new LongCollection(f)),
  bytearrays: fc.record({ key: text, values: fc.array(bytes, SMALL) }).map((f) => new BytearrayCollection(f)),
  plain: fc.record({ key: text }).map((f) => new KeyValuePair(f)),
};

/** Any key_value_pair subtype, key_value_collections nested up to a few levels. */
type KeyValueTie = { kvp: KeyValuePair; collection: KeyValueCollection };

export const keyValuePair: fc.Arbitrary<KeyValuePair> = fc.letrec<KeyValueTie>(
  (tie) => ({
    kvp: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      ...Object.values(attributes),
      tie('collection'),
    ) as fc.Arbitrary<KeyValuePair>,
    collection: fc
      .record({ key: text, values: fc.array(tie('kvp'), SMALL) })
      .map((f) => new KeyValueCollection(f)),
  }),
).kvp;

export const keyValueCollection = fc
  .record({ key: text, values: fc.array(keyValuePair, SMALL) })
  .map((f) => new KeyValueCollection(f));

// ---- documents

export const documentId = fc
  .record({ id: text, routing_attributes: fc.constantFrom(undefined, []) }, { requiredKeys: ['id'] })
  .map((f) => new DocumentId(f));
export const documentEntity = fc
  .record({ doc_id: documentId, document_attributes: fc.array(keyValuePair, { maxLength: 8 }) })
  .map((f) => new DocumentEntity(f));

// ---- warnings and errors

export const warning = fc
  .record({ warning_code: int32, description: text, subsystem, session_id: int32, operation_id: long })
  .map((f) => new Warning(f));

const errorFields: fc.Arbitrary<DocumentErrorFields> = fc.record(
  {
    error_code: int32,
    suggested_action: action,
    description: text,
    subsystem,
    session_id: int32,
    operation_id: long,
    arguments: fc.constant([]),
  },
  { requiredKeys: ['error_code', 'suggested_action', 'description', 'subsystem', 'session_id', 'operation_id'] },
);
const processingErrorFields = fc.tuple(errorFields, text).map(([f, processor]) => ({ ...f, processor }));

export const errors = {
  error: errorFields.map((f) => new DocumentError(f)),
  processingError: processingErrorFields.map((f) => new ProcessingError(f)),
  formatError: processingErrorFields.map((f) => new FormatError(f)),
  xmlError: processingErrorFields.map((f) => new XmlError(f)),
  utf8Error: processingErrorFields.map((f) => new Utf8Error(f)),
  serverUnavailable: processingErrorFields.map((f) => new ServerUnavailable(f)),
  operationDropped: processingErrorFields.map((f) => new OperationDropped(f)),
  operationLost: errorFields.map((f) => new OperationLost(f)),
};
export const anyError: fc.Arbitrary<DocumentError> = fc.oneof(...Object.values(errors));

// ---- operations

const operationFields = fc.record(
  { id: nonNegativeLong, warnings: fc.array(warning, SMALL) },
  { requiredKeys: ['id'] },
);

export const operations = {
  operation: operationFields.map((f) => new Operation(f)),
  update: fc.tuple(operationFields, documentEntity).map(([f, doc]) => new UpdateOperation({ ...f, doc })),
  remove: fc.tuple(operationFields, documentId).map(([f, doc_id]) => new RemoveOperation({ ...f, doc_id })),
  partialUpdate: fc
    .tuple(operationFields, documentEntity)
    .map(([f, doc]) => new PartialUpdateOperation({ ...f, doc })),
  urlchange: fc.tuple(operationFields, documentEntity).map(([f, doc]) => new UrlchangeOperation({ ...f, doc })),
  failed: fc
    .tuple(
      operationFields,
      fc.record(
        {
          subsystem: fc.constant('processing' as const),
          state: operationState,
          operation_type: fc.constant('failed_operation' as const),
          doc_id: documentId,
          err: anyError,
        },
        { requiredKeys: ['state', 'doc_id', 'err'] },
      ),
    )
    .map(([f, g]) => new FailedOperation({ ...f, ...g })),
};
export const anyOperation: fc.Arbitrary<Operation> = fc.oneof(...Object.values(operations));

export const operationSet = fc
  .record({ completed_op_id: long, operations: fc.array(anyOperation, { maxLength: 6 }) })
  .map((f) => new OperationSet(f));

// ---- status

export const subsystemIdSet = fc.constantFrom([], ['indexing']).map((ids) => new SubsystemIdSet({ ids }));
export const operationStatusInfo = fc
  .record({
    range: fc.tuple(nonNegativeLong, nonNegativeLong).map(([a, b]) => (a <= b ? [a, b] : [b, a])),
    state: operationState,
    subsystem,
    errors: fc.array(anyError, SMALL),
    warnings: fc.array(warning, SMALL),
  })
  .map(
    ({ range, ...f }) => new OperationStatusInfo({ ...f, first_op_id: range[0] ?? 0, last_op_id: range[1] ?? 0 }),
  );

/** One arbitrary per entity class, keyed by class. */
export const ENTITY_ARBITRARIES = new Map<CheetahEntityClass, fc.Arbitrary<CheetahEntity>>([
  [Guarantee, guarantee],
  [FeedingPriority, feedingPriority],
  [GuaranteeSet, guaranteeSet],
  [KeyValuePair, attributes.plain],
  [KeyValueCollection, keyValueCollection],
  [StringAttribute, attributes.string],
  [BoolAttribute, attributes.bool],
  [FloatAttribute, attributes.float],
  [IntegerAttribute, attributes.integer],
  [LongAttribute, attributes.long],
  [BytearrayAttribute, attributes.bytearray],
  [StringCollection, attributes.strings],
  [BoolCollection, attributes.bools],
  [FloatCollection, attributes.floats],
  [IntegerCollection, attributes.integers],
  [LongCollection, attributes.longs],
  [BytearrayCollection, attributes.bytearrays],
  [DocumentId, documentId],
  [DocumentEntity, documentEntity],
  [Warning, warning],
  [DocumentError, errors.error],
  [ProcessingError, errors.processingError],
  [FormatError, errors.formatError],
  [XmlError, errors.xmlError],
  [Utf8Error, errors.utf8Error],
  [ServerUnavailable, errors.serverUnavailable],
  [OperationDropped, errors.operationDropped],
  [OperationLost, errors.operationLost],
  [Operation, operations.operation],
  [UpdateOperation, operations.update],
  [RemoveOperation, operations.remove],
  [PartialUpdateOperation, operations.partialUpdate],
  [UrlchangeOperation, operations.urlchange],
  [FailedOperation, operations.failed],
  [OperationSet, operationSet],
  [SubsystemIdSet, subsystemIdSet],
  [OperationStatusInfo, operationStatusInfo],
]);

export const anyEntity: fc.Arbitrary<CheetahEntity> = fc.oneof(...ENTITY_ARBITRARIES.values());
