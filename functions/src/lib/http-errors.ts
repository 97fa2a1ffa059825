import type { ErrorCode } from '@outbound/core/errors';

/** The one table from an error's stable code to an HTTP status. */
export const statusOf: Record<ErrorCode, number> = {
  BAD_JSON: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CONDITION_FAILED: 409,
  GONE: 410,
  TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION: 422,
  LOCKED: 429,
  RATE_LIMITED: 429,
  SECRET_UNREADABLE: 500,
  UNAVAILABLE: 503,
};
