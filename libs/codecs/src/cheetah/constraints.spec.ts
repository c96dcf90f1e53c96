import { describe, expect, it } from 'vitest';
import {
  Action,
  CheetahConstraintError,
  type CheetahEntity,
  DocumentError,
  type DocumentErrorFields,
  DocumentId,
  FailedOperation,
  FeedingPriority,
  GuaranteeSet,
  Guarantee,
  Operation,
  OperationLost,
  OperationState,
  OperationStatusInfo,
  type OperationStatusInfoFields,
  PartialUpdateOperation,
  ProcessingError,
  RemoveOperation,
  StringAttribute,
  SubsystemIdSet,
  UpdateOperation,
  UrlchangeOperation,
  Warning,
  type WarningFields,
  XmlError,
  DocumentEntity,
  assertSessionGuarantees,
  decodeCheetah,
} from '../index';
import { CORE, DM, extBytes } from './cheetah-test-wire';

const errorFields: DocumentErrorFields = {
  error_code: 4,
  suggested_action: Action.resubmit,
  description: 'lost',
  subsystem: 'processing',
  session_id: 1,
  operation_id: 7,
};
const errorWire = (over: Partial<Record<'subsystem' | 'arguments', unknown>> = {}, typeId = 15) => [
  typeId,
  DM,
  4,
  0,
  'lost',
  over.subsystem ?? 'processing',
  1,
  7,
  over.arguments ?? [],
];
const warningFields: WarningFields = {
  warning_code: 1,
  description: 'w',
  subsystem: 'indexing',
  session_id: 1,
  operation_id: 7,
};
const statusFields: OperationStatusInfoFields = {
  first_op_id: 1,
  last_op_id: 2,
  state: OperationState.completed,
  subsystem: 'indexing',
  errors: [],
  warnings: [],
};
const docIdWire = [11, DM, 'doc', []];
const docWire = [12, DM, docIdWire, []];
const docId = () => new DocumentId({ id: 'doc' });
const doc = () => new DocumentEntity({ doc_id: docId(), document_attributes: [] });

interface Case {
  name: string;
  entity: string;
  field: string;
  build: () => CheetahEntity;
  wire: unknown[];
}

const CASES: Case[] = [
  {
    name: 'feeding_priority.priority MUST be 0',
    entity: 'cht::core::feeding_priority',
    field: 'priority',
    build: () => new FeedingPriority({ priority: 1 }),
    wire: [7, CORE, 1],
  },
  {
    name: 'operation_status_info.first_op_id MUST be <= last_op_id',
    entity: 'cht::documentmessages::operation_status_info',
    field: 'first_op_id',
    build: () => new OperationStatusInfo({ ...statusFields, first_op_id: 5, last_op_id: 4 }),
    wire: [40, DM, 5, 4, 3, 'indexing', [], []],
  },
  {
    name: 'operation_status_info.first_op_id MUST be >= 0',
    entity: 'cht::documentmessages::operation_status_info',
    field: 'first_op_id',
    build: () => new OperationStatusInfo({ ...statusFields, first_op_id: -1 }),
    wire: [40, DM, -1, 4, 3, 'indexing', [], []],
  },
  {
    name: 'operation_status_info.last_op_id MUST be >= 0',
    entity: 'cht::documentmessages::operation_status_info',
    field: 'last_op_id',
    build: () => new OperationStatusInfo({ ...statusFields, first_op_id: 0, last_op_id: -3 }),
    wire: [40, DM, 0, -3, 3, 'indexing', [], []],
  },
  {
    name: 'operation_status_info.subsystem MUST be "indexing" or "processing"',
    entity: 'cht::documentmessages::operation_status_info',
    field: 'subsystem',
    build: () => new OperationStatusInfo({ ...statusFields, subsystem: 'storage' as never }),
    wire: [40, DM, 1, 2, 3, 'storage', [], []],
  },
  {
    name: 'error.arguments MUST be empty',
    entity: 'cht::documentmessages::error',
    field: 'arguments',
    build: () => new DocumentError({ ...errorFields, arguments: ['x'] }),
    wire: errorWire({ arguments: ['x'] }),
  },
  {
    name: 'error.arguments MUST be empty (operation_lost inherits it)',
    entity: 'cht::documentmessages::operation_lost',
    field: 'arguments',
    build: () => new OperationLost({ ...errorFields, arguments: [''] }),
    wire: errorWire({ arguments: [''] }, 37),
  },
  {
    name: 'error.arguments MUST be empty (xml_error inherits it)',
    entity: 'cht::documentmessages::xml_error',
    field: 'arguments',
    build: () => new XmlError({ ...errorFields, processor: 'p', arguments: ['a', 'b'] }),
    wire: [...errorWire({ arguments: ['a', 'b'] }, 55), 'p'],
  },
  {
    name: 'error.subsystem MUST be "indexing" or "processing"',
    entity: 'cht::documentmessages::error',
    field: 'subsystem',
    build: () => new DocumentError({ ...errorFields, subsystem: 'Processing' as never }),
    wire: errorWire({ subsystem: 'Processing' }),
  },
  {
    name: 'error.subsystem MUST be "indexing" or "processing" (processing_error inherits it)',
    entity: 'cht::documentmessages::processing_error',
    field: 'subsystem',
    build: () => new ProcessingError({ ...errorFields, processor: 'p', subsystem: '' as never }),
    wire: [...errorWire({ subsystem: '' }, 21), 'p'],
  },
  {
    name: 'warning.subsystem MUST be "indexing" or "processing"',
    entity: 'cht::documentmessages::warning',
    field: 'subsystem',
    build: () => new Warning({ ...warningFields, subsystem: 'crawler' as never }),
    wire: [6, DM, 1, 'w', 'crawler', 1, 7],
  },
  {
    name: 'subsystem_id_set.ids MUST be [] or ["indexing"] (not ["processing"])',
    entity: 'cht::documentmessages::subsystem_id_set',
    field: 'ids',
    build: () => new SubsystemIdSet({ ids: ['processing'] }),
    wire: [39, DM, ['processing']],
  },
  {
    name: 'subsystem_id_set.ids MUST be [] or ["indexing"] (not two elements)',
    entity: 'cht::documentmessages::subsystem_id_set',
    field: 'ids',
    build: () => new SubsystemIdSet({ ids: ['indexing', 'indexing'] }),
    wire: [39, DM, ['indexing', 'indexing']],
  },
  {
    name: 'document_id.routing_attributes MUST be empty',
    entity: 'cht::documentmessages::document_id',
    field: 'routing_attributes',
    build: () => new DocumentId({ id: 'x', routing_attributes: [new StringAttribute({ key: 'k', value: 'v' })] }),
    wire: [11, DM, 'x', [[26, DM, 'k', 'v']]],
  },
  {
    name: 'failed_operation.subsystem MUST be "processing"',
    entity: 'cht::documentmessages::failed_operation',
    field: 'subsystem',
    build: () =>
      new FailedOperation({
        id: 1,
        subsystem: 'indexing' as never,
        state: OperationState.lost,
        doc_id: docId(),
        err: new DocumentError(errorFields),
      }),
    wire: [18, DM, 1, [], 'indexing', 4, 'failed_operation', docIdWire, errorWire()],
  },
  {
    name: 'failed_operation.operation_type MUST be "failed_operation"',
    entity: 'cht::documentmessages::failed_operation',
    field: 'operation_type',
    build: () =>
      new FailedOperation({
        id: 1,
        operation_type: 'update_operation' as never,
        state: OperationState.lost,
        doc_id: docId(),
        err: new DocumentError(errorFields),
      }),
    wire: [18, DM, 1, [], 'processing', 4, 'update_operation', docIdWire, errorWire()],
  },
  ...(
    [
      ['operation', 7, () => new Operation({ id: -1 }), []],
      ['update_operation', 52, () => new UpdateOperation({ id: -1, doc: doc() }), [docWire]],
      ['remove_operation', 45, () => new RemoveOperation({ id: -2, doc_id: docId() }), [docIdWire]],
      ['partial_update_operation', 42, () => new PartialUpdateOperation({ id: -3, doc: doc() }), [docWire]],
      ['urlchange_operation', 53, () => new UrlchangeOperation({ id: -4, doc: doc() }), [docWire]],
      [
        'failed_operation',
        18,
        () =>
          new FailedOperation({
            id: -5,
            state: OperationState.lost,
            doc_id: docId(),
            err: new DocumentError(errorFields),
          }),
        ['processing', 4, 'failed_operation', docIdWire, errorWire()],
      ],
    ] as const
  ).map(
    ([name, typeId, build, rest]): Case => ({
      name: `${name}.id MUST be >= 0`,
      entity: `cht::documentmessages::${name}`,
      field: 'id',
      build,
      wire: [typeId, DM, -1, [], ...rest],
    }),
  ),
];

describe('cheetah MUSTs', () => {
  for (const c of CASES) {
    it(`construction - ${c.name}`, () => {
      expect(c.build).toThrow(CheetahConstraintError);
      expect(c.build).toThrow(
        expect.objectContaining({ entity: c.entity, field: c.field, code: 'CHEETAH_CONSTRAINT' }),
      );
    });

    it(`decoding - ${c.name}`, () => {
      const bytes = extBytes(c.wire);
      expect(() => decodeCheetah(bytes)).toThrow(CheetahConstraintError);
      expect(() => decodeCheetah(bytes)).toThrow(expect.objectContaining({ entity: c.entity, field: c.field }));
    });
  }

  it('decoding - a MUST broken deep inside an operation_set names the inner entity', () => {
    const bytes = extBytes([38, DM, 0, [[52, DM, 1, [], [12, DM, [11, DM, 'x', [[0, DM, 'k']]], []]]]]);
    expect(() => decodeCheetah(bytes)).toThrow(
      expect.objectContaining({ entity: 'cht::documentmessages::document_id', field: 'routing_attributes' }),
    );
  });

  it('allowed values pass: priority 0, first == last, ids [] and ["indexing"], both subsystems', () => {
    expect(decodeCheetah(extBytes([7, CORE, 0]))).toStrictEqual(new FeedingPriority());
    expect(decodeCheetah(extBytes([40, DM, 3, 3, 1, 'processing', [], []]))).toStrictEqual(
      new OperationStatusInfo({ ...statusFields, first_op_id: 3, last_op_id: 3, state: 1, subsystem: 'processing' }),
    );
    expect(decodeCheetah(extBytes([39, DM, []]))).toStrictEqual(new SubsystemIdSet({ ids: [] }));
    expect(decodeCheetah(extBytes([39, DM, ['indexing']]))).toStrictEqual(new SubsystemIdSet({ ids: ['indexing'] }));
    expect(decodeCheetah(extBytes([6, DM, 1, 'w', 'processing', 1, 7]))).toBeInstanceOf(Warning);
    expect(decodeCheetah(extBytes([52, DM, 0, [], docWire]))).toBeInstanceOf(UpdateOperation);
  });

  it('session creation - guarantees MUST hold one feeding_priority or nothing', () => {
    expect(() => assertSessionGuarantees(new GuaranteeSet({ guarantees: [] }))).not.toThrow();
    expect(() => assertSessionGuarantees(new GuaranteeSet({ guarantees: [new FeedingPriority()] }))).not.toThrow();
    for (const guarantees of [[new Guarantee()], [new FeedingPriority(), new FeedingPriority()]]) {
      expect(() => assertSessionGuarantees(new GuaranteeSet({ guarantees }))).toThrow(
        expect.objectContaining({ entity: 'cht::core::guarantee_set', field: 'guarantees' }),
      );
    }
  });
});
