import { expect } from 'chai';
import { detectEntities } from '../../src/firewall/detect.js';
import { createFirewall } from '../../src/firewall/firewall.js';
import { lineBreakView, startInText } from '../../src/firewall/line-breaks.js';
import { loadSnippets } from './eval-lib.js';

// Zero-width and format characters inside personal data — pasted from a word processor, a chat
// client, a PDF — must not hide it: detection reads through them, and what is restored is the text
// as written, invisible characters included.
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];

describe('invisible characters inside personal data', () => {
  const cases: Array<[string, string]> = [
    ['mail jan\u200b@example.nl', 'mail [EMAIL_1]'],
    ['mail jan@exa\u200dmple.nl', 'mail [EMAIL_1]'],
    ['Mijn naam is Jan\u00adsen', 'Mijn naam is [PERSON_1]'],
    ['Ik ben Pieter Jan\u00adsen', 'Ik ben [PERSON_1]'],
    ['Groeten, Pie\u200bter de Vries', 'Groeten, [PERSON_1]'],
    ['IBAN NL91\u200bABNA0417164300', 'IBAN [IBAN_1]'],
    ['IBAN NL91\u2060ABNA\u200b0417\u200c1643\u00ad00', 'IBAN [IBAN_1]'],
    ['bel 06\u200b12345678', 'bel [PHONE_1]'],
    ['bsn 1234\ufeff56782', 'bsn [BSN_1]'],
    ['\ufeffNaam: Pieter Jansen', '\ufeffNaam: [PERSON_1]'],
  ];
  for (const [text, expected] of cases) {
    it(`masks ${JSON.stringify(text)} and restores it as written`, () => {
      const fw = createFirewall({ language: 'nl' });
      const masked = fw.mask(text);
      expect(masked).to.equal(expected);
      expect(fw.restore(masked)).to.equal(text);
    });
  }

  it('gives a value with invisible characters the placeholder of the value without them', () => {
    const fw = createFirewall({ language: 'nl' });
    expect(fw.mask('Mijn naam is Pieter Jan\u00adsen, mail jan\u200b@example.nl')).to.equal('Mijn naam is [PERSON_1], mail [EMAIL_1]');
    expect(fw.mask('Pieter Jansen: jan@example.nl')).to.equal('[PERSON_1]: [EMAIL_1]');
  });

  it('maps offsets of the view back over every character left out', () => {
    const view = lineBreakView('a\u200bb\r\nc\u00ad\u00add')!;
    expect(view.text).to.equal('ab\ncd');
    expect([0, 1, 2, 3, 4].map((v) => startInText(view, v))).to.deep.equal([0, 2, 4, 5, 8]);
    expect(lineBreakView('plain text\n')).to.equal(null);
  });

  it('finds in every labelled snippet, with invisible characters inside each value, what it finds without them', () => {
    let n = 0;
    for (const s of loadSnippets()) {
      if (s.entities.length === 0) continue;
      let text = s.text;
      for (const [k, e] of s.entities.entries()) {
        if (e.value.length < 4) continue;
        const mid = Math.floor(e.value.length / 2);
        const spelled = e.value.slice(0, mid) + INVISIBLE[k % INVISIBLE.length] + e.value.slice(mid);
        text = text.replace(e.value, spelled);
      }
      const strip = (t: string) => t.replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '');
      const plain = detectEntities(s.text, s.lang).map((d) => `${d.type} ${d.text}`);
      const seen = detectEntities(text, s.lang).map((d) => `${d.type} ${strip(d.text)}`);
      expect(seen, `${s.id}: ${JSON.stringify(text)}`).to.deep.equal(plain);
      n++;
    }
    expect(n).to.be.greaterThan(400);
  });
});
