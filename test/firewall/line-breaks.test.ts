import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';
import { detectEntities } from '../../src/firewall/detect.js';
import { endInText, lineBreakView, startInText } from '../../src/firewall/line-breaks.js';
import { sliceEnd, SLICE_CHARS } from '../../src/firewall/slices.js';
import type { Language } from '../../src/firewall/types.js';
import { loadPasted, loadSnippets } from './eval-lib.js';

// Browser textareas, Windows clients and pasted e-mails send "\r\n": a text must be masked the same
// whichever line breaks it has, and restored exactly as it was written.

const mask = (text: string, language: Language | 'auto' = 'auto') => createFirewall({ language }).mask(text);
const crlf = (s: string) => s.replace(/\n/g, '\r\n');
const cr = (s: string) => s.replace(/\n/g, '\r');

/** Masks `text` and its "\r\n" and "\r" spellings; all three give the same masked text, each restored exactly. */
function expectSameForEveryLineBreak(text: string, language: Language | 'auto' = 'auto'): string {
  const expected = mask(text, language);
  for (const [spelling, spell] of [
    ['\\r\\n', crlf],
    ['\\r', cr],
  ] as const) {
    const fw = createFirewall({ language });
    const written = spell(text);
    const masked = fw.mask(written);
    expect(masked, `${spelling}: ${JSON.stringify(written)}`).to.equal(spell(expected));
    expect(fw.restore(masked)).to.equal(written);
  }
  return expected;
}

describe('line breaks: "\\r\\n" and a lone "\\r" are read as "\\n"', () => {
  it('masks an address over two lines whole, postcode and town included (QA: \\r\\n leaked "3531 KG Utrecht")', () => {
    const fw = createFirewall();
    const masked = fw.mask('Adres: Kastanjelaan 31\r\n3531 KG Utrecht');
    expect(masked).to.equal('Adres: [ADDRESS_1]');
    expect(fw.restore(masked)).to.equal('Adres: Kastanjelaan 31\r\n3531 KG Utrecht');
    expect(mask('Lieferadresse:\r\nHannah Schmidt\r\nGoethestraße 18\r\n10627 Berlin')).to.equal('Lieferadresse:\r\n[ADDRESS_1]\r\n[ADDRESS_2]');
    expect(mask('Adresse :\r\n12 rue de la Paix\r\n75002 Paris')).to.equal('Adresse :\r\n[ADDRESS_1]');
    for (const t of ['Adres: Kastanjelaan 31\n3531 KG Utrecht', 'Lieferadresse:\nHannah Schmidt\nGoethestraße 18\n10627 Berlin', 'Adresse :\n12 rue de la Paix\n75002 Paris']) {
      expectSameForEveryLineBreak(t);
    }
  });

  it('an address written with \\r\\n and with \\n shares one placeholder', () => {
    const fw = createFirewall();
    expect(fw.mask('Kastanjelaan 31\r\n3531 KG Utrecht')).to.equal('[ADDRESS_1]');
    expect(fw.mask('Kastanjelaan 31\n3531 KG Utrecht')).to.equal('[ADDRESS_1]');
  });

  it('reads a CSV table and a Markdown table', () => {
    expect(expectSameForEveryLineBreak('naam;email;telefoon\nBram Kuipers;bram@example.nl;0612345678\nAnna de Vries;anna@example.nl;0687654321', 'nl')).to.equal(
      'naam;email;telefoon\n[PERSON_1];[EMAIL_1];[PHONE_1]\n[PERSON_2];[EMAIL_2];[PHONE_2]',
    );
    const md = '| Deelnemer | Woonplaats |\n| --- | --- |\n| Sanne Bakker | Zwolle |\n| Piet Smit | Deventer |';
    expect(expectSameForEveryLineBreak(md, 'nl')).to.equal('| Deelnemer | Woonplaats |\n| --- | --- |\n| [PERSON_1] | [ADDRESS_1] |\n| [PERSON_2] | [ADDRESS_2] |');
  });

  it('reads a key-value block, and a label over its value', () => {
    const kv = 'Naam: Bram Kuipers\nGeboortedatum: 12-03-1985\nTelefoon: 06 12345678\nWoonplaats: Zwolle';
    expect(expectSameForEveryLineBreak(kv, 'nl')).to.equal('Naam: [PERSON_1]\nGeboortedatum: [DATE_OF_BIRTH_1]\nTelefoon: [PHONE_1]\nWoonplaats: [ADDRESS_1]');
    expect(expectSameForEveryLineBreak('Geburtsdatum\n27.04.1998\nOrt\nFreiburg', 'de')).to.equal('Geburtsdatum\n[DATE_OF_BIRTH_1]\nOrt\n[ADDRESS_1]');
  });

  it('reads a sign-off over the name in a signature', () => {
    expect(expectSameForEveryLineBreak('Bedankt voor de hulp.\n\nMet vriendelijke groet,\nJoost Bakker\nTel. 06 12345678', 'nl')).to.equal(
      'Bedankt voor de hulp.\n\nMet vriendelijke groet,\n[PERSON_1]\nTel. [PHONE_1]',
    );
    expect(expectSameForEveryLineBreak('Best regards\n  Lily', 'en')).to.equal('Best regards\n  [PERSON_1]');
  });

  it('masks every labelled text of the evaluation and pasted sets the same with \\r\\n and \\r as with \\n', () => {
    const texts = [...loadSnippets(), ...loadPasted('pasted.jsonl')].filter((s) => s.text.includes('\n'));
    expect(texts.length).to.be.greaterThan(50);
    for (const s of texts) expectSameForEveryLineBreak(s.text, s.lang as Language);
  });

  it('moves what it finds back to the offsets of the text as written', () => {
    const text = 'Groeten,\r\nJoost Bakker\r\n\r\nKastanjelaan 31\r\n3531 KG Utrecht\rtel 06 12345678';
    const found = detectEntities(text, 'nl');
    expect(found.map((d) => [d.type, d.text])).to.deep.equal([
      ['PERSON', 'Joost Bakker'],
      ['ADDRESS', 'Kastanjelaan 31\r\n3531 KG Utrecht'],
      ['PHONE', '06 12345678'],
    ]);
    for (const d of found) expect(text.slice(d.start, d.end)).to.equal(d.text);
    const view = lineBreakView('a\r\nb\rc\r\n')!;
    expect(view.text).to.equal('a\nb\nc\n');
    expect([0, 1, 2, 3, 4, 5].map((v) => startInText(view, v))).to.deep.equal([0, 2, 3, 4, 5, 7]);
    expect([0, 1, 2, 3, 6].map((v) => endInText(view, v))).to.deep.equal([0, 1, 3, 4, 8]);
    expect(lineBreakView('no carriage return\n')).to.equal(null);
  });

  it('masks a long text with \\r\\n slice by slice as one with \\n, and never ends a slice between \\r and \\n', () => {
    const block = 'Naam: Bram Kuipers\nAdres: Kastanjelaan 31\n3531 KG Utrecht\nTelefoon: 06 12345678\n\n';
    const long = block.repeat(Math.ceil((3 * SLICE_CHARS) / block.length));
    const withCrlf = crlf(long);
    for (let target = SLICE_CHARS - 40; target < SLICE_CHARS + 40; target++) {
      const end = sliceEnd(withCrlf, target);
      expect(withCrlf.charCodeAt(end - 1), `slice end near ${target}`).to.equal(10);
    }
    expect(sliceEnd('x'.repeat(100) + '\ry'.repeat(50), 120)).to.equal(119);
    // Slices fall elsewhere in the longer text, so a value cut by one may be numbered apart: the
    // placeholders' numbers are not compared, what is masked is.
    const unnumbered = (s: string) => s.replace(/_\d+\]/g, ']');
    const expected = unnumbered(mask(long, 'nl'));
    expect(unnumbered(mask(withCrlf, 'nl'))).to.equal(crlf(expected));
    expect(unnumbered(mask(cr(long), 'nl'))).to.equal(cr(expected));
    const fw = createFirewall({ language: 'nl' });
    expect(fw.restore(fw.mask(withCrlf))).to.equal(withCrlf);
  });
});
