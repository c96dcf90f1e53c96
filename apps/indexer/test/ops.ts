/** Builders of the entities the indexer receives, for tests. */
import {
  Action,
  DocumentEntity,
  DocumentId,
  FailedOperation,
  IntegerAttribute,
  type KeyValuePair,
  OperationLost,
  OperationSet,
  OperationState,
  type OperationStatusInfo,
  operationStateName,
  PartialUpdateOperation,
  ProcessingError,
  RemoveOperation,
  StringAttribute,
  UpdateOperation,
  UrlchangeOperation,
  Warning,
  type Operation,
} from '@esp/codecs';
import { LEASE_LOST_DESCRIPTION, LEASE_LOST_ERROR_CODE } from '@esp/interfaces';

export type Attrs = Record<string, string | number>;

function kvps(attrs: Attrs): KeyValuePair[] {
  return Object.entries(attrs).map(([key, value]) =>
    typeof value === 'number' ? new IntegerAttribute({ key, value }) : new StringAttribute({ key, value }),
  );
}

const doc = (id: string, attrs: Attrs): DocumentEntity => new DocumentEntity({ doc_id: new DocumentId({ id }), document_attributes: kvps(attrs) });

export const update = (id: number, docId: string, attrs: Attrs, warnings: Warning[] = []): UpdateOperation => new UpdateOperation({ id, doc: doc(docId, attrs), warnings });

/** A warning of processing about one operation. */
export const warning = (code: number, session: number, opId: number): Warning =>
  new Warning({ warning_code: code, description: `warning ${code}`, subsystem: 'processing', session_id: session, operation_id: opId });
export const partial = (id: number, docId: string, attrs: Attrs): PartialUpdateOperation => new PartialUpdateOperation({ id, doc: doc(docId, attrs) });
export const urlchange = (id: number, docId: string, url: string): UrlchangeOperation => new UrlchangeOperation({ id, doc: doc(docId, { url }) });
export const remove = (id: number, docId: string): RemoveOperation => new RemoveOperation({ id, doc_id: new DocumentId({ id: docId }) });

/** A processing failure (format error of a pipeline stage), as an item processor reports it. */
export const failed = (id: number, docId: string, session: number): FailedOperation =>
  new FailedOperation({
    id,
    state: OperationState.completed,
    doc_id: new DocumentId({ id: docId }),
    err: new ProcessingError({
      error_code: 7,
      suggested_action: Action.drop,
      description: 'bad XML',
      subsystem: 'processing',
      session_id: session,
      operation_id: id,
      processor: 'XmlParser',
    }),
  });

/** An operation a content distributor lost after a lease timeout (MS-FSDPD 3.5.5). */
export const lost = (id: number, docId: string, session: number): FailedOperation =>
  new FailedOperation({
    id,
    state: OperationState.lost,
    doc_id: new DocumentId({ id: docId }),
    err: new OperationLost({
      error_code: LEASE_LOST_ERROR_CODE,
      suggested_action: Action.resubmit,
      description: LEASE_LOST_DESCRIPTION,
      subsystem: 'processing',
      session_id: session,
      operation_id: id,
    }),
  });

export const batch = (completed: number, ...operations: Operation[]): OperationSet => new OperationSet({ completed_op_id: completed, operations });

/** A status in a compact, comparable form: "completed 1-4 errors=[3:1001] warnings=[2:2001]". */
export function brief(s: OperationStatusInfo): string {
  const errors = s.errors.map((e) => `${e.operation_id}:${e.error_code}`).join(',');
  const warnings = s.warnings.map((w) => `${w.operation_id}:${w.warning_code}`).join(',');
  return `${operationStateName(s.state)} ${s.first_op_id}-${s.last_op_id}${errors ? ` errors=[${errors}]` : ''}${warnings ? ` warnings=[${warnings}]` : ''}`;
}
