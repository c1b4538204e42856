import { validationFailed } from '../errors.js';

// Cursors are opaque to callers: a base64url-encoded JSON value that only this service reads.
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, isValid: (value: unknown) => value is T): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (isValid(value)) return value;
  } catch {
    // fall through to the 422 below
  }
  throw validationFailed({ cursor: ['is not a cursor this service issued'] });
}
