/**
 * The two Cheetah enumerations of MS-FSDPD (2.2.1 action, 2.2.36 operation_state). On the wire, and in the
 * entities, a constant is its position in the FSIDL declaration.
 */

/** `cht::documentmessages::action`: what the client should do about a failed item operation. */
export const Action = {
  resubmit: 0,
  limited_resubmit: 1,
  drop: 2,
  /** The protocol client MUST NOT use it. */
  terminate: 3,
} as const;
export type Action = (typeof Action)[keyof typeof Action];
export type ActionName = keyof typeof Action;

const ACTION_NAMES: readonly ActionName[] = ['resubmit', 'limited_resubmit', 'drop', 'terminate'];

/** `cht::documentmessages::operation_state`: where an item operation is. */
export const OperationState = {
  unknown: 0,
  received: 1,
  secured: 2,
  completed: 3,
  lost: 4,
} as const;
export type OperationState = (typeof OperationState)[keyof typeof OperationState];
export type OperationStateName = keyof typeof OperationState;

const OPERATION_STATE_NAMES: readonly OperationStateName[] = ['unknown', 'received', 'secured', 'completed', 'lost'];

export function isAction(v: unknown): v is Action {
  return typeof v === 'number' && (v === 0 || v === 1 || v === 2 || v === 3);
}

export function isOperationState(v: unknown): v is OperationState {
  return typeof v === 'number' && (v === 0 || v === 1 || v === 2 || v === 3 || v === 4);
}

/** `actionName(Action.drop) === 'drop'`. */
export function actionName(v: Action): ActionName {
  const name = ACTION_NAMES[v];
  if (name === undefined) throw new RangeError(`not a Cheetah action: ${String(v)}`);
  return name;
}

/** `operationStateName(OperationState.lost) === 'lost'`. */
export function operationStateName(v: OperationState): OperationStateName {
  const name = OPERATION_STATE_NAMES[v];
  if (name === undefined) throw new RangeError(`not a Cheetah operation_state: ${String(v)}`);
  return name;
}
