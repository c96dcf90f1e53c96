/**
 * Arguments for the processing interface tests: real Cheetah entities from @esp/codecs and AORs of the right
 * interface types. Test-only; not exported from the package.
 */
import {
  decodeCheetah,
  DocumentEntity,
  DocumentId,
  encodeCheetah,
  FeedingPriority,
  GuaranteeSet,
  OperationSet,
  OperationState,
  OperationStatusInfo,
  RemoveOperation,
  StringAttribute,
  SubsystemIdSet,
  UpdateOperation,
} from '@esp/codecs';
import { type Aor } from '../aor';
import { type InterfaceDef, type MethodDef, validateArgs } from '../define-interface';
import { DISPATCHER_NAME, INTERNAL_PORT_OFFSET } from './constants';

export const BASE_PORT = 13000;

export function aor(interfaceType: string, overrides: Partial<Aor> = {}): Aor {
  return {
    name: DISPATCHER_NAME,
    object_id: `obj-${interfaceType.replace(/\W+/g, '-')}`,
    host: 'cd1.example.test',
    port: BASE_PORT + INTERNAL_PORT_OFFSET,
    interface_type: interfaceType,
    interface_version: '5.0',
    ...overrides,
  };
}

export function batch(): OperationSet {
  return new OperationSet({
    completed_op_id: 0,
    operations: [
      new UpdateOperation({
        id: 1,
        doc: new DocumentEntity({
          doc_id: new DocumentId({ id: 'doc-1' }),
          document_attributes: [new StringAttribute({ key: 'title', value: 'Hello' })],
        }),
      }),
      new RemoveOperation({ id: 2, doc_id: new DocumentId({ id: 'doc-0' }) }),
    ],
  });
}

export const toIndexing = (): SubsystemIdSet => new SubsystemIdSet({ ids: ['indexing'] });

export const priorityGuarantees = (): GuaranteeSet => new GuaranteeSet({ guarantees: [new FeedingPriority({ priority: 0 })] });
export const noGuarantees = (): GuaranteeSet => new GuaranteeSet({ guarantees: [] });

export function processedStatus(overrides: Partial<ConstructorParameters<typeof OperationStatusInfo>[0]> = {}): OperationStatusInfo {
  return new OperationStatusInfo({
    first_op_id: 1,
    last_op_id: 2,
    state: OperationState.completed,
    subsystem: 'processing',
    errors: [],
    warnings: [],
    ...overrides,
  });
}

/** What a server receives: the arguments after a msgpack round trip through the Cheetah extension. */
export function overTheWire(args: readonly unknown[]): unknown[] {
  return decodeCheetah(encodeCheetah(args)) as unknown[];
}

/** Method names and their parameter names, in order, of an interface definition. */
export function signatureOf(def: InterfaceDef): [string, string[]][] {
  return Object.entries(def.methods).map(([name, m]: [string, MethodDef]) => [name, m.params.map(([p]) => p)]);
}

/** validateArgs, reduced to what a failure test checks: which argument failed, and why. */
export function failure(def: MethodDef, args: readonly unknown[]): { argument: string; reason: string } | 'ok' {
  const r = validateArgs(def, args);
  return r.ok ? 'ok' : { argument: r.argument, reason: r.reason };
}
