// The pre-scan (scan.ts) and the candidate-driven regex matching must find exactly what the
// recognizers found when each regex walked the whole text: detectEntities is compared with the
// reference scan (every regex run globally) on the evaluation set, the benchmark texts and a
// generated corpus of tricky texts. Also the two-character prefix sets derived from the cue
// regexes (regex-prefix.ts).
import { expect } from 'chai';
import { detectEntities } from '../../src/firewall/detect.js';
import { RECOGNIZERS } from '../../src/firewall/recognizers/index.js';
import { foldCode, wordPrefixFilter } from '../../src/firewall/regex-prefix.js';
import { Matcher, scanOf, scanText, type TextScan } from '../../src/firewall/scan.js';
import { LANGUAGES, type Detection, type Language } from '../../src/firewall/types.js';
import { CHAT_PROMPTS, PROMPTS_2000, digitHeavyTexts, longDocument } from '../../bench/firewall-corpus.js';
import { loadConversations, loadSnippets } from './eval-lib.js';

function key(ds: Detection[]): string[] {
  return ds.map((d) => `${d.type} ${d.start}-${d.end} ${d.text} ${d.normalized ?? ''}`);
}

function reference(text: string, lang: Language): Detection[] {
  return detectEntities(text, lang, RECOGNIZERS, scanText(text, { reference: true }));
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

// Pieces that exercise every recognizer and the pre-scan's edge cases: separators around numbers,
// month names, postcodes, IPv6, cue words and titles next to names, non-ASCII and astral letters,
// the two non-ASCII characters that fold to ASCII letters (K, ſ), line breaks.
const PIECES = [
  'Jan', 'de Vries', 'Pieter Bakker', 'Sanne', 'Dhr.', 'Mevr.', 'M.', 'Mme', 'Herr', 'Frau', 'Mr', 'Dr.', 'mijn naam is', 'Naam:',
  'Name:', "je m'appelle", 'ich heiße', 'Hoi', 'Dear', 'Bonjour', 'Liebe', 'Groeten,', 'Regards,', 'Met vriendelijke groet,',
  't.n.v.', 'c/o', 'and', 'en', 'und', 'et', 'Albert Heijn', 'Hugo Boss', 'Will', 'May', 'Paris', 'O’Brien', 'Jean-Pierre', 'DUPONT',
  'Zoë', 'Łukasz', 'Émile', '𝐀lice', 'ſir', 'Kate', 'Grüße', 'GRÜẞE', 'the', 'de', 'het', 'die', 'le', 'the order', 'invoice',
  'factuur', 'BSN', 'tel:', 'bel me op', 'IBAN', 'geboren op', 'born on', 'né le', 'Geburtsdatum:', 'version', 'build',
  '06 12345678', '06-12345678', '+31 6 12345678', '0031 6 12345678', '020 794 6120', '+44 20 7946 0018', '07823 456719',
  '0151 23456789', '01 42 68 53 00', '(06) 12345678', '111222333', '1234.56.782', '86095742719', '1 85 05 78 006 084 36',
  '85.07.30-033.28', 'AB 12 34 56 C', 'JG103759A', 'NI no', 'NL91 ABNA 0417 1643 00', 'NL91ABNA0417164300', 'DE89 3704 0044 0532 0130 00', '4111 1111 1111 1111',
  '4624 5830 7045 2076', '192.168.1.20', '10.0.19045.1', 'v1.2.3.4', '2a02:a44a:5c1e:0:8d1b:3f2c:91e4:7a10', 'fe80::1', '14:32:10',
  '::', 'a::b', '31-12-1985', '31.12.1985', '1985-12-31', '31 december 1985', 'December 31, 1985', '3rd of May 1990',
  '1er mars 1990', 'Dec. 31 1985', 'Keizersgracht 123, 1015 CJ Amsterdam', 'Hauptstraße 5a, 10115 Berlin',
  '12 rue de la Paix, 75002 Paris', 'Rue de la Loi 16, 1000 Bruxelles', '221B Baker Street, London NW1 6XE', 'GIR 0AA', 'D-10115',
  '2024', '1.234,56', '€ 59,95', '#4471902', 'order 88421937', '12/26', '2024-0815', '3', '42', '1.5', 'x@y.nl', 'jan@example.nl',
  '\n', '\n\n', ',', '.', ':', ';', '(', ')', '-', '/', '’', "'", '  ', '\t', '\u00a0',
];

function generated(count: number, seed: number): string[] {
  const rnd = lcg(seed);
  const out: string[] = [];
  for (let t = 0; t < count; t++) {
    const n = 3 + Math.floor(rnd() * 40);
    let s = '';
    for (let k = 0; k < n; k++) {
      const p = PIECES[Math.floor(rnd() * PIECES.length)]!;
      const sep = rnd() < 0.15 ? '' : rnd() < 0.9 ? ' ' : '\n';
      s += sep + p;
    }
    out.push(s);
  }
  return out;
}

describe('firewall pre-scan', () => {
  it('finds exactly what whole-text regex scanning finds (evaluation set, benchmark texts)', function () {
    this.timeout(30_000);
    const texts: Array<[string, Language]> = [
      ...loadSnippets().map((s) => [s.text, s.lang] as [string, Language]),
      ...loadConversations().flatMap((c) => c.messages.map((m) => [m.text, m.lang] as [string, Language])),
      ...[...CHAT_PROMPTS, ...PROMPTS_2000].map((p) => [p.text, p.lang] as [string, Language]),
      ...digitHeavyTexts(4000).map((t) => [t, 'nl'] as [string, Language]),
      ...LANGUAGES.map((l) => [longDocument(l, 8000), l] as [string, Language]),
    ];
    for (const [text, lang] of texts) expect(key(detectEntities(text, lang)), text.slice(0, 80)).to.deep.equal(key(reference(text, lang)));
  });

  it('finds exactly what whole-text regex scanning finds (generated texts, sparse and dense)', function () {
    this.timeout(60_000);
    const texts = generated(600, 7);
    // Long prose with a few numbers: the candidates are sparse, so the sticky path is taken.
    const prose = longDocument('en', 6000);
    for (const t of generated(60, 11)) texts.push(prose.slice(0, 2500) + ' ' + t + ' ' + prose.slice(2500));
    let found = 0;
    for (const text of texts) {
      for (const lang of ['nl', 'fr'] as Language[]) {
        const ds = detectEntities(text, lang);
        found += ds.length;
        expect(key(ds), JSON.stringify(text)).to.deep.equal(key(reference(text, lang)));
      }
    }
    expect(found).to.be.greaterThan(1000); // the texts do contain entities
  });

  it('skipping phone candidates inside checksum detections changes nothing', function () {
    this.timeout(60_000);
    // A copy of the recognizer list turns the shortcut off (see detectEntities).
    const unclaimed = [...RECOGNIZERS];
    const texts = [
      ...generated(400, 13),
      'IBAN NL91 ABNA 0417 1643 00 of bel 0417 164300',
      'BSN 111222333 en kaart 4111 1111 1111 1111, bel 06 12345678',
      'Steuer-ID 86095742719 / 0151 23456789',
    ];
    for (const text of texts) {
      for (const lang of ['nl', 'de'] as Language[]) {
        expect(key(detectEntities(text, lang)), JSON.stringify(text)).to.deep.equal(key(detectEntities(text, lang, unclaimed)));
      }
    }
  });

  it('records digit runs, colon runs, capitalised words and cue word starts', () => {
    const s = scanText('Hoi Jan, bel 06-1234 of 2a02::1 om 14:30. O’Brien x3 É');
    expect(s.digitRuns.map((i) => s.text[i])).to.deep.equal(['0', '1', '2', '0', '1', '1', '3', '3']);
    expect(s.colonRuns.map((i) => s.text.slice(i, i + 2))).to.deep.equal(['::']);
    expect(s.capAt.map((i) => s.text[i])).to.deep.equal(['H', 'J', 'O', 'É']); // not the B of O’Brien
    expect(s.cueAt.map((i) => s.text.slice(i, i + 3))).to.include.members(['Hoi', 'bel']);
  });

  it('a reference scan walks the whole text with the global regex; a normal one tries only the candidates', () => {
    const text = 'call 06-1234 or 06-5678';
    const digitsAt = (scan: TextScan, starts: number[]) => {
      const m = new Matcher(/\d+/g, scan, starts);
      const found: string[] = [];
      for (let r = m.exec(); r; r = m.exec()) found.push(r[0]);
      return found;
    };
    // Only the candidate at 'or 06' (index 16) is offered: the pre-scan path finds what starts there.
    expect(digitsAt(scanText(text), [16])).to.deep.equal(['06']);
    expect(digitsAt(scanText(text, { reference: true }), [16])).to.deep.equal(['06', '1234', '06', '5678']);
    // A scan made for part of a reference scan's text stays a reference scan.
    expect(scanOf('06-5678', scanText(text, { reference: true })).reference).to.equal(true);
  });

  describe('prefix sets of regexes', () => {
    const allowed = (src: string, s: string) => {
      const { keys } = wordPrefixFilter(src);
      return keys[foldCode(s.charCodeAt(0)) * 128 + foldCode(s.length > 1 ? s.charCodeAt(1) : 0)] === 1;
    };

    it('admits every possible start and folds case', () => {
      const src = "(?:mijn naam is|(?:voor|achter)?naam\\s*:|i['’]m|hi|M\\.|[Dd]e heer|gr\\.|à l['’]attention)[ \\t]*";
      for (const s of ['mijn', 'MIJN', 'naam', 'voornaam', 'achternaam', "i'm", 'i’m', 'hi', 'hier', 'M.', 'de heer', 'De', 'gr.', 'à l', 'À l']) {
        expect(allowed(src, s), s).to.equal(true);
      }
      for (const s of ['the', 'zo', 'ik', 'mx', 'ga']) expect(allowed(src, s), s).to.equal(false);
    });

    it('knows the Unicode case foldings to ASCII (KELVIN SIGN, LONG S)', () => {
      expect(allowed('(?:kate|sir)', '\u212aa')).to.equal(true);
      expect(allowed('(?:kate|sir)', '\u017fi')).to.equal(true);
    });

    it('refuses patterns that can start with a non-letter or match nothing', () => {
      expect(() => wordPrefixFilter('(?:\\d+|abc)')).to.throw(/non-letter/);
      expect(() => wordPrefixFilter('a?')).to.throw(/empty string/);
      expect(() => wordPrefixFilter('(?:ab')).to.throw();
    });
  });
});

describe('firewall pre-scan: digit clusters', () => {
  it('counts the digits of the number starting at each digit run, as clusterDigits does', async () => {
    const { clusterDigits, runsWithDigits } = await import('../../src/firewall/scan.js');
    for (const text of ['1 85 05 78 006 084 36', 'NL91 ABNA 0417 1643 00', '12-34 5678..9 1/2/3 4  5', '2024-03-08T02:34:13.375Z 10.6.114.31', '9']) {
      const s = scanText(text);
      for (const min of [1, 2, 4, 9, 12]) {
        expect(runsWithDigits(s, min), `${text} ${min}`).to.deep.equal(s.digitRuns.filter((p) => clusterDigits(text, p) >= min));
      }
    }
    expect(clusterDigits('1 85 05 78 006 084 36', 0)).to.equal(15);
    expect(clusterDigits('12  34', 0)).to.equal(2);
  });

  it('with wide gaps, counts groups up to three spaces or a tab apart as one number', async () => {
    const { clusterDigits, runsWithDigits } = await import('../../src/firewall/scan.js');
    for (const text of ['DE89  3704  0044', '1234\t56\t782', '12    34', '1 2  3   4    5', '12 \t34']) {
      const s = scanText(text);
      for (const min of [1, 2, 4, 9]) {
        expect(runsWithDigits(s, min, 'wide'), `${text} ${min}`).to.deep.equal(s.digitRuns.filter((p) => clusterDigits(text, p, 'wide') >= min));
      }
    }
    expect(clusterDigits('1234  56  782', 0, 'wide')).to.equal(9);
    expect(clusterDigits('1234\t56\t782', 0, 'wide')).to.equal(9);
    expect(clusterDigits('12    34', 0, 'wide')).to.equal(2);
    expect(clusterDigits('12 \t34', 0, 'wide')).to.equal(2);
  });
});
