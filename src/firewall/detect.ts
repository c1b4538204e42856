// Runs every recognizer over a text and resolves overlaps: a detection that passed a checksum
// beats one that did not, then the longer one wins, then the earlier one, then recognizer order.
import { hasDigit } from './context.js';
import { RECOGNIZERS } from './recognizers/index.js';
import type { Detection, Language, Recognizer } from './types.js';

export function resolveOverlaps(detections: Detection[], order: readonly Recognizer[] = RECOGNIZERS): Detection[] {
  if (detections.length < 2) return detections.slice();
  const rank = new Map(order.map((r, i) => [r.type, i] as const));
  const ranked = detections.slice().sort(
    (a, b) =>
      Number(b.checksum) - Number(a.checksum) ||
      b.end - b.start - (a.end - a.start) ||
      a.start - b.start ||
      (rank.get(a.type) ?? 99) - (rank.get(b.type) ?? 99),
  );
  const kept: Detection[] = [];
  for (const d of ranked) {
    if (kept.some((k) => d.start < k.end && k.start < d.end)) continue;
    kept.push(d);
  }
  return kept.sort((a, b) => a.start - b.start);
}

const FRENCH_TITLE = /(?<![\p{L}\p{N}])M\.[ \u00a0]+\p{Lu}/u;

/**
 * Whether the language of `text` can change what `detectEntities` finds. It does only through the
 * default phone region (text with digits) and the French title "M." — so a caller with language
 * 'auto' can skip language detection for other texts.
 */
export function languageMatters(text: string): boolean {
  return hasDigit(text) || FRENCH_TITLE.test(text);
}

export function detectEntities(text: string, language: Language, recognizers: readonly Recognizer[] = RECOGNIZERS): Detection[] {
  if (text.length === 0) return [];
  const digits = hasDigit(text);
  const all: Detection[] = [];
  for (const r of recognizers) {
    if (r.needsDigit && !digits) continue;
    for (const d of r.detect(text, language)) all.push(d);
  }
  return resolveOverlaps(all, recognizers);
}
