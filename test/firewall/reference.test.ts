import { expect } from 'chai';
import { detectEntities } from '../../src/firewall/detect.js';
import { createFirewall } from '../../src/firewall/firewall.js';
import type { Language } from '../../src/firewall/types.js';

// Policy, claim, customer, contract and dossier numbers name a person at the insurer (scenario 1,
// decision 0019): after their label, in a key-value line, under such a column, they are masked.
function refs(text: string, language: Language = 'nl'): string[] {
  return detectEntities(text, language)
    .filter((d) => d.type === 'CUSTOMER_REF')
    .map((d) => d.text);
}

describe('firewall: reference numbers that name a customer (CUSTOMER_REF)', () => {
  const cases: Array<[string, Language, string[]]> = [
    ['Ik ben Jan de Vries, polisnummer IV-2024-889123, IBAN NL91ABNA0417164300.', 'nl', ['IV-2024-889123']],
    ['Polisnummer: 123456782', 'nl', ['123456782']],
    ['Mijn polisnummer is 123456782', 'nl', ['123456782']],
    ['polis 123456782 op naam van mij', 'nl', ['123456782']],
    ['schadenummer S-2024-1234, klantnummer 8812345', 'nl', ['S-2024-1234', '8812345']],
    ['dossiernummer D/2024/77 en contractnummer C-99812', 'nl', ['D/2024/77', 'C-99812']],
    ['My policy number is PX-88123-B, claim number CLM-2024-0098.', 'en', ['PX-88123-B', 'CLM-2024-0098']],
    ['customer number 55443322 and account number 12345678', 'en', ['55443322', '12345678']],
    ['Policennummer: 4711-0815, Versicherungsnummer 99887766', 'de', ['4711-0815', '99887766']],
    ['Unsere Kundennummer ist K-44512. Aktenzeichen 3 O 123/24.', 'de', ['K-44512', '3 O 123/24']],
    ['numéro de police 2024/5588, numéro de contrat AB123456, numéro client 778899', 'fr', ['2024/5588', 'AB123456', '778899']],
    // A log line's keys, joined by "_" or written in camel case (customer_id was sent in clear).
    ['2024-11-26 09:30:15 INFO payment failed customer_id=C-99120 amount=49.95', 'en', ['C-99120']],
    ['retry customerId=C-7 policy_number=IV-2024-889123 status=open', 'en', ['C-7', 'IV-2024-889123']],
    ['Kunden-ID K-44512 gesperrt', 'de', ['K-44512']],
    // The French noun first, as forms and letters write it (they were sent).
    ['Votre contrat n° RC-884120 est actif; adhérente n° 883312', 'fr', ['RC-884120', '883312']],
    // "no" without its dot, as typed in chat; "the client no longer…" keeps its words.
    ['mon contrat no 884120 expire, le client no longer pays', 'fr', ['884120']],
  ];
  for (const [text, language, expected] of cases) {
    it(`masks ${JSON.stringify(expected)} in ${JSON.stringify(text)}`, () => {
      expect(refs(text, language)).to.deep.equal(expected);
    });
  }

  it('types a number that passes the BSN check as the reference its label says, and a cued BSN as a BSN', () => {
    const found = detectEntities('polis 123456782 op naam van mij, bsn 111222333', 'nl').map((d) => [d.type, d.text]);
    expect(found).to.deep.equal([
      ['CUSTOMER_REF', '123456782'],
      ['BSN', '111222333'],
    ]);
    // "Polis" near a valid BSN no longer keeps it in clear.
    expect(detectEntities('Polis van Jan, nummer 123456782', 'nl').map((d) => d.type)).to.include('BSN');
  });

  it('reads key-value lines and table columns with such keys', () => {
    expect(refs('Klant: Jan\nPolisnummer: IV-2024-000101\nKundennummer = 8812345')).to.deep.equal(['IV-2024-000101', '8812345']);
    const table = '| Regio | Behandelaar | Polisnummer klant |\n|---|---|---|\n| Utrecht | Jan | IV-2024-000101 |\n| Zwolle | Piet | IV-2024-000102 |\n';
    expect(refs(table)).to.deep.equal(['IV-2024-000101', 'IV-2024-000102']);
    expect(refs('naam;polisnummer;bedrag\nJan;PX-1001;1200\n')).to.deep.equal(['PX-1001']);
  });

  it('leaves order and invoice numbers, years and words after a label alone', () => {
    for (const text of [
      'Bestelnummer 2024-5531 is verzonden.',
      'Factuurnummer 2024-0012 van 12 mei.',
      'Order number 774312 shipped on Monday.',
      'De polis loopt sinds 2019.',
      'The privacy policy 2024 update.',
      'Mijn polisnummer is onbekend.',
      'polisnummer: Jaarcontract 2024',
    ]) {
      expect(refs(text), text).to.deep.equal([]);
    }
  });

  it('leaves a slug that starts like a label alone: the label is a word of its own', () => {
    // Retrieval's knowledge message names the collection by its slug (src/memory/retrieval.ts).
    const fw = createFirewall({ language: 'auto' });
    const header = '[1] (document "tie7" in collection polissen-2)\nDe polis loopt sinds 2019.';
    expect(fw.mask(header)).to.equal(header);
    expect(fw.mask('Look in collection polissen-2')).to.equal('Look in collection polissen-2');
    for (const text of ['kunden-3 und policen-12', 'polisje-12', 'claimed-2024', 'accounts-7', 'customer_idx=5']) expect(refs(text), text).to.deep.equal([]);
    // The labels themselves still lead their values.
    expect(refs('polis 123456782, polisnr.IV-2024-1, Polisnummer:PX-1001')).to.deep.equal(['123456782', 'IV-2024-1', 'PX-1001']);
  });

  it('restores the number in the answer', () => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask('Mijn polisnummer is IV-2024-889123.');
    expect(masked).to.equal('Mijn polisnummer is [CUSTOMER_REF_1].');
    expect(fw.restore('Uw polis [CUSTOMER_REF_1] is actief.')).to.equal('Uw polis IV-2024-889123 is actief.');
  });
});

describe('firewall: identity document and social insurance numbers after their label (ID_NUMBER)', () => {
  const ids = (text: string, language: Language = 'en') =>
    detectEntities(text, language)
      .filter((d) => d.type === 'ID_NUMBER')
      .map((d) => d.text);
  // All of these were sent in clear (QA): only numbers with check digits had recognizers.
  const cases: Array<[string, Language, string[]]> = [
    ['Social Security Number: 536-22-4187', 'en', ['536-22-4187']],
    ['ssn 536224187 for the W-2 form, my ssn is 536 22 4187', 'en', ['536224187', '536 22 4187']],
    ['Passport number NW1234567, driving licence number MORGA753116SM9IJ', 'en', ['NW1234567', 'MORGA753116SM9IJ']],
    ['Sozialversicherungsnummer 65 170839 J 003, Reisepass: C01X00T47', 'de', ['65 170839 J 003', 'C01X00T47']],
    ['paspoortnummer NX12AB345 en rijbewijsnummer 5123456789', 'nl', ['NX12AB345', '5123456789']],
    ['numéro de passeport 18AB12345', 'fr', ['18AB12345']],
  ];
  for (const [text, language, expected] of cases) {
    it(`masks ${JSON.stringify(expected)} in ${JSON.stringify(text)}`, () => {
      expect(ids(text, language)).to.deep.equal(expected);
    });
  }

  it('reads them under their key in JSON, and leaves a year or a word after a bare label alone', () => {
    const fw = createFirewall({ language: 'en' });
    expect(fw.mask('{"user": {"name": "Noah Williams", "ssn": "536-22-4187"}}')).to.equal('{"user": {"name": "[PERSON_1]", "ssn": "[ID_NUMBER_1]"}}');
    expect(ids('my passport expires 2031; the passport is in the drawer since 2019')).to.deep.equal([]);
    // A word after the label, then a count, is no number (QA); nor is a library's version.
    for (const text of ['My passport has 12 stamps', 'An SSN has 9 digits.', 'passport number: max 9 characters', 'We use passport 0.7.0 with passport-jwt 4.0.1']) {
      expect(ids(text), text).to.deep.equal([]);
    }
    expect(refs('Customer number has 8 digits', 'en')).to.deep.equal([]);
  });
});
