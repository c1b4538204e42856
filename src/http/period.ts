import { validationFailed } from '../errors.js';

// `from`/`to` query values: an ISO 8601 date or date-time (the schema's DateOrDateTime pattern has
// already checked the form). A date means midnight UTC, and so does a date-time without a zone:
// day buckets are UTC, so reading a bare time in the server's zone would shift them.

const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/** The instant a `from`/`to` value names, or undefined when it is no real date (say 2025-02-30). */
export function parseInstant(value: string): Date | undefined {
  const match = PARTS.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  // Date.parse would roll 2025-02-30 over into March rather than refuse it.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const millis = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset}`);
  return Number.isNaN(millis) ? undefined : new Date(millis);
}

export interface Period {
  from: Date;
  to: Date;
}

function instantOf(field: 'from' | 'to', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const instant = parseInstant(value);
  if (!instant) throw validationFailed({ [field]: ['is not a real date or date-time'] });
  return instant;
}

function checkOrder(from: Date | undefined, to: Date | undefined): void {
  if (from && to && from.getTime() >= to.getTime()) throw validationFailed({ to: ['must be after from'] });
}

/** An optional filter on a time column: either end may be open. */
export function optionalPeriod(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = instantOf('from', query.from);
  const to = instantOf('to', query.to);
  checkOrder(from, to);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

const DAY_MS = 86_400_000;
// The instants an ISO 8601 date-time of four-digit years can name: a bound computed past them
// (the day after 9999-12-31) would be written in the extended form (+010000-…) parsers refuse.
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const within = (ms: number) => new Date(Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, ms)));

/**
 * A closed period for reports. Without bounds: the last 30 UTC days, today included, so every
 * day bucket is a whole day. With only `from`: up to the end of today. With only `to`: the 30
 * days before it.
 */
export function reportPeriod(query: { from?: string; to?: string }, now = new Date()): Period {
  const endOfToday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
  const given = optionalPeriod(query);
  const to = given.to ?? (given.from && given.from.getTime() >= endOfToday.getTime() ? within(given.from.getTime() + DAY_MS) : endOfToday);
  const from = given.from ?? within(to.getTime() - 30 * DAY_MS);
  return { from, to };
}

/**
 * A position in a newest-first list ordered by a timestamptz and an id. The time travels as the
 * database wrote it, to the microsecond: a JavaScript Date keeps milliseconds only, and a cursor
 * rounded to them would skip or repeat rows written within the same millisecond.
 */
export interface TimePosition {
  at: string;
  id: string;
}

const EXACT_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function isTimePosition(value: unknown, isId: (id: string) => boolean): value is TimePosition {
  if (typeof value !== 'object' || value === null) return false;
  const { at, id } = value as Partial<TimePosition>;
  return typeof at === 'string' && EXACT_INSTANT.test(at) && parseInstant(at) !== undefined && typeof id === 'string' && isId(id);
}
