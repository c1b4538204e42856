import { validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';

/**
 * The limits of a key, a workspace or an organization. Each is a positive number, or null for no
 * limit at that level; every limit that applies is enforced. Rates count per minute; credits per
 * UTC day and per UTC calendar month.
 */
export interface Limits {
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  credits_per_day: number | null;
  credits_per_month: number | null;
}

export const LIMIT_FIELDS = ['requests_per_minute', 'tokens_per_minute', 'credits_per_day', 'credits_per_month'] as const;

export const NO_LIMITS: Readonly<Limits> = Object.freeze({
  requests_per_minute: null,
  tokens_per_minute: null,
  credits_per_day: null,
  credits_per_month: null,
});

/** Credits are stored as numeric(20, 8): a smaller positive amount would be stored as zero. */
export const SMALLEST_CREDIT_LIMIT = 0.00000001;

export function hasAnyLimit(limits: Limits): boolean {
  return LIMIT_FIELDS.some((field) => limits[field] !== null);
}

/**
 * The limits a request body names, as a whole: a field left out is null (no limit), so a body
 * always sets all four. The schema (component `Limits`) has checked types and signs; this also
 * refuses credit amounts too small to be stored, naming the field under `path` (e.g.
 * `limits.credits_per_day`), so the database never sees a value its check would refuse.
 */
export function limitsFromBody(body: Partial<Limits> | null | undefined, path = 'limits'): Limits {
  const limits: Limits = {
    requests_per_minute: body?.requests_per_minute ?? null,
    tokens_per_minute: body?.tokens_per_minute ?? null,
    credits_per_day: body?.credits_per_day ?? null,
    credits_per_month: body?.credits_per_month ?? null,
  };
  const errors: FieldErrors = noFieldErrors();
  for (const field of ['credits_per_day', 'credits_per_month'] as const) {
    const value = limits[field];
    if (value !== null && value < SMALLEST_CREDIT_LIMIT) {
      errors[`${path}.${field}`] = [`must be at least ${SMALLEST_CREDIT_LIMIT.toFixed(8)} (credits are kept to 8 decimals)`];
    }
    // As Postgres keeps it, so that the answer, the audit entry and the gate all say the stored limit.
    if (value !== null) limits[field] = Math.round(value * 1e8) / 1e8;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return limits;
}

/** Limits as Postgres returns them: integers as numbers, numeric(20, 8) as strings. */
export interface LimitColumns {
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  credits_per_day: string | number | null;
  credits_per_month: string | number | null;
}

export function limitsFromColumns(row: LimitColumns): Limits {
  return {
    requests_per_minute: row.requests_per_minute,
    tokens_per_minute: row.tokens_per_minute,
    credits_per_day: row.credits_per_day === null ? null : Number(row.credits_per_day),
    credits_per_month: row.credits_per_month === null ? null : Number(row.credits_per_month),
  };
}

/** Old → new of each limit that differs, for an audit entry. */
export function limitChanges(before: Limits, after: Limits): Record<string, { from: number | null; to: number | null }> {
  const changes: Record<string, { from: number | null; to: number | null }> = {};
  for (const field of LIMIT_FIELDS) {
    if (before[field] !== after[field]) changes[field] = { from: before[field], to: after[field] };
  }
  return changes;
}
