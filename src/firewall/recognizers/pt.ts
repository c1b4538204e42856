// Portuguese ids pasted among the four languages, as the Spanish, Italian and Polish ones are
// (national-ids-es-it-pl.ts). The NIF (número de identificação fiscal, "o meu NIF é 232013969")
// has a mod-11 check digit, but nine digits that pass it are one in eleven of all nine-digit
// numbers (invoices, orders), so it is read only with its label near and nearer than an order,
// invoice or amount word of the four languages or of Portuguese ("fatura n.º 232013969" stays); a
// company's NIF (from 5) is none of a person's. Typed ID_NUMBER. The Cartão de Cidadão's number is
// read after its name (identity-document.ts); phone numbers in phone-es-it-pl.ts, dates of birth
// in date-of-birth.ts, addresses in address.ts and street.ts.
import { digitsOnly, nifValid } from '../checksums.js';
import type { TextScan } from '../scan.js';
import type { Detection, Language, Recognizer } from '../types.js';
import { numericIdRecognizer } from './numeric-id.js';

const NIF_CUE = /\bnif\b|contribuinte|identifica[çc][ãa]o fiscal|\bn\.?º? fiscal\b/i;

const nif = numericIdRecognizer({
  type: 'ID_NUMBER',
  candidate: /(?<![\p{L}\p{N}.,/+-])(?:\d{9}|\d{3} \d{3} \d{3})(?![\p{L}\p{N}]|[.,/-]\d)/gu,
  compact: digitsOnly,
  valid: nifValid,
  minDigits: 9,
  requireCue: true,
  cue: NIF_CUE,
});

// Portuguese words for what else nine digits number: orders, invoices, amounts, receipts, tracking.
const PT_NEGATIVE = /encomenda|fatura|recibo|\bvalor\b|pre[çc]o|refer[êe]ncia|\bpedido|\bprotocolo|rastreio|\bconta\b|montante|\btotal\b/giu;
const NIF_CUE_G = new RegExp(NIF_CUE.source, 'giu');
const WINDOW = 48;

/** The end of the last match of `re` in `before`, or -1. */
function lastEnd(re: RegExp, before: string): number {
  let end = -1;
  re.lastIndex = 0;
  for (let m = re.exec(before); m !== null; m = re.exec(before)) end = m.index + m[0].length;
  return end;
}

export const nifRecognizer: Recognizer = {
  type: 'ID_NUMBER',
  needsDigit: true,
  detect(text: string, language: Language, scan?: TextScan): Detection[] {
    const found = nif.detect(text, language, scan);
    if (found.length === 0) return found;
    return found.filter((d) => {
      let before = text.slice(Math.max(0, d.start - WINDOW), d.start);
      const nl = before.lastIndexOf('\n');
      if (nl >= 0) before = before.slice(nl + 1);
      return lastEnd(PT_NEGATIVE, before) <= lastEnd(NIF_CUE_G, before);
    });
  },
};
