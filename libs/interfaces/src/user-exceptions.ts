import { ExceptionRegistry } from './exception-registry';

/**
 * FSIDL user exceptions: typed values a method raises on purpose. They cross the bus as
 * { kind: 'user', code, message, data } and are rebuilt on the other side as an instance of the same class.
 */
export class UserException extends Error {
  override name = 'UserException';
  /** The FSIDL exception name, stable across the wire. */
  readonly code: string = 'user_exception';
  /** Whether retrying the same call later may succeed. */
  readonly retryable: boolean = false;
  readonly data: Record<string, unknown>;

  constructor(message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.data = data;
  }
}

/** processing::unknown_collection: the collection is not configured. */
export class UnknownCollection extends UserException {
  override name = 'UnknownCollection';
  override readonly code = 'unknown_collection';
}

/** processing::unsupported_guarantee_set */
export class UnsupportedGuaranteeSet extends UserException {
  override name = 'UnsupportedGuaranteeSet';
  override readonly code = 'unsupported_guarantee_set';
}

/** processing::shutting_down (MS-FSDPD 2.2.37): the server is stopping; go elsewhere. */
export class ShuttingDown extends UserException {
  override name = 'ShuttingDown';
  override readonly code = 'shutting_down';
  override readonly retryable = true;
}

/** processing::system_resource_error (MS-FSDPD 2.2.38) */
export class SystemResourceError extends UserException {
  override name = 'SystemResourceError';
  override readonly code = 'system_resource_error';
  override readonly retryable = true;
}

/** resolve_exception (MS-FSMW): no binding, or none of a compatible version. */
export class ResolveException extends UserException {
  override name = 'ResolveException';
  override readonly code = 'resolve_exception';
}

/** The name is already bound to another live object (bind is create-if-absent). */
export class AlreadyBound extends UserException {
  override name = 'AlreadyBound';
  override readonly code = 'already_bound';
}

/**
 * No item processor is free to take the batch (MS-FSDPD 3.5.6: the content client MUST be told it cannot be processed
 * now). Nothing of the batch was accepted: send the same batch again shortly.
 */
export class ProcessorsBusy extends UserException {
  override name = 'ProcessorsBusy';
  override readonly code = 'processors_busy';
  override readonly retryable = true;
}

/** A session id that the caller named does not exist (closed, never created, or its distributor restarted). */
export class UnknownSession extends UserException {
  override name = 'UnknownSession';
  override readonly code = 'unknown_session';
}

/**
 * A create_session / create / recreate / destroy_session of an existing session whose owner token is missing or is
 * not the one given when the session was created: the caller did not open that session. Nothing was changed (the
 * session, its callback and its batches are as they were). Not retryable: the same call fails the same way.
 */
export class SessionNotOwned extends UserException {
  override name = 'SessionNotOwned';
  override readonly code = 'session_not_owned';
}

/**
 * Ours: the caller's client is at one of its limits (docs/security.md, "Quotas, reaping and gone callbacks"):
 * `data.resource` names which (`sessions`), `data.scope` whether the client's own limit or the bound of all clients
 * (`client`, `global`), with `client`, `limit` and `held`. Nothing was taken. Not retryable: the same call fails the
 * same way until the client closes sessions, or idle ones are reaped.
 */
export class QuotaExceeded extends UserException {
  override name = 'QuotaExceeded';
  override readonly code = 'quota_exceeded';
}

/**
 * A write into an indexing session (coreprocessing::session::process) without the batch token of the distributor,
 * or with one that is not for these operations: the caller is not the item processor that batch was dispatched to.
 * Nothing of the batch was written. Not retryable: the same call fails the same way.
 */
export class BatchNotAuthorized extends UserException {
  override name = 'BatchNotAuthorized';
  override readonly code = 'batch_not_authorized';
}

/**
 * Ours: the caller's client is at a limit on something that comes back by itself (`bytes_in_flight`: its batches
 * accepted and not yet processed). Nothing was taken; retryable: the same batch, once some of them are processed.
 * `data` as QuotaExceeded's.
 */
export class InFlightQuotaExceeded extends UserException {
  override name = 'InFlightQuotaExceeded';
  override readonly code = 'in_flight_quota_exceeded';
  override readonly retryable = true;
}

const registry = new ExceptionRegistry<UserException>(UserException, [
  UnknownCollection,
  UnsupportedGuaranteeSet,
  ShuttingDown,
  SystemResourceError,
  ResolveException,
  AlreadyBound,
  ProcessorsBusy,
  UnknownSession,
  SessionNotOwned,
  QuotaExceeded,
  BatchNotAuthorized,
  InFlightQuotaExceeded,
]);

/** Makes a user exception class rebuildable from its code on the receiving side. */
export function registerUserException(cls: new (message: string, data?: Record<string, unknown>) => UserException): void {
  registry.register(cls);
}

/** Rebuilds a user exception from its wire form; unknown codes give a plain UserException carrying the code. */
export function userExceptionFromWire(code: string, message: string, data: Record<string, unknown> = {}): UserException {
  return registry.fromWire(code, message, data);
}
