// Placeholder until the keys branch lands (it owns this module): the shape CONTRACT.md gives limits.
export interface Limits {
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  credits_per_day: number | null;
  credits_per_month: number | null;
}

export const NO_LIMITS: Limits = { requests_per_minute: null, tokens_per_minute: null, credits_per_day: null, credits_per_month: null };
