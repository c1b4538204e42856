import { expect } from 'chai';
import { stdnum } from 'stdnum';
import { codiceFiscaleValid, dniValid, peselValid } from '../../src/firewall/checksums.js';
import { createFirewall } from '../../src/firewall/index.js';
import { detectEntities } from '../../src/firewall/detect.js';

// Spanish DNI/NIE, Italian codice fiscale and Polish PESEL were sent in clear (QA): a number with
// check digits is personal data in any language.

function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function mask(text: string): string {
  return createFirewall().mask(text);
}

describe('firewall: Spanish, Italian and Polish national ids', () => {
  it('checks DNI, NIE, codice fiscale and PESEL as stdnum does', () => {
    const rnd = lcg(7);
    const pick = (s: string) => s[Math.floor(rnd() * s.length)]!;
    const digits = (n: number) => Array.from({ length: n }, () => pick('0123456789')).join('');
    let valid = { dni: 0, nie: 0, cf: 0, pesel: 0 };
    for (let k = 0; k < 20_000; k++) {
      const dni = digits(8) + pick(LETTERS);
      expect(dniValid(dni), dni).to.equal(stdnum.ES!.dni!.validate(dni).isValid);
      const nie = pick('XYZ') + digits(7) + pick(LETTERS);
      expect(dniValid(nie), nie).to.equal(stdnum.ES!.nie!.validate(nie).isValid);
      const pesel = digits(11);
      expect(peselValid(pesel), pesel).to.equal(stdnum.PL!.pesel!.validate(pesel).isValid);
      // stdnum lets a day of 32–40 pass; no one is born on one, and the firewall refuses it.
      const day = String(1 + Math.floor(rnd() * 31) + (rnd() < 0.5 ? 40 : 0)).padStart(2, '0');
      const cf = Array.from({ length: 6 }, () => pick(LETTERS)).join('') + digits(2) + pick('ABCDEHLMPRST') + day + pick(LETTERS) + digits(3) + pick(LETTERS);
      expect(codiceFiscaleValid(cf), cf).to.equal(stdnum.IT!.codicefiscale!.validate(cf).isValid);
      valid = { dni: valid.dni + +dniValid(dni), nie: valid.nie + +dniValid(nie), cf: valid.cf + +codiceFiscaleValid(cf), pesel: valid.pesel + +peselValid(pesel) };
    }
    // The checks refuse most strings of the shape: a letter of 23 (26 drawn), a check digit and a date.
    expect(valid.dni / 20_000).to.be.below(0.05);
    expect(valid.nie / 20_000).to.be.below(0.05);
    expect(valid.cf / 20_000).to.be.below(0.05);
    expect(valid.pesel / 20_000).to.be.below(0.02);
    expect(codiceFiscaleValid('RSSMRA85T10A562S')).to.equal(true);
    expect(codiceFiscaleValid('BNCGLI90A41F205H')).to.equal(true);
    expect(codiceFiscaleValid('RSSMRA85T10A562T')).to.equal(false);
    expect(peselValid('92030567893')).to.equal(true);
    expect(peselValid('92030567894')).to.equal(false);
    // Born in 2002 (month + 20), and a date that does not exist (31 April).
    expect(peselValid('02270803628')).to.equal(stdnum.PL!.pesel!.validate('02270803628').isValid);
    expect(peselValid('85043112349')).to.equal(false);
  });

  it('masks them with and without their label, in Spanish, Italian, Polish and English text', () => {
    const cases: Array<[string, string]> = [
      ['Mi DNI es 12345678Z y mi NIE X1234567L.', 'Mi DNI es [DNI_1] y mi NIE [DNI_2].'],
      ['DNI: 12.345.678-Z', 'DNI: [DNI_1]'],
      ['Adjunto la copia, número 12345678Z, gracias.', 'Adjunto la copia, número [DNI_1], gracias.'],
      ['NIE Y-1234567-X caducado', 'NIE [DNI_1] caducado'],
      ['Il mio codice fiscale è RSSMRA85T10A562S.', 'Il mio codice fiscale è [CODICE_FISCALE_1].'],
      ['CF: BNCGLI90A41F205H', 'CF: [CODICE_FISCALE_1]'],
      ['codice fiscale: RSS MRA 85T10 A562S', 'codice fiscale: [CODICE_FISCALE_1]'],
      ['scrivo il cf in minuscolo: rssmra85t10a562s', 'scrivo il cf in minuscolo: [CODICE_FISCALE_1]'],
      ['Mój PESEL: 92030567893, proszę o kontakt.', 'Mój PESEL: [PESEL_1], proszę o kontakt.'],
      ['Please update my record, id 92030567893.', 'Please update my record, id [PESEL_1].'],
      ['{"dni": "12345678Z", "pesel": "92030567893", "codice_fiscale": "RSSMRA85T10A562S"}', '{"dni": "[DNI_1]", "pesel": "[PESEL_1]", "codice_fiscale": "[CODICE_FISCALE_1]"}'],
    ];
    for (const [text, masked] of cases) expect(mask(text), text).to.equal(masked);
    expect(detectEntities('PESEL 92030567893', 'en')).to.deep.include({ type: 'PESEL', start: 6, end: 17, text: '92030567893', checksum: true, normalized: '92030567893' });
  });

  it('leaves numbers that fail the check, and order numbers that pass it', () => {
    const kept = [
      'DNI 12345678A',
      'NIE X1234567A',
      'codice fiscale RSSMRA85T10A562T',
      'PESEL 92030567894',
      'Order 12345678Z shipped on Monday.',
      'Bestelnummer 92030567893 is onderweg.',
      'Rechnung Nr. 92030567893',
      'SKU ABCDEF12G34H567I in stock',
      // A weight or a size: the letter in lower case.
      'Parcel 12345678 z',
    ];
    for (const text of kept) expect(mask(text), text).to.equal(text);
  });
});
