// Typed errors of the kexlab client. Every error the client throws on
// purpose is a KexlabError; test with instanceof.

/** The base class of the client's errors. */
export class KexlabError extends Error {
  /** The service's stable error code, when the service sent one. */
  readonly code: string;
  constructor(message: string, code = '') {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Wrong user name or password (the service does not say which). */
export class AuthError extends KexlabError {
  constructor(message = 'wrong user name or password', code = 'auth_failed') {
    super(message, code);
  }
}

/** Too many attempts: retry after retryAfter seconds (the server's Retry-After). */
export class RateLimitError extends KexlabError {
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number, code = 'rate_limited') {
    super(message, code);
    this.retryAfter = retryAfter;
  }
}

/** The service could not be reached, or its answer did not arrive. */
export class NetworkError extends KexlabError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'network');
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The server broke the protocol: a malformed or out-of-order message. */
export class ProtocolError extends KexlabError {
  constructor(message: string) {
    super(message, 'protocol');
  }
}

/** Any other error answer of the service (HTTP status and code). */
export class ServiceError extends KexlabError {
  readonly status: number;
  constructor(message: string, status: number, code: string) {
    super(message, code);
    this.status = status;
  }
}
