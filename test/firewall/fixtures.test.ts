// Integrity of the labelled evaluation set: sizes, coverage, exact substrings, and that every
// labelled identifier really passes its check digits according to an independent implementation
// (stdnum, ibantools, libphonenumber-js) rather than the code under test.
import { expect } from 'chai';
import { isValidIBAN } from 'ibantools';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { stdnum } from 'stdnum';
import { ENTITY_TYPES, LANGUAGES, type EntityType, type Language } from '../../src/firewall/types.js';
import { goldSpans, loadConversations, loadSnippets } from './eval-lib.js';

function luhn(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let x = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  }
  return sum % 10 === 0;
}

const ORACLE: Partial<Record<EntityType, (value: string) => boolean>> = {
  IBAN: (v) => isValidIBAN(v.replace(/[\s-]/g, '').toUpperCase()),
  CARD: (v) => luhn(v.replace(/\D/g, '')),
  BSN: (v) => stdnum.NL!.bsn!.validate(v).isValid,
  NIR: (v) => stdnum.FR!.nir!.validate(v).isValid,
  STEUER_ID: (v) => stdnum.DE!.idnr!.validate(v).isValid,
  BE_NATIONAL_NUMBER: (v) => stdnum.BE!.nn!.validate(v).isValid,
  DNI: (v) => stdnum.ES!.nif!.validate(v).isValid,
  CODICE_FISCALE: (v) => stdnum.IT!.codicefiscale!.validate(v).isValid,
  PESEL: (v) => stdnum.PL!.pesel!.validate(v).isValid,
  PHONE: (v) => (['NL', 'BE', 'DE', 'FR', 'GB'] as CountryCode[]).some((c) => parsePhoneNumberFromString(v, c)?.isValid() === true),
};

// Which identifiers make sense in which language (a Dutch BSN in a French message is unusual).
const EXPECTED_TYPES: Record<Language, EntityType[]> = {
  nl: ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'BSN', 'BE_NATIONAL_NUMBER', 'CUSTOMER_REF', 'IP', 'DATE_OF_BIRTH', 'ADDRESS', 'PERSON'],
  en: ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'BSN', 'NIR', 'STEUER_ID', 'BE_NATIONAL_NUMBER', 'DNI', 'CODICE_FISCALE', 'PESEL', 'CUSTOMER_REF', 'IP', 'DATE_OF_BIRTH', 'ADDRESS', 'PERSON'],
  fr: ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'NIR', 'BE_NATIONAL_NUMBER', 'CUSTOMER_REF', 'IP', 'DATE_OF_BIRTH', 'ADDRESS', 'PERSON'],
  de: ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'STEUER_ID', 'BE_NATIONAL_NUMBER', 'CUSTOMER_REF', 'IP', 'DATE_OF_BIRTH', 'ADDRESS', 'PERSON'],
};

describe('firewall evaluation set', () => {
  const snippets = loadSnippets();
  const conversations = loadConversations();

  it('has at least 400 snippets, 80 per language and 100 hard negatives', () => {
    expect(snippets.length).to.be.at.least(400);
    for (const lang of LANGUAGES) expect(snippets.filter((s) => s.lang === lang).length, lang).to.be.at.least(80);
    expect(snippets.filter((s) => s.entities.length === 0).length).to.be.at.least(100);
  });

  it('has unique ids and known types and languages', () => {
    const ids = new Set<string>();
    for (const s of snippets) {
      expect(ids.has(s.id), s.id).to.equal(false);
      ids.add(s.id);
      expect(LANGUAGES).to.include(s.lang);
      for (const e of s.entities) expect(ENTITY_TYPES).to.include(e.type);
    }
  });

  it('covers every type in every language where it makes sense', () => {
    for (const lang of LANGUAGES) {
      const present = new Set(snippets.filter((s) => s.lang === lang).flatMap((s) => s.entities.map((e) => e.type)));
      for (const t of EXPECTED_TYPES[lang]) expect(present.has(t), `${t} in ${lang}`).to.equal(true);
    }
  });

  it('labels exact substrings', () => {
    for (const s of snippets) expect(() => goldSpans(s.text, s.entities), s.id).not.to.throw();
    for (const c of conversations) for (const m of c.messages) expect(() => goldSpans(m.text, m.entities), c.id).not.to.throw();
  });

  it('has mixed-language conversations', () => {
    expect(conversations.length).to.be.at.least(10);
    for (const c of conversations) expect(new Set(c.messages.map((m) => m.lang)).size, c.id).to.be.at.least(2);
  });

  it('labels only identifiers whose check digits really validate (independent implementations)', () => {
    const all = [...snippets.flatMap((s) => s.entities), ...conversations.flatMap((c) => c.messages.flatMap((m) => m.entities))];
    for (const e of all) {
      const oracle = ORACLE[e.type];
      if (oracle) expect(oracle(e.value), `${e.type} ${e.value}`).to.equal(true);
    }
  });

  it('hard negatives include numbers that look like phones, IBANs, cards and ids', () => {
    const negatives = snippets.filter((s) => s.entities.length === 0).map((s) => s.text);
    const some = (re: RegExp) => negatives.filter((t) => re.test(t)).length;
    expect(some(/\b(?:order|bestel|bestell|commande)/i), 'order numbers').to.be.at.least(8);
    expect(some(/\b(?:invoice|factuur|rechnung|facture)/i), 'invoices').to.be.at.least(4);
    expect(some(/\d+\.\d+\.\d+\.\d+/), 'four-part versions').to.be.at.least(8);
    expect(some(/\d{1,2}:\d{2}/), 'times').to.be.at.least(6);
    expect(some(/\bRF\d\d\b|[A-Z]{2}\d\d(?: ?[A-Z0-9]{4}){3,}/), 'IBAN look-alikes').to.be.at.least(5);
  });
});
