// Number and date formatting for the console.

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const significant = new Intl.NumberFormat('en', { maximumSignificantDigits: 4 });
const twoDecimals = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

export function int(n) {
  return typeof n === 'number' ? integer.format(n) : '–';
}

/** Credits: small amounts keep 4 significant digits (0.00003), large ones 2 decimals. */
export function credits(n) {
  if (typeof n !== 'number' || Number.isNaN(n)) return '–';
  if (n === 0) return '0';
  return Math.abs(n) >= 1000 ? twoDecimals.format(n) : significant.format(n);
}

export function ms(n) {
  if (typeof n !== 'number') return '–';
  return n >= 1000 ? `${twoDecimals.format(n / 1000)} s` : `${twoDecimals.format(n)} ms`;
}

const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A <time> element showing the local date and time, with the exact instant as its datetime. */
export function time(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const el = document.createElement('time');
  el.dateTime = iso;
  el.title = iso;
  el.textContent = dateTime.format(date);
  return el;
}

const shortDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const longDay = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A UTC day key (YYYY-MM-DD) as "5 Mar". */
export function dayShort(key) {
  return shortDay.format(new Date(`${key}T00:00:00Z`));
}

export function dayLong(key) {
  return longDay.format(new Date(`${key}T00:00:00Z`));
}

/** UTC day keys from `from` (inclusive) for `count` days. */
export function dayKeys(from, count) {
  const start = Date.parse(`${from}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}

export function utcDay(date) {
  return date.toISOString().slice(0, 10);
}

/** Compact JSON for a details cell. */
export function json(value, indent) {
  try {
    return JSON.stringify(value, null, indent);
  } catch {
    return String(value);
  }
}

/** How long until an instant, roughly: "in 5 h 12 min", "in 3 days", "in under a minute". */
export function until(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return '';
  if (ms <= 60_000) return ms <= 0 ? 'now' : 'in under a minute';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${Math.floor(hours / 24)} days`;
}

const percentFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });

/** A share as "6 %"; above 0 but below 1 %, "<1 %" (never a misleading 0). */
export function percent(part, whole) {
  if (!(whole > 0)) return '–';
  const p = (part / whole) * 100;
  if (p > 0 && p < 1) return '<1 %';
  return `${percentFormat.format(Math.floor(p))} %`;
}
