import { expect } from 'chai';
import { composedView } from '../../src/firewall/composed.js';
import { createFirewall } from '../../src/firewall/index.js';
import type { Language } from '../../src/firewall/types.js';
import { loadPasted, loadSnippets } from './eval-lib.js';

// QA 2026-11-27: letters pasted decomposed (NFD: macOS, PDFs) were read in pieces, and the rest of a
// name or an address was sent in clear ("Mijn naam is [PERSON_1]\u0301 García"). The firewall reads
// them as what they show (composed.ts) and masks them as written, whole.
describe('firewall QA: decomposed letters', () => {
  /** Masks `text` with a new firewall, checks that the masked text restores to it byte for byte. */
  const masks = (text: string, expected: string) => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask(text);
    expect(masked, JSON.stringify(text)).to.equal(expected);
    expect(fw.restore(masked), JSON.stringify(text)).to.equal(text);
    return fw;
  };
  const unchanged = (texts: string[]) => {
    for (const text of texts) expect(createFirewall({ language: 'auto' }).mask(text), JSON.stringify(text)).to.equal(text);
  };

  describe('decomposed letters (NFD)', () => {
    it('masks a name with decomposed accents whole, no combining mark left behind (QA samples)', () => {
      masks('Mijn naam is Jose\u0301 Garci\u0301a', 'Mijn naam is [PERSON_1]');
      masks('Sehr geehrte Frau Mu\u0308ller', 'Sehr geehrte Frau [PERSON_1]');
      masks('Herr Ju\u0308rgen Bra\u0308ndle', 'Herr [PERSON_1]');
      masks('Bjo\u0308rn Sa\u0308ger', '[PERSON_1]');
      masks('Mme E\u0301lodie Fontaine, ne\u0301e le 12 mars 1980', 'Mme [PERSON_1], ne\u0301e le [DATE_OF_BIRTH_1]');
    });

    it('masks an address with its decomposed town whole', () => {
      masks('Lindenstraße 14, 80331 Mu\u0308nchen', '[ADDRESS_1]');
      masks('Lindenstra\u00dfe 14\n80331 Mu\u0308nchen', '[ADDRESS_1]');
    });

    it('masks the same as the composed text does, and a name written both ways shares one placeholder', () => {
      for (const nfc of ['Mijn naam is José García', 'Sehr geehrte Frau Müller', 'Herr Jürgen Brändle', 'Björn Säger', 'Mme Élodie Fontaine, née le 12 mars 1980']) {
        expect(createFirewall({ language: 'auto' }).mask(nfc.normalize('NFD')), nfc).to.equal(createFirewall({ language: 'auto' }).mask(nfc).normalize('NFD'));
      }
      const fw = createFirewall({ language: 'auto' });
      expect(fw.mask('Mijn naam is Jose\u0301 Garci\u0301a')).to.equal('Mijn naam is [PERSON_1]');
      expect(fw.mask('José García belt morgen terug')).to.equal('[PERSON_1] belt morgen terug');
      // The value as first written: decomposed, byte for byte.
      expect(fw.restore('[PERSON_1]')).to.equal('Jose\u0301 Garci\u0301a');
    });

    it('never splits a letter from its marks, nor leaves marks for the model', () => {
      // Vietnamese: two marks on one letter; a mark with no composed letter ("x\u0301") stays with its letter.
      const fw = masks('Mijn naam is Nguye\u0302\u0303n Thi\u0323 Lan', 'Mijn naam is [PERSON_1]');
      expect(fw.restore('[PERSON_1]')).to.equal('Nguye\u0302\u0303n Thi\u0323 Lan');
      const view = composedView('Jose\u0301 x\u0301y')!;
      expect(view.text).to.equal('José xy');
      expect(Array.from(view.at)).to.deep.equal([0, 1, 2, 3, 5, 6, 8, 9]);
    });

    it('leaves text whose marks belong to no name as written', () => {
      unchanged(['\u0301 a leading mark', '1\ufe0f\u20e3 2\ufe0f\u20e3 keycaps', 'Zalgo H\u0336\u0321\u0334e\u0338\u0337\u0335\u0334\u0336\u0321\u0322\u0327\u0328\u0334llo wereld', 'na\u0131\u0308ve cafe\u0301']);
      expect(composedView('plain text, nothing decomposed: café')).to.equal(null);
    });
  });

  describe('with the other views', () => {
    it('reads decomposed letters escaped in JSON', () => {
      const fw = createFirewall({ language: 'auto' });
      const record = '{"customer":"Jose\\u0301 Garci\\u0301a","city":"Mu\\u0308nchen"}';
      const masked = fw.mask(record);
      expect(masked).to.equal('{"customer":"[PERSON_1]","city":"[ADDRESS_1]"}');
      expect(JSON.parse(fw.restore(masked))).to.deep.equal(JSON.parse(record));
    });

    it('reads decomposed letters beside "\\r\\n" and invisible characters', () => {
      masks('Kastanjelaan 31\r\n3722 GB Bilthoven\r\nMijn naam is Jo\u200bse\u0301 Garci\u0301a', '[ADDRESS_1]\r\nMijn naam is [PERSON_1]');
    });
  });

  describe('every labelled text, spelled decomposed, is masked as written composed', () => {
    const labelled = () => [...loadSnippets(), ...loadPasted('pasted.jsonl')];
    /** Masks `written` and checks that it gives `expected` and restores to itself. */
    const same = (written: string, expected: string, lang: Language) => {
      const fw = createFirewall({ language: lang });
      const masked = fw.mask(written);
      expect(masked, JSON.stringify(written)).to.equal(expected);
      expect(fw.restore(masked)).to.equal(written);
    };

    it('decomposed (NFD)', () => {
      const texts = labelled().filter((s) => s.text.normalize('NFD') !== s.text);
      expect(texts.length).to.be.greaterThan(20);
      for (const s of texts) {
        const plain = createFirewall({ language: s.lang as Language }).mask(s.text);
        same(s.text.normalize('NFD'), plain.normalize('NFD'), s.lang as Language);
      }
    });
  });

  describe('cost on adversarial text', function () {
    this.timeout(60_000);
    const SIZE = 1_000_000;
    const DEADLINE_MS = 2_000;
    const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
    const floods: Array<[string, string]> = [
      ['decomposed names', fill('Jose\u0301 ')],
      ['decomposed letters', fill('e\u0301')],
      ['stacked marks', fill('H\u0336\u0321\u0334e\u0338\u0337\u0335\u0334\u0336\u0321\u0322\u0327\u0328\u0334')],
      ['one run of a million marks', 'a' + '\u0301\u0316'.repeat(SIZE / 2)],
    ];
    for (const [name, flood] of floods) {
      it(`${name}: 1 MB masked within ${DEADLINE_MS} ms of CPU, the identifiers in it masked`, () => {
        const id = '\nMijn naam is Xiomara Okafor, mail xiomara.okafor@example.nl.\n';
        const text = id + flood + id;
        const started = process.cpuUsage();
        const masked = createFirewall({ language: 'auto' }).mask(text);
        const spent = process.cpuUsage(started);
        expect((spent.user + spent.system) / 1000, 'ms').to.be.below(DEADLINE_MS);
        for (const value of ['Xiomara', 'Okafor', 'xiomara.okafor@example.nl']) expect(masked.includes(value), value).to.equal(false);
      });
    }
  });
});
