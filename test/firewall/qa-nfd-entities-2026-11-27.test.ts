import { expect } from 'chai';
import { composedView } from '../../src/firewall/composed.js';
import { createFirewall } from '../../src/firewall/index.js';
import { markupView } from '../../src/firewall/html-entities.js';
import type { Language } from '../../src/firewall/types.js';
import { loadPasted, loadSnippets } from './eval-lib.js';

// QA 2026-11-27: letters pasted decomposed (NFD: macOS, PDFs) and HTML mail with character entities
// and <br> were read in pieces, and the rest of a name or an address was sent in clear
// ("Mijn naam is [PERSON_1]\u0301 García", "[PERSON_1]&ccedil;ois M&uuml;ller"). The firewall reads
// both as what they show (composed.ts, html-entities.ts) and masks them as written, whole.
describe('firewall QA: decomposed letters and HTML entities', () => {
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

  describe('HTML character entities and line-break tags', () => {
    it('masks names written with entities whole (QA samples)', () => {
      masks('Mijn naam is Anouk&nbsp;Visser', 'Mijn naam is [PERSON_1]');
      masks('Mijn naam is Fran&ccedil;ois M&uuml;ller', 'Mijn naam is [PERSON_1]');
      masks('<b>Sabine M&uuml;ller</b>', '<b>[PERSON_1]</b>');
      masks('Dear&nbsp;Mrs&nbsp;Clarke', 'Dear&nbsp;Mrs&nbsp;[PERSON_1]');
      masks('Geachte&nbsp;heer&nbsp;Jansen,', 'Geachte&nbsp;heer&nbsp;[PERSON_1],');
      masks('Mijn naam is Ren&#233;e Dijkstra, mail &lt;renee@example.nl&gt;', 'Mijn naam is [PERSON_1], mail &lt;[EMAIL_1]&gt;');
      masks('Mijn naam is Ren&#xE9;e Dijkstra', 'Mijn naam is [PERSON_1]');
      masks('Bel O&#39;Brien op 06&nbsp;12&nbsp;34&nbsp;56&nbsp;78', 'Bel [PERSON_1] op [PHONE_1]');
    });

    it('reads <br>, <p> and <div> as line breaks: an address over lines is masked whole, its tags inside the placeholder', () => {
      masks('Kastanjelaan&nbsp;31<br>3722&nbsp;GB&nbsp;Bilthoven<br>', '[ADDRESS_1]<br>');
      masks('Kastanjelaan 31<br/>3722 GB Bilthoven', '[ADDRESS_1]');
      masks('<div>Sabine M&uuml;ller</div><div>Lindenstra&szlig;e 14</div><div>80331 M&uuml;nchen</div>', '<div>[PERSON_1]</div><div>[ADDRESS_1]</div>');
      masks('<p class=MsoNormal>Lindenstraße 14</p>\n<p class=MsoNormal>80331 München</p>', '<p class=MsoNormal>[ADDRESS_1]</p>');
      masks('Lindenstraße 14<br>\n80331 München', '[ADDRESS_1]');
      const view = markupView('a<br>\nb</div><div>c<br><br>d')!;
      expect(view.text).to.equal('a\nb\nc\n\nd');
    });

    it('gives tool-call arguments the value as it reads, and a reply the value as written', () => {
      const fw = masks('Mijn naam is Fran&ccedil;ois M&uuml;ller<br>Kastanjelaan&nbsp;31<br>3722&nbsp;GB&nbsp;Bilthoven', 'Mijn naam is [PERSON_1]<br>[ADDRESS_1]');
      expect(JSON.parse(fw.restoreToolArguments('{"name":"[PERSON_1]","address":"[ADDRESS_1]"}'))).to.deep.equal({
        name: 'François Müller',
        address: 'Kastanjelaan\u00a031\n3722\u00a0GB\u00a0Bilthoven',
      });
      expect(fw.restore('Dag [PERSON_1]')).to.equal('Dag Fran&ccedil;ois M&uuml;ller');
    });

    it('leaves an ampersand that starts no entity, and entities that name no one, as written', () => {
      unchanged(['Smit & Zonen', 'R&D', 'a&b', 'a&b&c', 'Smit &amp; Zonen B.V.', 'R&amp;D afdeling', '&copy 2024', 'x &#0; y &#xD800; z &#1114112;', '&lt;br&gt; is a tag', 'if (a<b && c>d) return;', '<pre>code</pre> <param> <b>bold</b>']);
      expect(markupView('Smit & Zonen, R&D, a&b')).to.equal(null);
      expect(markupView('&lt;br&gt;')!.text).to.equal('<br>');
    });

    it('reads a URL query with "&amp;" as before', () => {
      masks('<a href="/zoek?x=1&amp;achternaam=Visser">', '<a href="/zoek?x=1&amp;achternaam=[PERSON_1]">');
      masks('Stuur naar <a href="mailto:jan@example.nl?subject=Hoi&amp;body=x">Jan</a>', 'Stuur naar <a href="mailto:[EMAIL_1]?subject=Hoi&amp;body=x">Jan</a>');
    });
  });

  describe('with the other views', () => {
    it('reads HTML with entities in a JSON string, its line breaks escaped or as tags, and the JSON stays valid', () => {
      const record = '{"body":"<p>Geachte heer Jansen,</p><p>Mijn naam is Fran&ccedil;ois M&uuml;ller<br>Kastanjelaan&nbsp;31<br>3722&nbsp;GB&nbsp;Bilthoven</p>"}';
      const fw = masks(record, '{"body":"<p>Geachte heer [PERSON_1],</p><p>Mijn naam is [PERSON_2]<br>[ADDRESS_1]</p>"}');
      expect(JSON.parse(fw.mask(record))).to.be.an('object');
      const escaped = createFirewall({ language: 'auto' });
      const html = '{"html":"\\u003cb\\u003eSabine M&uuml;ller\\u003c/b\\u003e\\u003cbr\\u003eLindenstra&szlig;e 14\\u003cbr\\u003e80331 Mu\\u0308nchen","note":"Mijn naam is Fran\\u0026ccedil;ois Dupont"}';
      const masked = escaped.mask(html);
      expect(masked).to.equal('{"html":"\\u003cb\\u003e[PERSON_1]\\u003c/b\\u003e\\u003cbr\\u003e[ADDRESS_1]","note":"Mijn naam is [PERSON_2]"}');
      expect(JSON.parse(escaped.restore(masked))).to.deep.equal(JSON.parse(html));
    });

    it('reads decomposed letters escaped in JSON, and written as numeric entities', () => {
      const fw = createFirewall({ language: 'auto' });
      const record = '{"customer":"Jose\\u0301 Garci\\u0301a","city":"Mu\\u0308nchen"}';
      const masked = fw.mask(record);
      expect(masked).to.equal('{"customer":"[PERSON_1]","city":"[ADDRESS_1]"}');
      expect(JSON.parse(fw.restore(masked))).to.deep.equal(JSON.parse(record));
      masks('Mijn naam is Jose&#769; Garci&#x301;a', 'Mijn naam is [PERSON_1]');
    });

    it('reads entities and decomposed letters beside "\\r\\n" and invisible characters', () => {
      masks('Kastanjelaan 31\r\n3722&nbsp;GB Bilthoven\r\nMijn naam is Jo\u200bse\u0301 Garci\u0301a', '[ADDRESS_1]\r\nMijn naam is [PERSON_1]');
      masks('Kastanjelaan&nbsp;31<br>\r\n3722 GB Bilthoven', '[ADDRESS_1]');
    });
  });

  describe('every labelled text, spelled decomposed or as HTML, is masked as written plainly', () => {
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

    it('as HTML: letters beyond ASCII as entities, spaces as "&nbsp;", line breaks as "<br>"', () => {
      const NAMED: Record<string, string> = { é: '&eacute;', è: '&egrave;', ë: '&euml;', ü: '&uuml;', ö: '&ouml;', ä: '&auml;', ß: '&szlig;', ç: '&ccedil;', à: '&agrave;', ï: '&iuml;', ô: '&ocirc;', É: '&Eacute;', ñ: '&ntilde;' };
      const html = (text: string) =>
        text.replace(/[ \n]|[^\x00-\x7f]/gu, (c) => (c === ' ' ? '&nbsp;' : c === '\n' ? '<br>' : (NAMED[c] ?? `&#${c.codePointAt(0)};`)));
      const texts = labelled().filter((s) => !/[&<\r]|\n[ \t]*\n/.test(s.text));
      expect(texts.length).to.be.greaterThan(100);
      for (const s of texts) {
        const plain = createFirewall({ language: s.lang as Language }).mask(s.text);
        same(html(s.text), html(plain), s.lang as Language);
      }
    });
  });

  describe('cost on adversarial text', function () {
    this.timeout(60_000);
    const SIZE = 1_000_000;
    const DEADLINE_MS = 2_000;
    const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
    const floods: Array<[string, string]> = [
      ['names with entities', fill('Fran&ccedil;ois M&uuml;ller&nbsp;')],
      ['ampersands that start no entity', fill('&&&#&#x&a')],
      ['entities without ";"', fill('&eacute')],
      ['<br>', fill('<br>')],
      ['unclosed <p', fill('<p ')],
      ['long unclosed attributes', fill('<p class="' + 'x'.repeat(190))],
      ['numeric entities of letters and marks', fill('&#233;&#x301;')],
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
