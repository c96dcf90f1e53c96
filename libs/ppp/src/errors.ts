/**
 * Failures of PPP requests. Each has a stable `code` and a `retryable` flag; the queue sends the code to the client
 * (a FAIL reply, see client-link.ts) and the client rebuilds the same class.
 */
export class PppError extends Error {
  override name = 'PppError';
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No worker free and the queue's waiting room is full. */
export class PppQueueFull extends PppError {
  override name = 'PppQueueFull';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'queue_full', true, options);
  }
}

/** The worker holding the request died and the resend budget was spent. */
export class PppWorkerDied extends PppError {
  override name = 'PppWorkerDied';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'worker_died', false, options);
  }
}

/** One attempt of a client request got no reply in time (Lazy Pirate retries it). */
export class PppTimeout extends PppError {
  override name = 'PppTimeout';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'timeout', true, options);
  }
}

/** Nobody listens on the queue's frontend subject (nats-server answered "no responders"; Lazy Pirate retries). */
export class PppNoResponders extends PppError {
  override name = 'PppNoResponders';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'no_responders', true, options);
  }
}

/** Lazy Pirate gave up: no reply after every retry. */
export class PppNoReply extends PppError {
  override name = 'PppNoReply';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'no_reply', false, options);
  }
}

export function pppErrorFromCode(code: string, message: string): PppError {
  if (code === 'queue_full') return new PppQueueFull(message);
  if (code === 'worker_died') return new PppWorkerDied(message);
  if (code === 'no_reply') return new PppNoReply(message);
  if (code === 'timeout') return new PppTimeout(message);
  if (code === 'no_responders') return new PppNoResponders(message);
  return new PppError(message, code, false);
}
