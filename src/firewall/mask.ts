// Masking: replaces each detection with its typed, numbered placeholder from the request's vault.
import { detectEntities } from './detect.js';
import { detectLanguage } from './language.js';
import { RECOGNIZERS } from './recognizers/index.js';
import type { TextScan } from './scan.js';
import type { Detection, Language } from './types.js';
import type { Vault } from './vault.js';

export interface MaskResult {
  text: string;
  detections: Detection[];
}

/**
 * Masks `text`, returning the masked text and what was found (offsets refer to the input). `scan`
 * may pass the text's pre-scan when the caller already made one.
 */
export function maskTextDetailed(text: string, language: Language, vault: Vault, scan?: TextScan): MaskResult {
  const detections = detectEntities(text, language, RECOGNIZERS, scan);
  if (detections.length === 0) return { text, detections };
  const parts: string[] = [];
  let last = 0;
  for (const d of detections) {
    parts.push(text.slice(last, d.start), vault.placeholderFor(d));
    last = d.end;
  }
  parts.push(text.slice(last));
  return { text: parts.join(''), detections };
}

export function maskText(text: string, language: Language, vault: Vault): string {
  return maskTextDetailed(text, language, vault).text;
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) collectStrings(v, out);
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, f);
    return out;
  }
  return value;
}

/**
 * Masks the string values of a JSON document (tool-call arguments), leaving keys, numbers and
 * structure alone. The language is detected over all string values together when `language` is
 * 'auto'. Text that is not valid JSON is masked as plain text.
 */
export function maskJsonArguments(json: string, language: Language | 'auto', vault: Vault, fallback: Language = 'en'): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    const lang = language === 'auto' ? detectLanguage(json, fallback) : language;
    return maskText(json, lang, vault);
  }
  let lang: Language;
  if (language === 'auto') {
    const strings: string[] = [];
    collectStrings(parsed, strings);
    lang = detectLanguage(strings.join('\n'), fallback);
  } else {
    lang = language;
  }
  let changed = false;
  const masked = mapStrings(parsed, (s) => {
    const m = maskText(s, lang, vault);
    if (m !== s) changed = true;
    return m;
  });
  // Unchanged arguments keep their exact original formatting.
  return changed ? JSON.stringify(masked) : json;
}
