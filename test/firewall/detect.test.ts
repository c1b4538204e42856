import { expect } from 'chai';
import { detectEntities, resolveOverlaps } from '../../src/firewall/detect.js';
import { detectLanguage } from '../../src/firewall/language.js';
import { maskText } from '../../src/firewall/mask.js';
import { RECOGNIZERS } from '../../src/firewall/recognizers/index.js';
import { restoreText } from '../../src/firewall/restore.js';
import { createVault } from '../../src/firewall/vault.js';
import type { Detection, Language, Recognizer } from '../../src/firewall/types.js';

function d(type: Detection['type'], start: number, end: number, checksum = false): Detection {
  return { type, start, end, text: 'x'.repeat(end - start), checksum };
}

describe('firewall detection and overlap resolution', () => {
  it('a 9-digit BSN is not a phone number', () => {
    // libphonenumber reads 111222333 as a valid Dutch (and French) number; the 11-proof wins.
    const text = 'Mijn BSN is 111222333, bel me maar.';
    for (const lang of ['nl', 'fr'] as Language[]) {
      const found = detectEntities(text, lang);
      expect(found.map((x) => [x.type, x.text])).to.deep.equal([['BSN', '111222333']]);
    }
    // Even when the phone recognizer does report the number, overlap resolution keeps the BSN.
    const phone: Detection = { type: 'PHONE', start: 12, end: 21, text: '111222333', checksum: false };
    const bsn: Detection = { type: 'BSN', start: 12, end: 21, text: '111222333', checksum: true };
    expect(resolveOverlaps([phone, bsn])).to.deep.equal([bsn]);
  });

  it('masks every identical occurrence of a value found once in the text, so code and prose stay consistent', () => {
    // "for william" is a lower-case name after "for"; "print(william)" has no cue, and was sent.
    const code = 'for william in range(10):\n    print(william)';
    expect(detectEntities(code, 'en').map((x) => [x.type, x.start, x.text])).to.deep.equal([
      ['PERSON', 4, 'william'],
      ['PERSON', 36, 'william'],
    ]);
    // A name given by a cue, repeated without it; a reference number repeated without its label.
    const prose = 'Mijn naam is Xiomara Okafor. Polisnummer IV-2024-889123. Xiomara Okafor belt over IV-2024-889123.';
    expect(detectEntities(prose, 'nl').map((x) => [x.type, x.text])).to.deep.equal([
      ['PERSON', 'Xiomara Okafor'],
      ['CUSTOMER_REF', 'IV-2024-889123'],
      ['PERSON', 'Xiomara Okafor'],
      ['CUSTOMER_REF', 'IV-2024-889123'],
    ]);
    // Only whole words, and not a name that is also a word ("Hi Mark. Mark the date.").
    expect(detectEntities('Hi Mark. Mark the date.', 'en').map((x) => x.text)).to.deep.equal(['Mark']);
    expect(detectEntities('for william in range(10): williams += william2', 'en').map((x) => x.text)).to.deep.equal(['william']);
  });

  it('masks the surname of a masked full name where it recurs alone, with a placeholder of its own', () => {
    const texts = [
      'Mijn naam is Wouter Jansen. Jansen wil een afspraak.',
      'Please call Margaret Thistlewood tomorrow. Thistlewood prefers mornings.',
      'Frau Henriette Quadflieg hat angerufen. Quadflieg möchte einen Rückruf.',
      'Klant Ruben Zwartjes belde gisteren over zijn polis. Zwartjes was boos.',
    ];
    for (const text of texts) {
      const vault = createVault();
      const masked = maskText(text, detectLanguage(text, 'en'), vault);
      expect(masked, text).to.match(/\[PERSON_1\].*\[PERSON_2\]/);
      // Its own placeholder: the answer gets back the surname alone, not the full name.
      expect(restoreText(masked, vault), text).to.equal(text);
    }
    // Not where it opens a longer capitalised name: a firm, a street.
    expect(detectEntities('Graag t.n.v. Pieter Jansen, p/a Jansen Installatietechniek B.V.', 'nl').map((x) => x.text)).to.deep.equal([
      'Pieter Jansen',
    ]);
  });

  it('checksum beats length', () => {
    const longer = d('PHONE', 0, 20);
    const checked = d('IBAN', 5, 15, true);
    expect(resolveOverlaps([longer, checked])).to.deep.equal([checked]);
  });

  it('then the longest wins', () => {
    const person = d('PERSON', 0, 10);
    const address = d('ADDRESS', 0, 30);
    expect(resolveOverlaps([person, address])).to.deep.equal([address]);
  });

  it('then the earliest wins, and non-overlapping detections all stay, in text order', () => {
    const a = d('PERSON', 5, 10);
    const b = d('PERSON', 8, 13);
    const c = d('EMAIL', 20, 30);
    expect(resolveOverlaps([c, b, a])).to.deep.equal([a, c]);
  });

  it('a card number is not also a phone number', () => {
    const found = detectEntities('Card 4111 1111 1111 1111, phone +31 6 12345678', 'en');
    expect(found.map((x) => [x.type, x.text])).to.deep.equal([
      ['CARD', '4111 1111 1111 1111'],
      ['PHONE', '+31 6 12345678'],
    ]);
  });

  it('an IBAN is not split into a BSN or phone number', () => {
    const found = detectEntities('IBAN DE89 3704 0044 0532 0130 00 graag', 'nl');
    expect(found.map((x) => [x.type, x.text])).to.deep.equal([['IBAN', 'DE89 3704 0044 0532 0130 00']]);
  });

  it('skips every digit-requiring recognizer on digit-free text', () => {
    const calls: string[] = [];
    const spies: Recognizer[] = RECOGNIZERS.map((r) => ({
      type: r.type,
      needsDigit: r.needsDigit,
      detect(text: string, lang: Language) {
        calls.push(r.type);
        return r.detect(text, lang);
      },
    }));
    detectEntities('Hoi Jan, hoe gaat het? Mail me op jan@example.nl.', 'nl', spies);
    // Two e-mail recognizers: written addresses, and addresses spelled out with at/dot; four person
    // recognizers: names in prose, surname-first names on mail header lines, mentions and passengers' names.
    expect(calls.sort()).to.deep.equal(['EMAIL', 'EMAIL', 'IP', 'PERSON', 'PERSON', 'PERSON', 'PERSON']);
    calls.length = 0;
    detectEntities('Bel 06 12345678', 'nl', spies);
    expect(calls.length).to.equal(RECOGNIZERS.length);
  });

  it('returns offsets that slice back to the detected text', () => {
    const text = 'Naam: Jan Jansen\nIBAN: NL91 ABNA 0417 1643 00\nTel: 06 12345678\nDOB: 1990-01-31 (geboren)';
    for (const x of detectEntities(text, 'nl')) expect(text.slice(x.start, x.end)).to.equal(x.text);
  });

  it('reads identifiers whose groups are two or three spaces or a tab apart, as text pasted from a PDF has them', () => {
    // They were sent in clear, or an IBAN's tail was masked as a phone number ("NL91  ABNA  [PHONE_1]").
    const cases: Array<[Language, string, Detection['type'], string]> = [
      ['de', 'IBAN DE89  3704  0044  0532  0130  00', 'IBAN', 'DE89  3704  0044  0532  0130  00'],
      ['en', 'our LU account: LU52  8274  5207  0901  3017', 'IBAN', 'LU52  8274  5207  0901  3017'],
      ['nl', 'IBAN NL91  ABNA  0417  1643  00', 'IBAN', 'NL91  ABNA  0417  1643  00'],
      ['nl', 'IBAN NL91   ABNA   0417   1643   00 graag', 'IBAN', 'NL91   ABNA   0417   1643   00'],
      ['de', 'IBAN DE89\t3704\t0044\t0532\t0130\t00', 'IBAN', 'DE89\t3704\t0044\t0532\t0130\t00'],
      ['nl', 'mijn bsn is 1234  56  782', 'BSN', '1234  56  782'],
      ['nl', 'bsn\t123\t456\t782', 'BSN', '123\t456\t782'],
      ['de', 'Steuer-ID 54  268  209  123', 'STEUER_ID', '54  268  209  123'],
      ['de', 'Steuer-ID 54\t268\t209\t123', 'STEUER_ID', '54\t268\t209\t123'],
      ['en', 'card 4106  9175  0358  5960', 'CARD', '4106  9175  0358  5960'],
      ['en', 'card 4106\t9175\t0358\t5960 exp 12/26', 'CARD', '4106\t9175\t0358\t5960'],
      ['en', 'card 4106  9175  0358  5960  12/26', 'CARD', '4106  9175  0358  5960'],
    ];
    for (const [lang, text, type, value] of cases) {
      expect(detectEntities(text, lang).map((x) => [x.type, x.text]), text).to.deep.equal([[type, value]]);
    }
  });

  it('does not join groups further apart than three spaces or a tab, nor a number to its neighbours by a wide gap', () => {
    for (const text of ['card 4106    9175    0358    5960', 'card 4106 9175  0358 5960', 'de nummers 1234  56  782  11 en 12']) {
      expect(detectEntities(text, 'en').filter((x) => x.type === 'CARD' || x.type === 'BSN'), text).to.deep.equal([]);
    }
  });
});
