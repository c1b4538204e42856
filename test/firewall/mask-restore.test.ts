import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';
import { maskJsonArguments, maskText } from '../../src/firewall/mask.js';
import { createStreamRestorer, restoreJsonArguments, restoreText, scanPlaceholder } from '../../src/firewall/restore.js';
import { createVault, type Vault } from '../../src/firewall/vault.js';

function vaultWith(entries: Array<[Parameters<Vault['placeholderFor']>[0]['type'], string]>): Vault {
  const v = createVault();
  for (const [type, text] of entries) v.placeholderFor({ type, text });
  return v;
}

/** Feeds `chunks` through a stream restorer and returns the concatenated output. */
function streamed(vault: Vault, chunks: string[], json = false): string {
  const r = createStreamRestorer(vault, { json });
  let out = '';
  for (const c of chunks) out += r.push(c);
  return out + r.flush();
}

describe('firewall masking and restoring', () => {
  describe('masking', () => {
    it('replaces each entity with a typed, numbered placeholder', () => {
      const v = createVault();
      const masked = maskText('Ik ben Jan de Vries, mail jan@example.nl of bel 06-12345678. IBAN NL91 ABNA 0417 1643 00.', 'nl', v);
      expect(masked).to.equal('Ik ben [PERSON_1], mail [EMAIL_1] of bel [PHONE_1]. IBAN [IBAN_1].');
    });

    it('numbers per type in order of first appearance, across all messages of the request', () => {
      const fw = createFirewall({ language: 'auto' });
      expect(fw.mask('Mail anna@example.com and bob@example.com please.')).to.equal('Mail [EMAIL_1] and [EMAIL_2] please.');
      expect(fw.mask('Schreiben Sie an carl@example.de und anna@example.com.')).to.equal('Schreiben Sie an [EMAIL_3] und [EMAIL_1].');
    });

    it('gives the same value the same placeholder in any notation', () => {
      const fw = createFirewall({ language: 'nl' });
      const a = fw.mask('Bel 06-12345678 of mail Jan@Example.nl');
      const b = fw.mask('Nogmaals: +31 6 12345678, jan@example.NL, IBAN NL91ABNA0417164300 en NL91 ABNA 0417 1643 00');
      expect(a).to.equal('Bel [PHONE_1] of mail [EMAIL_1]');
      expect(b).to.equal('Nogmaals: [PHONE_1], [EMAIL_1], IBAN [IBAN_1] en [IBAN_1]');
    });

    it('counts masked occurrences per type for traces, and never serialises values', () => {
      const fw = createFirewall({ language: 'en' });
      fw.mask('Mail anna@example.com, then anna@example.com again, call +44 20 7946 0018.');
      expect(fw.stats().counts).to.deep.equal({ EMAIL: 2, PHONE: 1 });
      expect(fw.stats().distinct).to.deep.equal({ EMAIL: 1, PHONE: 1 });
      const json = JSON.stringify({ vault: fw.vault });
      expect(json).not.to.contain('anna');
      expect(json).not.to.contain('7946');
    });

    it('masks the string values of tool-call arguments and keeps the JSON valid', () => {
      const v = createVault();
      const args = '{"to": "jan@example.nl", "subject": "Afspraak", "body": "Beste Jan, bel me op 06-12345678.\\nGroet, Piet", "n": 3}';
      const masked = maskJsonArguments(args, 'auto', v);
      expect(JSON.parse(masked)).to.deep.equal({
        to: '[EMAIL_1]',
        subject: 'Afspraak',
        body: 'Beste [PERSON_1], bel me op [PHONE_1].\nGroet, [PERSON_2]',
        n: 3,
      });
      expect(maskJsonArguments('{"q": "weather tomorrow"}', 'en', v)).to.equal('{"q": "weather tomorrow"}');
      expect(maskJsonArguments('not json: jan@example.nl', 'en', v)).to.equal('not json: [EMAIL_1]');
    });
  });

  describe('restoring', () => {
    const vault = vaultWith([
      ['EMAIL', 'jan@example.nl'],
      ['PERSON', 'Jan de Vries'],
      ['STEUER_ID', '86095742719'],
      ['PERSON', 'Zoë "Z" O\'Neil'],
    ]);

    it('round-trips a masked text', () => {
      const fw = createFirewall({ language: 'nl' });
      const original = 'Mijn naam is Jan de Vries, mail jan@example.nl, BSN 111222333, IBAN NL91 ABNA 0417 1643 00.';
      const masked = fw.mask(original);
      expect(masked).not.to.contain('Jan');
      expect(fw.restore(masked)).to.equal(original);
    });

    it('tolerates the small changes models make', () => {
      const cases: Array<[string, string]> = [
        ['[EMAIL_1]', 'jan@example.nl'],
        ['[email_1]', 'jan@example.nl'],
        ['EMAIL_1', 'jan@example.nl'],
        ['Email_1.', 'jan@example.nl.'],
        ['[ EMAIL_1 ]', 'jan@example.nl'],
        ['[EMAIL_1', 'jan@example.nl'],
        ['EMAIL_1]', 'jan@example.nl'],
        ['\\[EMAIL\\_1\\]', 'jan@example.nl'],
        ['[EMAIL-1]', 'jan@example.nl'],
        ['https://x.nl/%5BEMAIL_1%5D.png', 'https://x.nl/jan@example.nl.png'],
        ['/u/%5bperson_2%5d/me', '/u/Zoë "Z" O\'Neil/me'],
        ['(EMAIL_1)', '(jan@example.nl)'],
        ['**[PERSON_1]**', '**Jan de Vries**'],
        ["PERSON_1's", "Jan de Vries's"],
        ['[steuer_id_1]', '86095742719'],
        ['[STEUER-ID-1]', '86095742719'],
        // A space for the underscore, inside brackets only (it was left as written).
        ['[PERSON 1]', 'Jan de Vries'],
        ['[Person 1],', 'Jan de Vries,'],
        ['[steuer id 1]', '86095742719'],
        // One placeholder right after another (only the first was restored).
        ['PERSON_1PERSON_1', 'Jan de VriesJan de Vries'],
        ['[PERSON_1]EMAIL_1', 'Jan de Vriesjan@example.nl'],
        // A separator left before the closing bracket (it came back as 'Jan de Vries_]').
        ['[PERSON_1_]', 'Jan de Vries'],
        ['[PERSON_1-] en [ EMAIL_1_ ]', 'Jan de Vries en jan@example.nl'],
        ['\\[PERSON\\_1\\_\\]', 'Jan de Vries'],
      ];
      for (const [input, expected] of cases) expect(restoreText(input, vault), input).to.equal(expected);
    });

    it('leaves alone what is not a known placeholder', () => {
      for (const s of ['[EMAIL_7]', 'XEMAIL_1', 'EMAIL_', '[EMAIL]', 'EMAILS_1', 'PERSON_1234567', 'an email_ address', 'e-mail 1', '%5BEMAIL_7%5D', '%5BEMAIL_1', '50%', '%5', '%5D', 'Person 1 said', 'PERSON 1', '[Person 1 and 2]', '[Person 1', 'XPERSON_1PERSON_1x', '[PERSON_9_]', 'see [EMAIL_7-]']) {
        expect(restoreText(s, vault), s).to.equal(s);
      }
    });

    it('keeps a backslash before a placeholder that belongs to the text: a Windows path, a JSON escape', () => {
      expect(restoreText('C:\\Users\\[PERSON_1]\\notes.txt', vault)).to.equal('C:\\Users\\Jan de Vries\\notes.txt');
      expect(restoreText('open C:\\Users\\[PERSON_1]\\notes.txt', vault)).to.equal('open C:\\Users\\Jan de Vries\\notes.txt');
      const args = '{"path":"C:\\\\Users\\\\[PERSON_1]\\\\notes.txt"}';
      expect(JSON.parse(restoreJsonArguments(args, vault))).to.deep.equal({ path: 'C:\\Users\\Jan de Vries\\notes.txt' });
      const stream = createStreamRestorer(vault);
      const pieces = ['{"path":"C:\\\\Users\\', '\\[PERS', 'ON_1]\\\\n"}'];
      const streamed = pieces.map((piece) => stream.push(piece)).join('') + stream.flush();
      expect(streamed).to.equal('{"path":"C:\\\\Users\\\\Jan de Vries\\\\n"}');
    });

    it('escapes restored values inside tool-call arguments', () => {
      const args = '{"name":"[PERSON_2]","cc":"[EMAIL_1]"}';
      const restored = restoreJsonArguments(args, vault);
      expect(JSON.parse(restored)).to.deep.equal({ name: 'Zoë "Z" O\'Neil', cc: 'jan@example.nl' });
    });

    it('restores a streamed reply split at every possible point', () => {
      const reply = 'Dear [PERSON_1], I wrote to [EMAIL_1] (or email_1) about STEUER_ID_1; [PERSON_9] is unknown. \\[PERSON\\_2\\]! [Person 1] PERSON_1EMAIL_1 [PERSON_1_] [PERSON_1_2]';
      const expected = restoreText(reply, vault);
      expect(expected).to.equal('Dear Jan de Vries, I wrote to jan@example.nl (or jan@example.nl) about 86095742719; [PERSON_9] is unknown. Zoë "Z" O\'Neil! Jan de Vries Jan de Vriesjan@example.nl Jan de Vries Jan de Vries_2]');
      for (let i = 0; i <= reply.length; i++) {
        expect(streamed(vault, [reply.slice(0, i), reply.slice(i)]), `split at ${i}`).to.equal(expected);
      }
      for (let i = 0; i <= reply.length; i++) {
        for (let j = i; j <= Math.min(reply.length, i + 12); j++) {
          expect(streamed(vault, [reply.slice(0, i), reply.slice(i, j), reply.slice(j)]), `split at ${i},${j}`).to.equal(expected);
        }
      }
      expect(streamed(vault, [...reply])).to.equal(expected);
    });

    it('restores streamed tool-call arguments split at every point, escaped for JSON', () => {
      const args = '{"name":"[PERSON_2]","to":"EMAIL_1"}';
      const expected = restoreJsonArguments(args, vault);
      for (let i = 0; i <= args.length; i++) expect(streamed(vault, [args.slice(0, i), args.slice(i)], true)).to.equal(expected);
    });

    it('matches restoreText for random texts and random chunkings', () => {
      let seed = 12345;
      const rnd = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const atoms = ['[', ']', ' ', '\\', '_', '-', 'EMAIL', 'email', 'PERSON', 'STEUER', 'ID', '1', '2', '12', 'x', 'E', 'P', 'é', '\n', '[EMAIL_1]', '%', '5', 'B', 'd', '%5B', '%5D'];
      for (let t = 0; t < 400; t++) {
        let text = '';
        const n = 1 + Math.floor(rnd() * 25);
        for (let k = 0; k < n; k++) text += atoms[Math.floor(rnd() * atoms.length)];
        const chunks: string[] = [];
        let i = 0;
        while (i < text.length) {
          const step = 1 + Math.floor(rnd() * 6);
          chunks.push(text.slice(i, i + step));
          i += step;
        }
        expect(streamed(vault, chunks), JSON.stringify(chunks)).to.equal(restoreText(text, vault));
      }
    });

    it('holds back only a possible placeholder prefix, and emits the rest at once', () => {
      const r = createStreamRestorer(vault);
      expect(r.push('Hello there, ')).to.equal('Hello there, ');
      expect(r.pending).to.equal(0);
      expect(r.push('this is [EMA')).to.equal('this is ');
      expect(r.pending).to.equal(4);
      expect(r.push('IL_1')).to.equal('');
      expect(r.pending).to.equal(8); // "[EMAIL_1" may still become "[EMAIL_12]" or get its "]"
      expect(r.push('] and more text')).to.equal('jan@example.nl and more text');
      expect(r.pending).to.equal(0);
      expect(r.push('. Best, P')).to.equal('. Best, ');
      expect(r.push('eter')).to.equal('Peter');
      expect(r.push(' and 12 cats')).to.equal(' and 12 cats');
      expect(r.flush()).to.equal('');
    });

    it('a long stream without placeholders is never held back', () => {
      const r = createStreamRestorer(vault);
      let out = '';
      for (let i = 0; i < 1000; i++) {
        out += r.push('lorem ipsum 42, ');
        expect(r.pending).to.equal(0);
      }
      expect(out.length).to.equal(16000);
    });

    it('the placeholder scanner reports partial input only when more input could complete it', () => {
      expect(scanPlaceholder('[EMA', 0, false)).to.deep.equal({ kind: 'partial' });
      expect(scanPlaceholder('[EMA', 0, true)).to.equal(null);
      expect(scanPlaceholder('[EMAIL_1', 0, false)).to.deep.equal({ kind: 'partial' });
      expect(scanPlaceholder('[EMAIL_1', 0, true)).to.deep.equal({ kind: 'match', end: 8, key: 'EMAIL_1' });
      expect(scanPlaceholder('[EMAIL_1]', 0, false)).to.deep.equal({ kind: 'match', end: 9, key: 'EMAIL_1' });
      expect(scanPlaceholder('[EMX', 0, false)).to.equal(null);
      expect(scanPlaceholder('[date_of_birth_03]', 0, true)).to.deep.equal({ kind: 'match', end: 18, key: 'DATE_OF_BIRTH_3' });
    });
  });

  it('restores a name as the text wrote it, not as a message name ("noor_de_vries") gave it first', async () => {
    const fw = createFirewall({ language: 'nl' });
    expect(await fw.maskLabel('noor_de_vries')).to.equal('PERSON_1');
    const masked = fw.mask('Schrijf een brief aan Noor de Vries');
    expect(masked).to.equal('Schrijf een brief aan [PERSON_1]');
    expect(fw.restore('Beste [PERSON_1],')).to.equal('Beste Noor de Vries,');
  });

  describe('placeholders the caller wrote', () => {
    it('are never given to a value, in any form restoring reads, so the answer keeps them as written', async () => {
      const fw = createFirewall({ language: 'nl' });
      const typed = await fw.maskAsync('Sjabloon: uw IBAN [IBAN_1] is gewijzigd, mail \\[EMAIL\\_1\\] of person-1, tel %5BPHONE_1%5D.');
      expect(typed).to.contain('[IBAN_1]');
      const real = fw.mask('Vul in met NL91ABNA0417164300, mail jan@example.nl, bel 06-12345678. Groet, Noor de Vries');
      expect(real).to.contain('[IBAN_2]').and.contain('[EMAIL_2]').and.contain('[PHONE_2]').and.contain('[PERSON_2]');
      expect(fw.restore('[IBAN_1] [EMAIL_1] person-1 [PHONE_1]')).to.equal('[IBAN_1] [EMAIL_1] person-1 [PHONE_1]');
      expect(fw.restore('[IBAN_2]')).to.equal('NL91ABNA0417164300');
      expect(fw.stats().distinct).to.include({ IBAN: 1, EMAIL: 1, PHONE: 1, PERSON: 1 });
    });

    it('are kept as written when spelled with a space or one after another', () => {
      const fw = createFirewall({ language: 'nl' });
      fw.mask('Transcript: [Person 1] zegt hallo, EMAIL_1EMAIL_2 is een sleutel.');
      fw.mask('Mail jan@example.nl of piet@example.nl, groet Noor de Vries');
      expect(fw.restore('[Person 1] EMAIL_1EMAIL_2 [EMAIL_3] [PERSON_2]')).to.equal('[Person 1] EMAIL_1EMAIL_2 jan@example.nl Noor de Vries');
    });

    it('keep a number already given to one of the request’s own values', () => {
      const fw = createFirewall({ language: 'nl' });
      fw.mask('Mail jan@example.nl');
      fw.mask('Herhaal [EMAIL_1]');
      expect(fw.restore('[EMAIL_1]')).to.equal('jan@example.nl');
    });
  });

  describe('maskAsync on long texts seen before (an agent resends its history every turn)', () => {
    const paragraph = 'The build failed in the lint step because a trailing comma was missing in the config file. ';
    const clean = paragraph.repeat(250); // 23 KB: read in two slices, with a pause after each
    const personal = `${clean}Contact noor.devries@example.nl about it.`;
    const firewallCountingPauses = () => {
      const counter = { pauses: 0 };
      const firewall = createFirewall({ pause: async () => void counter.pauses++ });
      return { firewall, counter };
    };

    it('does not read a text again in which it found nothing', async () => {
      const first = firewallCountingPauses();
      expect(await first.firewall.maskAsync(clean)).to.equal(clean);
      expect(first.counter.pauses).to.be.above(0);
      const again = firewallCountingPauses();
      expect(await again.firewall.maskAsync(clean)).to.equal(clean);
      expect(again.counter.pauses).to.equal(0);
      expect(again.firewall.stats().languages).to.deep.equal({ remembered: 1 });
    });

    it('reads a text with personal data every time: nothing of it is kept between requests', async () => {
      for (let request = 0; request < 2; request++) {
        const { firewall, counter } = firewallCountingPauses();
        const masked = await firewall.maskAsync(personal);
        expect(masked).to.contain('[EMAIL_1]').and.not.contain('noor.devries@example.nl');
        expect(counter.pauses, `request ${request}`).to.be.above(0);
      }
    });
  });

  describe('maskRecurring (tool definitions)', () => {
    const clean = 'Reads a file from the local filesystem. Use absolute paths; lines longer than 2000 characters are cut. '.repeat(4);
    const personal = `${clean} Questions go to noor.devries@example.nl or +31 6 12345678.`;

    it('masks as maskAsync does, request after request, each request numbering its own placeholders', async () => {
      for (let request = 0; request < 3; request++) {
        const firewall = createFirewall();
        expect(await firewall.maskRecurring(clean)).to.equal(clean);
        // A placeholder taken before shifts the numbers, as it would when the text is read again.
        if (request === 2) await firewall.maskAsync('Mail pieter@example.com');
        const masked = await firewall.maskRecurring(personal);
        const fresh = createFirewall();
        if (request === 2) await fresh.maskAsync('Mail pieter@example.com');
        expect(masked).to.equal(await fresh.maskAsync(personal));
        expect(masked).to.contain(request === 2 ? '[EMAIL_2]' : '[EMAIL_1]').and.contain('[PHONE_1]');
        // Each request's own vault restores it.
        expect(firewall.restore(masked)).to.equal(personal);
      }
    });
  });
});
