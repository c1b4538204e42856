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

/** A position made of a creation instant in microseconds since the epoch and a uuid (documents, keys). */
export interface MicrosecondPosition {
  us: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isMicrosecondPosition(value: unknown): value is MicrosecondPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { us, id } = value as Partial<MicrosecondPosition>;
  return typeof us === 'string' && /^\d{1,18}$/.test(us) && typeof id === 'string' && UUID.test(id);
}

/** Where a keyset listing resumes, and how many rows it fetches. */
export interface PageRequest<Position> {
  after?: Position;
  limit: number;
}

/**
 * One page of a keyset listing, the same for every list: `fetch` is asked for one row more than
 * `limit` after the cursor's position, and that extra row says whether `next_cursor` is given.
 */
export async function keysetPage<Row, Position>(
  query: { cursor?: string; limit: number },
  isPosition: (value: unknown) => value is Position,
  fetch: (page: PageRequest<Position>) => Promise<Row[]>,
  positionOf: (row: Row) => Position,
): Promise<{ rows: Row[]; next_cursor: string | null }> {
  const after = decodeCursor(query.cursor, isPosition);
  const fetched = await fetch(after === undefined ? { limit: query.limit + 1 } : { after, limit: query.limit + 1 });
  const rows = fetched.slice(0, query.limit);
  const last = rows[rows.length - 1];
  return { rows, next_cursor: fetched.length > query.limit && last !== undefined ? encodeCursor(positionOf(last)) : null };
}
