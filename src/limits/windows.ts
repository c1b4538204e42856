// The windows limits are counted in: a fixed UTC minute for rates, the UTC day and the UTC calendar
// month for credits (CONTRACT.md, "Limits and budgets").

export type Counter = 'requests' | 'tokens' | 'credits_day' | 'credits_month';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The start of the window `counter` is counted in at `now` (ms since the epoch). */
export function windowStart(counter: Counter, now: number): number {
  if (counter === 'requests' || counter === 'tokens') return now - (now % MINUTE_MS);
  const day = now - (now % DAY_MS);
  if (counter === 'credits_day') return day;
  // Asked on every request: the month of a day is worked out once per day.
  if (day !== monthOf.day) {
    const date = new Date(day);
    monthOf.day = day;
    monthOf.start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  }
  return monthOf.start;
}

const monthOf = { day: NaN, start: NaN };

/** When the window that starts at `start` ends and the next begins. */
export function windowEnd(counter: Counter, start: number): number {
  if (counter === 'requests' || counter === 'tokens') return start + MINUTE_MS;
  if (counter === 'credits_day') return start + DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** A duration as OpenAI writes it in `x-ratelimit-reset-*`: `1s`, `6m0s`, `1h2m3s`. */
export function openAiDuration(ms: number): string {
  const total = Math.max(1, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
