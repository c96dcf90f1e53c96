/**
 * Failures of SSR operations. Each has a stable `code` and a `retryable` flag; the node service sends the code over
 * the bus and SsrClient rebuilds the same class (ssrErrorFromCode).
 */
export class SsrError extends Error {
  override name = 'SsrError';
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** 2.18.1 remote locking: an active copy is being accessed (or is in transfer); retry after a short while (503). */
export class SsrBusy extends SsrError {
  override name = 'SsrBusy';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'busy', true, options);
  }
}

/** 2.8 temporary failure: a member did not answer a load request, so "not found" cannot be concluded (503). */
export class SsrUnavailable extends SsrError {
  override name = 'SsrUnavailable';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'unavailable', true, options);
  }
}

/** 2.16 quiescence: this instance no longer takes operations; the caller routes to the new home and retries. */
export class SsrQuiescing extends SsrError {
  override name = 'SsrQuiescing';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'quiescing', true, options);
  }
}

/** Data-centric routing: the artifact's home in this instance's view is another instance (retry there). */
export class SsrNotHome extends SsrError {
  override name = 'SsrNotHome';
  constructor(
    message: string,
    readonly home: string,
    options?: ErrorOptions,
  ) {
    super(message, 'not_home', true, options);
  }
}

/** The artifact exists nowhere in the cluster (481). */
export class SsrNotFound extends SsrError {
  override name = 'SsrNotFound';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'not_found', false, options);
  }
}

/** A malformed request from the network. */
export class SsrBadRequest extends SsrError {
  override name = 'SsrBadRequest';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'bad_request', false, options);
  }
}

export function ssrErrorFromCode(code: string, message: string, data?: string): SsrError {
  switch (code) {
    case 'busy':
      return new SsrBusy(message);
    case 'unavailable':
      return new SsrUnavailable(message);
    case 'quiescing':
      return new SsrQuiescing(message);
    case 'not_home':
      return new SsrNotHome(message, data ?? '');
    case 'not_found':
      return new SsrNotFound(message);
    case 'bad_request':
      return new SsrBadRequest(message);
    default:
      return new SsrError(message, code, false);
  }
}
