import { describe, expect, it } from 'vitest';
import {
  Action,
  BoolAttribute,
  BoolCollection,
  BytearrayAttribute,
  BytearrayCollection,
  CHEETAH_ENTITY_CLASSES,
  CheetahEntity,
  CheetahFieldError,
  DocumentEntity,
  DocumentError,
  DocumentId,
  FailedOperation,
  FeedingPriority,
  FloatAttribute,
  FloatCollection,
  FormatError,
  Guarantee,
  GuaranteeSet,
  IntegerAttribute,
  IntegerCollection,
  KeyValueCollection,
  KeyValuePair,
  LongAttribute,
  LongCollection,
  Operation,
  OperationDropped,
  OperationLost,
  OperationSet,
  OperationState,
  OperationStatusInfo,
  PartialUpdateOperation,
  ProcessingError,
  RemoveOperation,
  ServerUnavailable,
  StringAttribute,
  StringCollection,
  SubsystemIdSet,
  UpdateOperation,
  UrlchangeOperation,
  Utf8Error,
  Warning,
  XmlError,
  actionName,
  findCheetahClass,
  isCheetahEntity,
  operationStateName,
} from '../index';
import { ENTITY_ARBITRARIES } from './cheetah-arbitraries';
import fc from 'fast-check';

/** The type id / checksum tables of MS-FSCDFT 2.2 and MS-FSDPD 2.2, copied from the specs. */
const SPEC_TABLE: readonly (readonly [string, number, number])[] = [
  ['cht::core::guarantee', 3, -1479218033],
  ['cht::core::feeding_priority', 7, -1479218033],
  ['cht::core::guarantee_set', 9, -1479218033],
  ['cht::documentmessages::key_value_pair', 0, 211918678],
  ['cht::documentmessages::key_value_collection', 1, 211918678],
  ['cht::documentmessages::bool_attribute', 2, 211918678],
  ['cht::documentmessages::bool_collection', 3, 211918678],
  ['cht::documentmessages::bytearray_attribute', 4, 211918678],
  ['cht::documentmessages::bytearray_collection', 5, 211918678],
  ['cht::documentmessages::warning', 6, 211918678],
  ['cht::documentmessages::operation', 7, 211918678],
  ['cht::documentmessages::document_id', 11, 211918678],
  ['cht::documentmessages::document', 12, 211918678],
  ['cht::documentmessages::error', 15, 211918678],
  ['cht::documentmessages::failed_operation', 18, 211918678],
  ['cht::documentmessages::float_attribute', 19, 211918678],
  ['cht::documentmessages::float_collection', 20, 211918678],
  ['cht::documentmessages::processing_error', 21, 211918678],
  ['cht::documentmessages::format_error', 22, 211918678],
  ['cht::documentmessages::string_attribute', 26, 211918678],
  ['cht::documentmessages::integer_attribute', 28, 211918678],
  ['cht::documentmessages::integer_collection', 30, 211918678],
  ['cht::documentmessages::long_attribute', 34, 211918678],
  ['cht::documentmessages::long_collection', 35, 211918678],
  ['cht::documentmessages::operation_dropped', 36, 211918678],
  ['cht::documentmessages::operation_lost', 37, 211918678],
  ['cht::documentmessages::operation_set', 38, 211918678],
  ['cht::documentmessages::subsystem_id_set', 39, 211918678],
  ['cht::documentmessages::operation_status_info', 40, 211918678],
  ['cht::documentmessages::partial_update_operation', 42, 211918678],
  ['cht::documentmessages::remove_operation', 45, 211918678],
  ['cht::documentmessages::server_unavailable', 47, 211918678],
  ['cht::documentmessages::string_collection', 49, 211918678],
  ['cht::documentmessages::update_operation', 52, 211918678],
  ['cht::documentmessages::urlchange_operation', 53, 211918678],
  ['cht::documentmessages::utf8_error', 54, 211918678],
  ['cht::documentmessages::xml_error', 55, 211918678],
];

/** Parent of each entity per the spec text (2.2.x "is a subclass/subtype of"). */
type EntityType = abstract new (...args: never) => CheetahEntity;

const SPEC_PARENTS: readonly (readonly [EntityType, EntityType])[] = [
  [FeedingPriority, Guarantee],
  [ProcessingError, DocumentError],
  [FormatError, ProcessingError],
  [XmlError, FormatError],
  [Utf8Error, FormatError],
  [ServerUnavailable, ProcessingError],
  [OperationDropped, ProcessingError],
  [OperationLost, DocumentError],
  [UpdateOperation, Operation],
  [RemoveOperation, Operation],
  [PartialUpdateOperation, Operation],
  [UrlchangeOperation, PartialUpdateOperation],
  [FailedOperation, Operation],
  [KeyValueCollection, KeyValuePair],
  [StringAttribute, KeyValuePair],
  [BoolAttribute, KeyValuePair],
  [FloatAttribute, KeyValuePair],
  [IntegerAttribute, KeyValuePair],
  [LongAttribute, KeyValuePair],
  [BytearrayAttribute, KeyValuePair],
  [StringCollection, KeyValuePair],
  [BoolCollection, KeyValuePair],
  [FloatCollection, KeyValuePair],
  [IntegerCollection, KeyValuePair],
  [LongCollection, KeyValuePair],
  [BytearrayCollection, KeyValuePair],
];

/** Field lists per the FSIDL of the specs, inherited first. */
const SPEC_FIELDS: Record<string, readonly string[]> = {
  'cht::core::guarantee': [],
  'cht::core::feeding_priority': ['priority'],
  'cht::core::guarantee_set': ['guarantees'],
  'cht::documentmessages::key_value_pair': ['key'],
  'cht::documentmessages::key_value_collection': ['key', 'values'],
  'cht::documentmessages::string_attribute': ['key', 'value'],
  'cht::documentmessages::string_collection': ['key', 'values'],
  'cht::documentmessages::warning': ['warning_code', 'description', 'subsystem', 'session_id', 'operation_id'],
  'cht::documentmessages::error': [
    'error_code',
    'suggested_action',
    'description',
    'subsystem',
    'session_id',
    'operation_id',
    'arguments',
  ],
  'cht::documentmessages::processing_error': [
    'error_code',
    'suggested_action',
    'description',
    'subsystem',
    'session_id',
    'operation_id',
    'arguments',
    'processor',
  ],
  'cht::documentmessages::operation': ['id', 'warnings'],
  'cht::documentmessages::update_operation': ['id', 'warnings', 'doc'],
  'cht::documentmessages::remove_operation': ['id', 'warnings', 'doc_id'],
  'cht::documentmessages::urlchange_operation': ['id', 'warnings', 'doc'],
  'cht::documentmessages::failed_operation': [
    'id',
    'warnings',
    'subsystem',
    'state',
    'operation_type',
    'doc_id',
    'err',
  ],
  'cht::documentmessages::document': ['doc_id', 'document_attributes'],
  'cht::documentmessages::document_id': ['id', 'routing_attributes'],
  'cht::documentmessages::operation_set': ['completed_op_id', 'operations'],
  'cht::documentmessages::subsystem_id_set': ['ids'],
  'cht::documentmessages::operation_status_info': [
    'first_op_id',
    'last_op_id',
    'state',
    'subsystem',
    'errors',
    'warnings',
  ],
};

describe('cheetah entity classes', () => {
  it('descriptors - one class per row of the spec tables, with its type id and checksum', () => {
    const actual = CHEETAH_ENTITY_CLASSES.map((c) => [c.cheetah.name, c.cheetah.typeId, c.cheetah.checksum]);
    expect(new Set(actual.map((r) => JSON.stringify(r)))).toEqual(new Set(SPEC_TABLE.map((r) => JSON.stringify(r))));
    expect(actual).toHaveLength(SPEC_TABLE.length);
    for (const [name, typeId, checksum] of SPEC_TABLE) {
      expect(findCheetahClass(typeId, checksum)?.cheetah.name).toBe(name);
    }
  });

  it('descriptors - the API contract example', () => {
    expect(OperationSet.cheetah).toMatchObject({
      name: 'cht::documentmessages::operation_set',
      typeId: 38,
      checksum: 211918678,
    });
    expect(FeedingPriority.cheetah).toMatchObject({ name: 'cht::core::feeding_priority', checksum: -1479218033 });
  });

  it('descriptors - fields in FSIDL order, inherited first', () => {
    for (const [name, fields] of Object.entries(SPEC_FIELDS)) {
      const type = CHEETAH_ENTITY_CLASSES.find((c) => c.cheetah.name === name);
      expect(type?.cheetah.fields, name).toEqual(fields);
    }
  });

  it('inheritance - every subtype is an instance of its spec parent', () => {
    for (const [child, parent] of SPEC_PARENTS) {
      expect(Object.getPrototypeOf(child.prototype)).toBe(parent.prototype);
    }
    for (const type of CHEETAH_ENTITY_CLASSES) expect(type.prototype).toBeInstanceOf(CheetahEntity);
  });

  it('instances - built from arbitrary valid fields, they hold exactly the fields of their descriptor', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      for (const value of fc.sample(arbitrary, 20)) {
        expect(value.constructor).toBe(type);
        expect(isCheetahEntity(value)).toBe(true);
        expect(Object.keys(value)).toEqual(type.cheetah.fields);
      }
    }
  });

  it('collections - a parent-typed collection holds subtypes, not other entities', () => {
    const doc = new DocumentEntity({
      doc_id: new DocumentId({ id: 'd' }),
      document_attributes: [
        new StringAttribute({ key: 's', value: 'v' }),
        new IntegerAttribute({ key: 'i', value: 1 }),
        new KeyValueCollection({ key: 'c', values: [new LongCollection({ key: 'l', values: [1, 2] })] }),
      ],
    });
    const set = new OperationSet({
      completed_op_id: 0,
      operations: [
        new UpdateOperation({ id: 1, doc }),
        new RemoveOperation({ id: 2, doc_id: new DocumentId({ id: 'r' }) }),
        new PartialUpdateOperation({ id: 3, doc }),
        new UrlchangeOperation({ id: 4, doc }),
      ],
    });
    expect(set.operations.map((o) => o.constructor)).toEqual([
      UpdateOperation,
      RemoveOperation,
      PartialUpdateOperation,
      UrlchangeOperation,
    ]);
    expect(() => new OperationSet({ completed_op_id: 0, operations: [doc as never] })).toThrow(CheetahFieldError);
    expect(() => new GuaranteeSet({ guarantees: [new FeedingPriority(), new Guarantee()] })).not.toThrow();
    const docId = new DocumentId({ id: 'd' });
    expect(() => new DocumentEntity({ doc_id: docId, document_attributes: [doc as never] })).toThrow(
      expect.objectContaining({ entity: 'cht::documentmessages::document', field: 'document_attributes[0]' }),
    );
  });

  it('defaults - unused collections and constant fields can be left out', () => {
    const failed = new FailedOperation({
      id: 7,
      state: OperationState.lost,
      doc_id: new DocumentId({ id: 'x' }),
      err: new OperationLost({
        error_code: 4,
        suggested_action: Action.resubmit,
        description: 'lost',
        subsystem: 'processing',
        session_id: 1,
        operation_id: 7,
      }),
    });
    expect(failed).toMatchObject({ subsystem: 'processing', operation_type: 'failed_operation', warnings: [] });
    expect(failed.doc_id.routing_attributes).toEqual([]);
    expect(failed.err.arguments).toEqual([]);
    expect(new FeedingPriority().priority).toBe(0);
  });

  it('enums - spec order and names', () => {
    expect(Action).toEqual({ resubmit: 0, limited_resubmit: 1, drop: 2, terminate: 3 });
    expect(OperationState).toEqual({ unknown: 0, received: 1, secured: 2, completed: 3, lost: 4 });
    expect(actionName(Action.limited_resubmit)).toBe('limited_resubmit');
    expect(operationStateName(OperationState.secured)).toBe('secured');
    expect(() => actionName(9 as Action)).toThrow(RangeError);
  });

  it('construction - a wrongly typed or missing field names the entity and the field', () => {
    for (const [type, arbitrary] of ENTITY_ARBITRARIES) {
      const [value] = fc.sample(arbitrary, { numRuns: 1, seed: 42 });
      const Ctor = type as unknown as new (fields: object) => CheetahEntity;
      for (const field of type.cheetah.fields) {
        const wrong = () => new Ctor({ ...value, [field]: { not: 'a valid value' } });
        expect(wrong, `${type.cheetah.name}.${field}`).toThrow(CheetahFieldError);
        expect(wrong).toThrow(expect.objectContaining({ entity: type.cheetah.name, field, problem: 'type' }));
      }
    }
    expect(() => new StringAttribute({ key: 'k' } as never)).toThrow(
      expect.objectContaining({
        entity: 'cht::documentmessages::string_attribute',
        field: 'value',
        problem: 'missing',
      }),
    );
    expect(() => new IntegerAttribute({ key: 'k', value: 2 ** 31 })).toThrow(
      expect.objectContaining({ field: 'value', problem: 'type' }),
    );
    expect(() => new LongAttribute({ key: 'k', value: 2 ** 53 })).toThrow(CheetahFieldError);
    expect(new LongAttribute({ key: 'k', value: 5n as never }).value).toBe(5);
    expect(() => new IntegerCollection({ key: 'k', values: [1, 1.5] })).toThrow(
      expect.objectContaining({ field: 'values[1]' }),
    );
  });

  it('construction - entity-typed fields take subtypes (error attribute holds an xml_error)', () => {
    const err = new XmlError({
      error_code: 1,
      suggested_action: Action.drop,
      description: 'bad xml',
      subsystem: 'processing',
      session_id: 1,
      operation_id: 1,
      processor: 'XMLParser',
    });
    const failed = new FailedOperation({ id: 1, state: OperationState.lost, doc_id: new DocumentId({ id: 'x' }), err });
    expect(failed.err).toBeInstanceOf(DocumentError);
    expect(
      () =>
        new OperationStatusInfo({
          first_op_id: 0,
          last_op_id: 0,
          state: OperationState.completed,
          subsystem: 'indexing',
          errors: [err],
          warnings: [
            new Warning({ warning_code: 1, description: 'w', subsystem: 'indexing', session_id: 1, operation_id: 0 }),
          ],
        }),
    ).not.toThrow();
    expect(new SubsystemIdSet({ ids: ['indexing'] }).ids).toEqual(['indexing']);
  });
});
