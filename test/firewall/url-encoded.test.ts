import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';
import { createStreamRestorer } from '../../src/firewall/restore.js';
import { decodeToken, decodeTokenRepeatedly, encodedTokens } from '../../src/firewall/url-encoded.js';

// A URL in the text may hold personal data percent-encoded ("?email=jan%40example.nl"): it is read
// decoded, masked with a placeholder that keeps the URL a URL, and restored as it was written.

const mask = (text: string) => createFirewall().mask(text);

describe('percent-encoded personal data in URLs in the text', () => {
  it('masks an e-mail address written with %40 in a URL and in mailto: (QA: it left unmasked)', () => {
    const fw = createFirewall();
    const text = 'Open https://crm.example.com/contacts?email=jan.devries%40example.nl voor details';
    const masked = fw.mask(text);
    expect(masked).to.equal('Open https://crm.example.com/contacts?email=%5BEMAIL_1%5D voor details');
    expect(fw.restore(masked)).to.equal(text);
    // Still a URL, whose query value decodes to the placeholder.
    expect(new URL(masked.split(' ')[1]!).searchParams.get('email')).to.equal('[EMAIL_1]');
    expect(mask('mailto:jan.devries%40example.nl')).to.equal('mailto:%5BEMAIL_1%5D');
    expect(mask('Stuur naar <mailto:jan.devries%40example.nl>.')).to.equal('Stuur naar <mailto:%5BEMAIL_1%5D>.');
  });

  it('gives the address the placeholder it has in prose, and restores each form as it was written', () => {
    const fw = createFirewall();
    const text = 'Mail jan.devries@example.nl of open https://crm.example.com/?email=Jan.DeVries%40example.nl.';
    const masked = fw.mask(text);
    expect(masked).to.equal('Mail [EMAIL_1] of open https://crm.example.com/?email=%5BEMAIL_1%5D.');
    expect(fw.restore(masked)).to.equal(text);
    // The model's answer: the URL form comes back encoded as written, the prose form as in prose.
    const answer = 'Zie https://crm.example.com/?email=%5BEMAIL_1%5D, of mail [EMAIL_1].';
    const restored = 'Zie https://crm.example.com/?email=Jan.DeVries%40example.nl, of mail jan.devries@example.nl.';
    expect(fw.restore(answer)).to.equal(restored);
    for (let cut = 0; cut <= answer.length; cut++) {
      const r = createStreamRestorer(fw.vault);
      expect(r.push(answer.slice(0, cut)) + r.push(answer.slice(cut)) + r.flush(), `split at ${cut}`).to.equal(restored);
    }
    // Seen only in a URL, the value is restored decoded where the model writes it in prose.
    const fw2 = createFirewall();
    expect(fw2.mask('mailto:noor%40example.nl')).to.equal('mailto:%5BEMAIL_1%5D');
    expect(fw2.restore('Mail [EMAIL_1] of klik mailto:%5BEMAIL_1%5D')).to.equal('Mail noor@example.nl of klik mailto:noor%40example.nl');
  });

  it('masks a value under a personal key of a query whether or not the URL holds an escape (QA: names were sent in clear)', () => {
    const cases: Array<[string, string]> = [
      ['https://x.nl/a?naam=Jan+de+Vries', 'https://x.nl/a?naam=%5BPERSON_1%5D'],
      [
        'curl "https://api.example.com/users?first_name=Olivia&last_name=Bennett&dob=1990-04-12"',
        'curl "https://api.example.com/users?first_name=[PERSON_1]&last_name=[PERSON_2]&dob=[DATE_OF_BIRTH_1]"',
      ],
      ['https://x.nl/a?email=sanne%40kpn.nl&achternaam=Visser', 'https://x.nl/a?email=%5BEMAIL_1%5D&achternaam=[PERSON_1]'],
      ['GET /api/v1/customers?lastName=Okafor&postcode=SW1A+1AA', 'GET /api/v1/customers?lastName=[PERSON_1]&postcode=%5BADDRESS_1%5D'],
      ['<a href="/zoek?x=1&amp;achternaam=Visser">', '<a href="/zoek?x=1&amp;achternaam=[PERSON_1]">'],
      ['Zie [profiel](https://x.nl/p?filter[achternaam]=Visser).', 'Zie [profiel](https://x.nl/p?filter[achternaam]=[PERSON_1]).'],
      // Encoded twice, as a redirect carries it.
      ['https://x.nl/a?achternaam=Van%2520Dijk&x=1', 'https://x.nl/a?achternaam=%5BPERSON_1%5D&x=1'],
    ];
    for (const [text, expected] of cases) {
      const fw = createFirewall();
      const masked = fw.mask(text);
      expect(masked, text).to.equal(expected);
      expect(fw.restore(masked)).to.equal(text);
    }
    // Keys that name no person, or a thing, leave the value alone.
    for (const text of ['https://x.nl/a?q=Visser&sort=naam', 'https://shop.nl/a?product=Jan&sku=A-1', 'https://x.nl/a?name=polder-gateway'])
      expect(mask(text), text).to.equal(text);
  });

  it('masks names, phone numbers, IBANs and addresses in query values and path segments', () => {
    const cases: Array<[string, string]> = [
      ['https://x.nl/zoek?naam=Jan+de+Vries&tel=%2B31612345678', 'https://x.nl/zoek?naam=%5BPERSON_1%5D&tel=%5BPHONE_1%5D'],
      ['https://x.nl/zoek?naam=Jan%20de%20Vries&tel=%2B31%206%2012345678', 'https://x.nl/zoek?naam=%5BPERSON_1%5D&tel=%5BPHONE_1%5D'],
      ['https://x.nl/klant/Noor%20de%20Vries/profiel', 'https://x.nl/klant/%5BPERSON_1%5D/profiel'],
      ['https://x.de/?name=Sophie%20M%C3%BCller', 'https://x.de/?name=%5BPERSON_1%5D'],
      ['https://x.nl/?iban=NL91%20ABNA%200417%201643%2000', 'https://x.nl/?iban=%5BIBAN_1%5D'],
      ['Kaart: https://maps.example.com/?q=Kastanjelaan%2031%2C%203531%20KG%20Utrecht', 'Kaart: https://maps.example.com/?q=%5BADDRESS_1%5D'],
    ];
    for (const [text, expected] of cases) {
      const fw = createFirewall();
      const masked = fw.mask(text);
      expect(masked, text).to.equal(expected);
      expect(fw.restore(masked)).to.equal(text);
    }
  });

  it('masks an e-mail address or phone number encoded twice (%2540, %252B), and restores it as written', () => {
    const cases: Array<[string, string]> = [
      ['https://crm.example.com/u/jan%2540example.com', 'https://crm.example.com/u/%5BEMAIL_1%5D'],
      ['https://x.nl/login?next=%2Fprofiel%3Femail%3Djan%252Edevries%2540example.nl', 'https://x.nl/login?next=%2Fprofiel%3Femail%3D%5BEMAIL_1%5D'],
      ['?email=jan%252Edevries%2540example.nl', '?email=%5BEMAIL_1%5D'],
      ['https://x.nl/?tel=%252B31612345678&n=1', 'https://x.nl/?tel=%5BPHONE_1%5D&n=1'],
      // Three times, the most that is decoded.
      ['https://x.nl/?e=jan%252540example.nl', 'https://x.nl/?e=%5BEMAIL_1%5D'],
    ];
    for (const [text, expected] of cases) {
      const fw = createFirewall();
      const masked = fw.mask(text);
      expect(masked, text).to.equal(expected);
      expect(fw.restore(masked)).to.equal(text);
    }
    // The same address in prose shares the placeholder.
    const fw = createFirewall();
    expect(fw.mask('Mail jan@example.com, https://x.nl/u/jan%2540example.com')).to.equal('Mail [EMAIL_1], https://x.nl/u/%5BEMAIL_1%5D');
  });

  it('decodes at most three times, and a "+" only in the first round ("%2B" decoded is a plus)', () => {
    expect(decodeTokenRepeatedly('x%2540y').text).to.equal('x@y');
    expect(decodeTokenRepeatedly('x%25252540y').text).to.equal('x%40y');
    expect(decodeTokenRepeatedly('?t=%2B31+6').text).to.equal('?t=+31 6');
    expect(decodeTokenRepeatedly('?t=%252B31%2B6').text).to.equal('?t=+31+6');
    const d = decodeTokenRepeatedly('a%2540b');
    expect(Array.from(d.at)).to.deep.equal([0, 1, 6, 7]);
    expect(Array.from(d.changed)).to.deep.equal([0, 1, 0]);
    // "100%25" decodes to a "%" that opens no escape: one round.
    expect(decodeTokenRepeatedly('?q=100%25%20off').text).to.equal('?q=100% off');
  });

  it('leaves encoded text without personal data, and percent signs outside URLs, as written', () => {
    for (const text of [
      'https://example.com/search?q=hello%20world',
      'Gebruik 100%25 katoen, 50%20 korting',
      'https://x.nl/%E0%A4%ZZ?a=%',
      'https://x.de/?city=K%C3%B6ln&page=2',
      'Rabatt: 20%, siehe https://shop.example.de/angebote?kategorie=Garten%20%26%20Balkon',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });

  it('decodes a token once, escapes as UTF-8, "+" as a space only in the query, and keeps its offsets', () => {
    const d = decodeToken('a+b/%C3%B6?c=d+e%40f%E0');
    expect(d.text).to.equal('a+b/ö?c=d e@f%E0');
    expect(Array.from(d.at)).to.deep.equal([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 16, 19, 20, 21, 22, 23]);
    expect(decodeToken('x%2540y').text).to.equal('x%40y');
    const text = 'zie https://a.nl/?e=x%40y.nl, en 100%25.';
    const tokens = encodedTokens(text);
    expect(tokens.length).to.equal(2);
    expect(text.slice(tokens[0], tokens[1])).to.equal('https://a.nl/?e=x%40y.nl');
  });

  it('reads a form body outside a URL pair by pair: each value masked by its key, none swallowing the next (QA, 2026-11-27)', () => {
    const fw = createFirewall({ language: 'auto' });
    const encoded = fw.mask('Body: name=Ruben%20Dijkstra&phone=%2B31612345678\nRuben Dijkstra belde terug.');
    expect(encoded).to.equal('Body: name=%5BPERSON_1%5D&phone=%5BPHONE_1%5D\n[PERSON_1] belde terug.');
    const plain = fw.mask('name=Ruben Dijkstra&phone=+31612345678&plan=pro');
    expect(plain).to.match(/^name=\[PERSON_1\]&phone=\[PHONE_\d\]&plan=pro$/);
    expect(fw.restore(plain)).to.equal('name=Ruben Dijkstra&phone=+31612345678&plan=pro');
    for (const text of ['Q&A: price=12&qty=3', 'Tom & Jerry=fun', 'a=1&&b=2']) expect(fw.mask(text), text).to.equal(text);
  });
});
