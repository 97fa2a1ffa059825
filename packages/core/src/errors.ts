/**
 * Errors carry a stable code, never an HTTP status: functions/src/lib/http-errors.ts
 * maps codes to statuses. `message` is a plain sentence safe to show a user;
 * anything a provider said goes in `cause`, which only reaches the log.
 */
export type ErrorCode =
  | 'VALIDATION'
  | 'BAD_JSON'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UNAUTHORIZED'
  | 'LOCKED'
  | 'RATE_LIMITED'
  | 'GONE'
  | 'TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CONDITION_FAILED'
  | 'SECRET_UNREADABLE'
  | 'UNAVAILABLE';

export class EngineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationError extends EngineError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super('VALIDATION', message, extra);
  }
}

export class NotFoundError extends EngineError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class ConflictError extends EngineError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super('CONFLICT', message, extra);
  }
}

export class UnauthorizedError extends EngineError {
  constructor(message = 'Sign-in is required: send a valid bearer token.') {
    super('UNAUTHORIZED', message);
  }
}

/** Too many requests or a locked account; both carry retryAfterMs. */
export class RetryLaterError extends EngineError {
  constructor(
    code: 'LOCKED' | 'RATE_LIMITED',
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(code, message, { retryAfterMs });
  }
}

/** A conditional write lost: the item exists, or is not in the expected state. */
export class ConditionFailedError extends EngineError {
  constructor(message = 'The item changed or already exists.', options?: { cause?: unknown }) {
    super('CONDITION_FAILED', message, {}, options);
  }
}

/** Ciphertext that does not decrypt: tampered, or bound to another context. */
export class SecretUnreadableError extends EngineError {
  constructor(message = 'A stored secret could not be decrypted.', options?: { cause?: unknown }) {
    super('SECRET_UNREADABLE', message, {}, options);
  }
}

/** A transaction was cancelled; `failed` holds the indexes whose condition did not hold. */
export class TransactionFailedError extends ConditionFailedError {
  constructor(
    readonly failed: number[],
    options?: { cause?: unknown },
  ) {
    super('A transaction did not go through because an item changed or already exists.', options);
  }
}

/** A send refused by a guardrail: never retried as it stands. */
export class GuardrailError extends EngineError {
  constructor(
    readonly rule: 'NO_ADDRESS' | 'NO_UNSUBSCRIBE' | 'SUPPRESSED' | 'LEAD_STOPPED',
    message: string,
  ) {
    super('VALIDATION', message, { rule });
  }
}

/** A request body that is not the JSON its route takes (400). */
export class BadJsonError extends EngineError {
  constructor(message = 'The request body is not valid JSON.') {
    super('BAD_JSON', message);
  }
}

/** A body of a type the route does not take (415). */
export class UnsupportedMediaTypeError extends EngineError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}
