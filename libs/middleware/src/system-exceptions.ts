import { ExceptionRegistry } from '@esp/interfaces';

/**
 * System exceptions: failures of the call itself rather than of what was asked. Each has a stable code that
 * crosses the bus and a retryable flag; the receiving side rebuilds the same class from the code.
 */
export class SystemException extends Error {
  override name = 'SystemException';
  readonly code: string = 'system_exception';
  readonly retryable: boolean = false;
  readonly data: Record<string, unknown>;

  constructor(message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.data = data;
  }
}

/** Nobody serves that object (no responders): it was never activated, or its process is gone. Fails at once. */
export class ObjectNotExist extends SystemException {
  override name = 'ObjectNotExist';
  override readonly code = 'object_not_exist';
}

/** No answer before the call's deadline. The server may or may not have done the work. */
export class CallTimeout extends SystemException {
  override name = 'CallTimeout';
  override readonly code = 'timeout';
  override readonly retryable = true;
}

/**
 * The caller gave up on the call before its reply (it learnt otherwise that none will come: the server was declared
 * dead). The server may or may not have done the work.
 */
export class CallAbandoned extends SystemException {
  override name = 'CallAbandoned';
  override readonly code = 'call_abandoned';
}

/** An argument failed validation; data.argument names it and data.reason says why. */
export class BadParameter extends SystemException {
  override name = 'BadParameter';
  override readonly code = 'bad_parameter';
}

/** The object serves another interface type, or an incompatible version of it. */
export class VersionMismatch extends SystemException {
  override name = 'VersionMismatch';
  override readonly code = 'version_mismatch';
}

/** The interface has no such method. */
export class UnknownMethod extends SystemException {
  override name = 'UnknownMethod';
  override readonly code = 'unknown_method';
}

/** The request could not be decoded (garbage bytes, wrong envelope). */
export class BadRequest extends SystemException {
  override name = 'BadRequest';
  override readonly code = 'bad_request';
}

/** The request or reply is larger than the server or the bus accepts. */
export class PayloadTooLarge extends SystemException {
  override name = 'PayloadTooLarge';
  override readonly code = 'payload_too_large';
}

/** The server has as many calls in flight as it accepts; try again shortly. */
export class ServerBusy extends SystemException {
  override name = 'ServerBusy';
  override readonly code = 'server_busy';
  override readonly retryable = true;
}

/** The server failed while executing the call (a bug or an unexpected condition on its side). */
export class InternalError extends SystemException {
  override name = 'InternalError';
  override readonly code = 'internal_error';
}

/**
 * The bus connection is closed or draining (nothing was sent), or it dropped while the call waited for its reply
 * (data.in_flight: the server may or may not have got it). Retry after the reconnect.
 */
export class TransportError extends SystemException {
  override name = 'TransportError';
  override readonly code = 'transport_error';
  override readonly retryable = true;
}

const registry = new ExceptionRegistry<SystemException>(SystemException, [
  ObjectNotExist,
  CallTimeout,
  CallAbandoned,
  BadParameter,
  VersionMismatch,
  UnknownMethod,
  BadRequest,
  PayloadTooLarge,
  ServerBusy,
  InternalError,
  TransportError,
]);

export function systemExceptionFromWire(code: string, message: string, data: Record<string, unknown> = {}): SystemException {
  return registry.fromWire(code, message, data);
}
