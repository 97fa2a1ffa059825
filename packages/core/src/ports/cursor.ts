import { ValidationError } from '../errors.ts';

/**
 * Page cursors, the same for every Store: the last key read, as base64url
 * JSON. Opaque to callers; a cursor that cannot be read is the caller's
 * mistake (422), never a fault.
 */
export const encodeCursor = (key: Record<string, unknown> | undefined) =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;

export function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (key && typeof key === 'object' && !Array.isArray(key)) return key;
  } catch {
    /* fall through */
  }
  throw new ValidationError('cursor is not one this service gave out: start again without it.');
}
