import { expect } from 'chai';
import {
  addressRecognizer,
  beNationalNumberRecognizer,
  bsnRecognizer,
  cardRecognizer,
  dateOfBirthRecognizer,
  emailRecognizer,
  ibanRecognizer,
  ipRecognizer,
  nhsNumberCompactRecognizer,
  nhsNumberRecognizer,
  ninoRecognizer,
  nirRecognizer,
  personRecognizer,
  phoneRecognizer,
  steuerIdRecognizer,
} from '../../src/firewall/recognizers/index.js';
import { findStreets } from '../../src/firewall/recognizers/street.js';
import { NON_PERSONAL_NUMBER_CUE } from '../../src/firewall/context.js';
import { detectEntities } from '../../src/firewall/detect.js';
import type { Language, Recognizer } from '../../src/firewall/types.js';

function found(r: Recognizer, text: string, lang: Language = 'en'): string[] {
  const ds = r.detect(text, lang);
  for (const d of ds) {
    expect(d.type).to.equal(r.type);
    expect(text.slice(d.start, d.end)).to.equal(d.text);
  }
  return ds.map((d) => d.text);
}

describe('firewall recognizers', () => {
  describe('EMAIL', () => {
    it('finds addresses with the exact span', () => {
      expect(found(emailRecognizer, 'Mail me at jan.de.vries+work@example.co.uk.')).to.deep.equal(['jan.de.vries+work@example.co.uk']);
      expect(found(emailRecognizer, 'josé@exemple.fr, anna@web.de')).to.deep.equal(['josé@exemple.fr', 'anna@web.de']);
    });
    it('rejects what is not an address', () => {
      expect(found(emailRecognizer, 'Follow @polder on social media')).to.deep.equal([]);
      expect(found(emailRecognizer, 'user@localhost and a..b@example.com and x@1.2')).to.deep.equal([]);
      expect(found(emailRecognizer, 'no at sign here')).to.deep.equal([]);
    });
    it('normalises to lower case', () => {
      expect(emailRecognizer.detect('Jan@Example.NL', 'en')[0]!.normalized).to.equal('jan@example.nl');
    });
  });

  describe('PHONE', () => {
    it('uses the message language for the default region', () => {
      expect(found(phoneRecognizer, 'Bel me op 06-12345678', 'nl')).to.deep.equal(['06-12345678']);
      expect(found(phoneRecognizer, 'Ruf mich an: 0151 23456789', 'de')).to.deep.equal(['0151 23456789']);
      expect(found(phoneRecognizer, 'Appelez-moi au 06 12 34 56 78', 'fr')).to.deep.equal(['06 12 34 56 78']);
      expect(found(phoneRecognizer, 'Call me on 07911 123456', 'en')).to.deep.equal(['07911 123456']);
    });
    it('masks a number of another country whole, trunk prefix included, when a fallback region reads it whole', () => {
      // Under NL, and under BE (tried before DE), only the last eight digits are a number; the
      // German reading of the whole run must win, or the prefix is left in clear ("0176 [PHONE_1]").
      expect(found(phoneRecognizer, 'Mijn nummer is 0151 23456789', 'nl')).to.deep.equal(['0151 23456789']);
      expect(found(phoneRecognizer, 'Je kunt me bereiken op 0176 25965890', 'nl')).to.deep.equal(['0176 25965890']);
      expect(found(phoneRecognizer, 'Mijn Duitse nummer is 0176 25965890, bel gerust.', 'nl')).to.deep.equal(['0176 25965890']);
      expect(found(phoneRecognizer, 'Mijn nummer is 0152/23456789', 'nl')).to.deep.equal(['0152/23456789']);
      expect(found(phoneRecognizer, 'Mon numéro allemand : 0176 25965890', 'fr')).to.deep.equal(['0176 25965890']);
    });
    it('finds international numbers whatever the language', () => {
      expect(found(phoneRecognizer, 'Reach me at +44 20 7946 0018 or 0031 6 12345678', 'de')).to.deep.equal([
        '+44 20 7946 0018',
        '0031 6 12345678',
      ]);
    });
    it('normalises to E.164 so that both notations share a placeholder', () => {
      const [a] = phoneRecognizer.detect('bel 06 12345678', 'nl');
      const [b] = phoneRecognizer.detect('call +31 6 12345678', 'en');
      expect(a!.normalized).to.equal('+31612345678');
      expect(b!.normalized).to.equal('+31612345678');
    });
    it('leaves dates, times, versions, amounts and order numbers alone', () => {
      expect(found(phoneRecognizer, 'Termin 2024-03-15 um 14:32:10, Version 2.14.3, Betrag 1.234.567,89 €', 'de')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'Bestellnummer 0151 23456789 bitte angeben', 'de')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'Uw bestelling met nummer 0612345678 komt morgen', 'nl')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'Rechnung 4051234567 vom März', 'de')).to.deep.equal([]);
    });
    it('leaves the timestamps of log lines alone, also next to a phone cue', () => {
      expect(found(phoneRecognizer, 'API call at 20241126 093015 failed; call at 20241126093015 too', 'en')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'call 2024-11-26 09:30:15.123 ERROR timeout; [2024/11/26 09:30:15] phone webhook', 'en')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'Anruf um 26.11.2024 0930 fehlgeschlagen, Log: 20241126-093015', 'de')).to.deep.equal([]);
      // A phone number next to a timestamp is still one.
      expect(found(phoneRecognizer, '20241126 093015 call from 06 12345678 dropped', 'nl')).to.deep.equal(['06 12345678']);
    });
    it('needs a cue for a bare run of digits without trunk prefix', () => {
      expect(found(phoneRecognizer, 'het getal 612345678 staat erop', 'nl')).to.deep.equal([]);
      expect(found(phoneRecognizer, 'mijn mobiel: 612345678', 'nl')).to.deep.equal(['612345678']);
    });
    it('costs nothing on digit-free text', () => {
      expect(found(phoneRecognizer, 'Geen cijfers in deze zin, alleen woorden.', 'nl')).to.deep.equal([]);
    });
    it('is not cancelled by chat "btw" or by words that merely start like a "not personal" cue', () => {
      // "btw" (by the way), "building", "ustedes" read as the cues btw (VAT), build and USt.
      expect(found(phoneRecognizer, "Oh btw, Sanne's number is +31 6 12345678", 'en')).to.deep.equal(['+31 6 12345678']);
      expect(found(phoneRecognizer, 'Oh btw, +31 6 12345678 is van Sanne', 'nl')).to.deep.equal(['+31 6 12345678']);
      expect(found(phoneRecognizer, 'btw mijn nummer is 0687654321', 'nl')).to.deep.equal(['0687654321']);
      expect(found(phoneRecognizer, 'btw my number is 07911 123456', 'en')).to.deep.equal(['07911 123456']);
      expect(found(phoneRecognizer, 'The building manager, reachable on +44 7911 123456, has the keys.', 'en')).to.deep.equal(['+44 7911 123456']);
      expect(found(phoneRecognizer, 'Ustedes pueden llamarme al +34 612 345 678', 'en')).to.deep.equal(['+34 612 345 678']);
    });
    it('still reads btw and USt as VAT where they are written as VAT', () => {
      for (const vat of ['btw-nummer', 'BTW nr', 'btw-id', 'btwnummer', 'btw 21%', 'BTW: NL8', 'incl. btw', '21% btw', 'USt-IdNr.', 'USt 19%', 'build 10.0'])
        expect(NON_PERSONAL_NUMBER_CUE.test(vat), vat).to.equal(true);
      for (const chat of ['oh btw,', 'btw mijn', 'Btw, call me', 'the building', 'ustedes', 'Ustream'])
        expect(NON_PERSONAL_NUMBER_CUE.test(chat), chat).to.equal(false);
      expect(found(phoneRecognizer, 'Bedrag 0612345678 excl. btw', 'nl')).to.deep.equal([]);
    });
  });

  describe('IBAN', () => {
    it('accepts valid IBANs, compact or grouped', () => {
      expect(found(ibanRecognizer, 'IBAN NL91 ABNA 0417 1643 00.')).to.deep.equal(['NL91 ABNA 0417 1643 00']);
      expect(found(ibanRecognizer, 'Konto DE89370400440532013000 bitte')).to.deep.equal(['DE89370400440532013000']);
      expect(found(ibanRecognizer, 'BE68 5390 0754 7034 en FR14 2004 1010 0505 0001 3M02 606')).to.deep.equal([
        'BE68 5390 0754 7034',
        'FR14 2004 1010 0505 0001 3M02 606',
      ]);
    });
    it('rejects wrong check digits and wrong lengths', () => {
      expect(found(ibanRecognizer, 'IBAN NL92 ABNA 0417 1643 00')).to.deep.equal([]); // mod 97 fails
      expect(found(ibanRecognizer, 'IBAN NL91 ABNA 0417 1643 0')).to.deep.equal([]); // too short for NL
      expect(found(ibanRecognizer, 'Referentie RF18 5390 0754 7034')).to.deep.equal([]); // creditor reference, not an IBAN
    });
    it('does not swallow a following number', () => {
      expect(found(ibanRecognizer, 'NL91 ABNA 0417 1643 00 12 euro')).to.deep.equal(['NL91 ABNA 0417 1643 00']);
    });
  });

  describe('CARD', () => {
    it('accepts Luhn-valid numbers with a known issuer prefix', () => {
      expect(found(cardRecognizer, 'card 4111 1111 1111 1111 exp 12/26')).to.deep.equal(['4111 1111 1111 1111']);
      expect(found(cardRecognizer, 'Amex 3782 822463 10005')).to.deep.equal(['3782 822463 10005']);
      expect(found(cardRecognizer, 'MC 5500-0055-5555-5559')).to.deep.equal(['5500-0055-5555-5559']);
    });
    it('rejects Luhn failures, unknown prefixes and odd grouping', () => {
      expect(found(cardRecognizer, 'card 4111 1111 1111 1112')).to.deep.equal([]);
      expect(found(cardRecognizer, 'card 1111 1111 1111 1117')).to.deep.equal([]); // Luhn ok, no issuer
      expect(found(cardRecognizer, 'card 41 1111111 1111111')).to.deep.equal([]);
    });
    it('drops a valid-looking number in a transaction or serial-number context', () => {
      expect(found(cardRecognizer, 'Serial number 4111-1111-1111-1111 on the label')).to.deep.equal([]);
    });
    it('reads no card in an international number: a "+" before it makes it a phone (QA: "+[CARD_1]")', () => {
      expect(found(cardRecognizer, 'Mein Handy: +4915112345678', 'de')).to.deep.equal([]);
      expect(found(cardRecognizer, 'Mein Handy: + 4915112345678', 'de')).to.deep.equal([]);
      for (const text of ['Mein Handy: +4915112345678', '{"handy": "+4915112345678"}']) {
        const ds = detectEntities(text, 'de');
        expect(ds.map((d) => [d.type, d.text]), text).to.deep.equal([['PHONE', '+4915112345678']]);
      }
    });
  });

  describe('BSN', () => {
    it('accepts 11-proof numbers', () => {
      expect(found(bsnRecognizer, 'Mijn BSN is 111222333.')).to.deep.equal(['111222333']);
      expect(found(bsnRecognizer, 'BSN 1112.22.333 en 123 456 782')).to.deep.equal(['1112.22.333', '123 456 782']);
    });
    it('rejects numbers that fail the 11-proof', () => {
      expect(found(bsnRecognizer, 'Mijn BSN is 111222334.')).to.deep.equal([]);
      expect(found(bsnRecognizer, 'Mijn BSN is 123456789.')).to.deep.equal([]);
    });
    it('drops an 11-proof number that is an order number', () => {
      expect(found(bsnRecognizer, 'Ordernummer 111222333 is verzonden')).to.deep.equal([]);
    });
  });

  describe('NIR', () => {
    it('accepts a valid key, written grouped or compact, including Corsica', () => {
      expect(found(nirRecognizer, 'sécu : 2 55 08 14 168 025 38', 'fr')).to.deep.equal(['2 55 08 14 168 025 38']);
      expect(found(nirRecognizer, 'NIR 255081416802538', 'fr')).to.deep.equal(['255081416802538']);
      expect(found(nirRecognizer, 'NIR 2 35 11 2A 761 691 32', 'fr')).to.deep.equal(['2 35 11 2A 761 691 32']);
      expect(found(nirRecognizer, 'NIR 2 54 11 2B 421 789 15', 'fr')).to.deep.equal(['2 54 11 2B 421 789 15']);
    });
    it('rejects a wrong key', () => {
      expect(found(nirRecognizer, 'sécu : 2 55 08 14 168 025 39', 'fr')).to.deep.equal([]);
      expect(found(nirRecognizer, 'NIR 2 35 11 2B 761 691 32', 'fr')).to.deep.equal([]); // 2A number with 2B
    });
  });

  describe('STEUER_ID', () => {
    it('accepts a valid ISO 7064 check digit', () => {
      expect(found(steuerIdRecognizer, 'Steuer-ID 86095742719', 'de')).to.deep.equal(['86095742719']);
      expect(found(steuerIdRecognizer, 'IdNr. 86 095 742 719', 'de')).to.deep.equal(['86 095 742 719']);
    });
    it('rejects a wrong check digit or a number breaking the digit rules', () => {
      expect(found(steuerIdRecognizer, 'Steuer-ID 86095742718', 'de')).to.deep.equal([]);
      expect(found(steuerIdRecognizer, 'Steuer-ID 12345678903', 'de')).to.deep.equal([]); // no repeated digit
    });
  });

  describe('BE_NATIONAL_NUMBER', () => {
    it('accepts valid numbers, before and after 2000', () => {
      expect(found(beNationalNumberRecognizer, 'rijksregisternummer 85.07.30-033.28', 'nl')).to.deep.equal(['85.07.30-033.28']);
      expect(found(beNationalNumberRecognizer, 'numéro national 01022461785', 'fr')).to.deep.equal(['01022461785']);
    });
    it('rejects a wrong check number', () => {
      expect(found(beNationalNumberRecognizer, 'rijksregisternummer 85.07.30-033.29', 'nl')).to.deep.equal([]);
    });
  });

  describe('NHS number', () => {
    it('finds NHS and CHI numbers as the NHS writes them, in groups, by their check digit; compact ones after their label only (they were sent)', () => {
      expect(found(nhsNumberRecognizer, 'Patient 943 476 5919 was seen today')).to.deep.equal(['943 476 5919']);
      expect(found(nhsNumberRecognizer, 'NHS number: 401-023-2137')).to.deep.equal(['401-023-2137']);
      expect(found(nhsNumberCompactRecognizer, 'My NHS no is 9434765919.')).to.deep.equal(['9434765919']);
      expect(found(nhsNumberCompactRecognizer, 'CHI number 4010232137')).to.deep.equal(['4010232137']);
      expect(detectEntities('nhs_number=9434765919', 'en').map((d) => [d.type, d.text])).to.deep.equal([['NHS_NUMBER', '9434765919']]);
    });
    it('leaves numbers that fail the check, compact ones without a label, and order numbers', () => {
      expect(found(nhsNumberRecognizer, 'Patient 943 476 5918 was seen today')).to.deep.equal([]);
      expect(found(nhsNumberCompactRecognizer, 'tracking 9434765919 shipped')).to.deep.equal([]);
      expect(found(nhsNumberRecognizer, 'Order 943 476 5919 is on its way')).to.deep.equal([]);
    });
  });

  describe('NINO', () => {
    it('finds UK National Insurance numbers, spaced or compact', () => {
      expect(found(ninoRecognizer, 'My National Insurance number is AB 12 34 56 C.')).to.deep.equal(['AB 12 34 56 C']);
      expect(found(ninoRecognizer, 'NI no: JG103759A, and AB 123456 C')).to.deep.equal(['JG103759A', 'AB 123456 C']);
      const [d] = ninoRecognizer.detect('AB 12 34 56 C', 'en');
      expect(d).to.include({ normalized: 'AB123456C', checksum: false });
    });
    it('reads one written in lower case after its label only (it was sent, its label masked as a name)', () => {
      const text = 'my nino is jk482917b';
      expect(detectEntities(text, 'en').map((d) => [d.type, d.text])).to.deep.equal([['NINO', 'jk482917b']]);
      expect(detectEntities(text, 'en')[0]!.normalized).to.equal('JK482917B');
      expect(detectEntities('order jk482917b shipped, ref ab123456c', 'en')).to.deep.equal([]);
    });
    it('refuses prefixes HMRC never issues, other suffixes, and order or product codes', () => {
      expect(found(ninoRecognizer, 'QQ123456C GB123456A DA123456A AO123456A AB123456E')).to.deep.equal([]);
      expect(found(ninoRecognizer, 'order AB123456C shipped; product code AB 12 34 56 D')).to.deep.equal([]);
      expect(found(ninoRecognizer, 'XAB123456C AB1234567C AB123456CD')).to.deep.equal([]);
    });
  });

  describe('IP', () => {
    it('finds IPv4 and IPv6', () => {
      expect(found(ipRecognizer, 'from 192.168.1.20 and 2001:db8::8a2e:370:7334.')).to.deep.equal(['192.168.1.20', '2001:db8::8a2e:370:7334']);
      expect(found(ipRecognizer, 'mapped ::ffff:192.0.2.1 here')).to.deep.equal(['::ffff:192.0.2.1']);
    });
    it('rejects invalid octets, versions, times and MAC addresses', () => {
      expect(found(ipRecognizer, '256.1.1.1 and 1.2.3 and 01.02.2024')).to.deep.equal([]);
      expect(found(ipRecognizer, 'version 10.0.19045.1 and v1.2.3.4 and firmware 2.4.10.1')).to.deep.equal([]);
      expect(found(ipRecognizer, 'at 14:32:10, MAC 00:1A:2B:3C:4D:5E')).to.deep.equal([]);
    });
  });

  describe('IP versus version numbers', () => {
    it('reads a dotted number after a version pin or word, or joined to a version, as a version', () => {
      expect(found(ipRecognizer, 'pip install foo==1.2.3.4; npm i bar@^2.0.0.1')).to.deep.equal([]);
      expect(found(ipRecognizer, 'We upgraded from 1.2.3.3 to 1.2.3.4 and it broke; the 1.2.3.5 release is out.')).to.deep.equal([]);
      expect(found(ipRecognizer, 'bumped the agent to 1.2.3.4, then git tag 1.2.3.5 after updating to 1.2.3.6')).to.deep.equal([]);
    });
    it('reads a dotted number right after a component that has versions as a version: kernel, libc, BIOS, a compiler (it was masked)', () => {
      expect(found(ipRecognizer, 'I run kernel 5.15.0.91 on the box')).to.deep.equal([]);
      expect(found(ipRecognizer, 'kernel 5.15.0.91')).to.deep.equal([]);
      expect(found(ipRecognizer, 'Kernel: 6.1.0.17, glibc 2.35.0.1, BIOS 1.20.0.3, openssl 3.0.2.1')).to.deep.equal([]);
      // Only right after the word: an address further on is still one.
      expect(found(ipRecognizer, 'kernel panic on 81.204.17.56')).to.deep.equal(['81.204.17.56']);
    });
    it('keeps real addresses masked next to the same words, and private addresses too (decision 0017)', () => {
      expect(found(ipRecognizer, 'ssh user@81.204.17.56 or host=92.40.176.3')).to.deep.equal(['81.204.17.56', '92.40.176.3']);
      expect(found(ipRecognizer, 'The customer installed it from 81.204.17.56; update the allowlist to 92.40.176.3.')).to.deep.equal([
        '81.204.17.56',
        '92.40.176.3',
      ]);
      expect(found(ipRecognizer, 'we moved from 81.204.17.56 to 92.40.176.3; my router is at 10.0.0.1')).to.deep.equal([
        '81.204.17.56',
        '92.40.176.3',
        '10.0.0.1',
      ]);
    });
  });

  describe('DATE_OF_BIRTH', () => {
    it('finds dates next to a birth cue, in each language', () => {
      expect(found(dateOfBirthRecognizer, 'geboren op 14-02-1987', 'nl')).to.deep.equal(['14-02-1987']);
      expect(found(dateOfBirthRecognizer, 'Ik ben op 3 maart 1992 in Utrecht geboren', 'nl')).to.deep.equal(['3 maart 1992']);
      expect(found(dateOfBirthRecognizer, 'DOB: 1979-11-02', 'en')).to.deep.equal(['1979-11-02']);
      expect(found(dateOfBirthRecognizer, 'born on July 21, 1983', 'en')).to.deep.equal(['July 21, 1983']);
      expect(found(dateOfBirthRecognizer, 'née le 1er mars 1990', 'fr')).to.deep.equal(['1er mars 1990']);
      expect(found(dateOfBirthRecognizer, 'Geburtsdatum: 12. März 1985', 'de')).to.deep.equal(['12. März 1985']);
    });
    it('finds dates after a Spanish, Italian or Polish birth cue (QA: they were sent in clear)', () => {
      const cases: Array<[string, string]> = [
        ['Fecha de nacimiento: 15/03/1990', '15/03/1990'],
        ['nacida el 4 de julio de 1965 en Sevilla', '4 de julio de 1965'],
        ['Nació el 31 de diciembre de 1979.', '31 de diciembre de 1979'],
        ['Data di nascita: 10/12/1985', '10/12/1985'],
        ['nata il 2 giugno 1958', '2 giugno 1958'],
        ['nato a Roma il 3 marzo 1970', '3 marzo 1970'],
        ['Data urodzenia: 05.03.1992', '05.03.1992'],
        ['Jan Kowalski, ur. 12.08.1949', '12.08.1949'],
        ['urodzona 7 października 1988 r. w Krakowie', '7 października 1988'],
      ];
      for (const [text, date] of cases) expect(found(dateOfBirthRecognizer, text, 'en'), text).to.deep.equal([date]);
      // Other dates stay, and "NATO" is no "nato il".
      for (const text of ['La reunión es el 15/03/2024.', 'Il 2 giugno 1946 nasce la Repubblica.', 'NATO was founded on 4 April 1949.', 'Spotkanie 12.08.2024 o 10:00.']) {
        expect(found(dateOfBirthRecognizer, text, 'en'), text).to.deep.equal([]);
      }
    });
    it('reads the genealogical star before a date as "born" (it was sent)', () => {
      expect(found(dateOfBirthRecognizer, 'Sohn, *12.04.2010', 'de')).to.deep.equal(['12.04.2010']);
      expect(found(dateOfBirthRecognizer, 'Maria Weber (* 3. Mai 1948 in Köln)', 'de')).to.deep.equal(['3. Mai 1948']);
      // Not Markdown: bold, or a bullet at the start of a line.
      expect(found(dateOfBirthRecognizer, 'Termin am **12.04.2010** um 10 Uhr', 'de')).to.deep.equal([]);
      expect(found(dateOfBirthRecognizer, 'Besprechungen:\n* 12.04.2010 Planung\n* 13.04.2010 Review', 'de')).to.deep.equal([]);
    });
    it('reads the degree sign of Belgian and French records and an English "b." in brackets or after a comma as "born" (they were sent)', () => {
      expect(found(dateOfBirthRecognizer, 'Jan Peeters, ° 12/03/1985, Gent', 'nl')).to.deep.equal(['12/03/1985']);
      expect(found(dateOfBirthRecognizer, 'Marie Dubois °3 mars 1990', 'fr')).to.deep.equal(['3 mars 1990']);
      expect(found(dateOfBirthRecognizer, 'John Smith (b. 4 Feb 1982) is our client', 'en')).to.deep.equal(['4 Feb 1982']);
      expect(found(dateOfBirthRecognizer, 'Mary Jones, b. 4 Feb 1982', 'en')).to.deep.equal(['4 Feb 1982']);
      // Not a temperature's degree sign, nor a list's item "b.".
      expect(found(dateOfBirthRecognizer, 'It was 20° 12/03/1985 at noon', 'en')).to.deep.equal([]);
      expect(found(dateOfBirthRecognizer, 'Deadlines: a. 3 May 2020 b. 4 Feb 2021', 'en')).to.deep.equal([]);
      // Nor "n°" (numéro) or "T°" (a temperature), nor the "b." of a list that has an "a." (QA).
      for (const text of ['Facture n° 12/03/2024', 'Patient: T° 12/03/2024 38,5', 'Steps: a. 12/03/2024 kickoff, b. 15/04/2024 release']) {
        expect(found(dateOfBirthRecognizer, text, 'fr'), text).to.deep.equal([]);
      }
    });
    it('ignores dates without a cue and impossible dates', () => {
      expect(found(dateOfBirthRecognizer, 'De vergadering is op 14-06-2024', 'nl')).to.deep.equal([]);
      expect(found(dateOfBirthRecognizer, 'geboren op 31-02-1987', 'nl')).to.deep.equal([]);
      expect(found(dateOfBirthRecognizer, 'born 12/04/2999', 'en')).to.deep.equal([]);
    });
  });

  describe('ADDRESS', () => {
    it('finds NL, DE, FR, BE and UK addresses with house number and postcode', () => {
      expect(found(addressRecognizer, 'Ik woon op de Keizersgracht 123, 1015 CJ Amsterdam.', 'nl')).to.deep.equal([
        'Keizersgracht 123, 1015 CJ Amsterdam',
      ]);
      expect(found(addressRecognizer, 'Wir wohnen in der Hauptstraße 5a, 10115 Berlin.', 'de')).to.deep.equal(['Hauptstraße 5a, 10115 Berlin']);
      expect(found(addressRecognizer, "J'habite au 12 rue de la Paix, 75002 Paris.", 'fr')).to.deep.equal(['12 rue de la Paix, 75002 Paris']);
      expect(found(addressRecognizer, 'Il habite Rue de la Loi 16, 1000 Bruxelles.', 'fr')).to.deep.equal(['Rue de la Loi 16, 1000 Bruxelles']);
      expect(found(addressRecognizer, 'Send it to 221B Baker Street, London NW1 6XE.', 'en')).to.deep.equal([
        '221B Baker Street, London NW1 6XE',
      ]);
      expect(found(addressRecognizer, 'Adres:\nZeestraat 102\n2518 AD Den Haag', 'nl')).to.deep.equal(['Zeestraat 102\n2518 AD Den Haag']);
    });
    it('keeps the flat’s unit, door or floor after the house number, and reads the postcode and town after it', () => {
      expect(found(addressRecognizer, 'Kerkstraat 12 bus 3, 9000 Gent', 'nl')).to.deep.equal(['Kerkstraat 12 bus 3, 9000 Gent']);
      expect(found(addressRecognizer, 'Hauptstraße 5/3/12, 1010 Wien', 'de')).to.deep.equal(['Hauptstraße 5/3/12, 1010 Wien']);
      expect(found(addressRecognizer, 'Hauptstraße 5, 3. OG, 1010 Wien', 'de')).to.deep.equal(['Hauptstraße 5, 3. OG, 1010 Wien']);
      expect(found(addressRecognizer, 'Kerkstraat 12-II, 1012 AB Amsterdam', 'nl')).to.deep.equal(['Kerkstraat 12-II, 1012 AB Amsterdam']);
      expect(found(addressRecognizer, 'Rue Haute 5 bte 2, 1000 Bruxelles', 'fr')).to.deep.equal(['Rue Haute 5 bte 2, 1000 Bruxelles']);
      // Without a postcode (the street recognizer).
      const streets = (text: string, _lang: Language) => findStreets(text).map((d) => d.text);
      expect(streets('Ik woon op Kerkstraat 12 bus 3 in Gent.', 'nl')).to.deep.equal(['Kerkstraat 12 bus 3 in Gent']);
      expect(streets('Meine Adresse ist Hauptstraße 5/3/12, bitte dort liefern.', 'de')).to.deep.equal(['Hauptstraße 5/3/12']);
      expect(streets('Meine Adresse ist Hauptstraße 5, 3. OG, bitte klingeln; Hauptstraße 7 Top 4.', 'de')).to.deep.equal([
        'Hauptstraße 5, 3. OG',
        'Hauptstraße 7 Top 4',
      ]);
      expect(streets('Kerkstraat 12-II, Kerkstraat 14 hs en Kerkstraat 16A.', 'nl')).to.deep.equal(['Kerkstraat 12-II', 'Kerkstraat 14 hs', 'Kerkstraat 16A']);
      expect(streets('Kerkstraat 12 I think. Die Hauptstraße 5 Kilometer weiter.', 'en')).to.deep.equal(['Kerkstraat 12']);
    });
    it('takes the town of a street address without a postcode into the address (it was left beside it), and no town alone', () => {
      const streets = (text: string) => findStreets(text).map((d) => d.text);
      expect(streets('ik woon op de Dorpsstraat 12 in Hoogeveen')).to.deep.equal(['Dorpsstraat 12 in Hoogeveen']);
      expect(streets('I live at 14 Mill Lane, Thornbury')).to.deep.equal(['14 Mill Lane, Thornbury']);
      expect(streets("j'habite 3 rue des lilas à Villeurbanne")).to.deep.equal(['3 rue des lilas à Villeurbanne']);
      expect(streets('Wir wohnen Hauptstraße 5 in Frankfurt am Main.')).to.deep.equal(['Hauptstraße 5 in Frankfurt am Main']);
      expect(streets('Kerkstraat 12 te Zwolle. Oranjestraat 4 hs in Den Haag')).to.deep.equal(['Kerkstraat 12 te Zwolle', 'Oranjestraat 4 hs in Den Haag']);
      // In lower case, where the sentence ends or goes on with a function word.
      expect(streets('ik woon op de kastanjelaan 7 in zwolle, bel maar aan')).to.deep.equal(['kastanjelaan 7 in zwolle']);
      expect(streets("j'habite au 3 rue des lilas à villeurbanne depuis 2019")).to.deep.equal(['3 rue des lilas à villeurbanne']);
      // What follows a street and is no town stays.
      for (const [text, street] of [
        ['ik woon op de Dorpsstraat 12 in het centrum', 'Dorpsstraat 12'],
        ['Kerkstraat 12 in januari', 'Kerkstraat 12'],
        ['Kantstr. 112, Hinterhaus, 3. Stock', 'Kantstr. 112'],
        ['Eichendorffweg 3, gleich hinter der Kirche', 'Eichendorffweg 3'],
        ['9 Kings Street, top bell.', '9 Kings Street'],
        ['14 Mill Lane, Thornbury is lovely', '14 Mill Lane'],
        ["j'habite au 12 rue de la paix à pied", '12 rue de la paix'],
        ['ik woon op de kerkstraat 12 in zwolle bel maar aan', 'kerkstraat 12'],
        ['ik woon op de kerkstraat 12 in totaal 3 jaar', 'kerkstraat 12'],
      ]) {
        expect(streets(text!), text).to.deep.equal([street]);
      }
      // A town on its own is not an address.
      for (const text of ['I flew to Paris', 'ik woon in Hoogeveen', "j'habite à Villeurbanne", 'Wir wohnen in Berlin, Hauptstadt.']) {
        expect(streets(text), text).to.deep.equal([]);
      }
    });
    it('reads a lower-case street with its postcode or town after it, whatever words come before it (it was left in clear)', () => {
      const streets = (text: string) => findStreets(text).map((d) => d.text);
      for (const [text, address] of [
        ['mijn adres is kastanjelaan 7, 8011 AB Zwolle', 'kastanjelaan 7, 8011 AB Zwolle'],
        ['het adres is dorpsstraat 4, 1234 AB Utrecht', 'dorpsstraat 4, 1234 AB Utrecht'],
        ['stuur het naar dorpsstraat 4, 1234 ab utrecht', 'dorpsstraat 4, 1234 ab utrecht'],
        ['pakket naar kerkweg 4, 1234 AB Utrecht', 'kerkweg 4, 1234 AB Utrecht'],
        ['meine adresse ist hauptstraße 5, 10115 Berlin', 'hauptstraße 5, 10115 Berlin'],
        ['hauptstraße 5, 10115 berlin', 'hauptstraße 5, 10115 berlin'],
        ['dorpsstraat 4, 1234 ab utrecht', 'dorpsstraat 4, 1234 ab utrecht'],
        ['stuur maar naar merelstraat 8 in zwolle, dan haal ik het daar op', 'merelstraat 8 in zwolle'],
        ['the address is 14 elm grove road, Bristol BS6 7HT', '14 elm grove road, Bristol BS6 7HT'],
        ['send it to 14 elm grove road, bristol bs6 7ht', '14 elm grove road, bristol bs6 7ht'],
        ['I live at 14 Elm Grove Road, bristol bs6 7ht', '14 Elm Grove Road, bristol bs6 7ht'],
      ]) {
        expect(streets(text!), text).to.deep.equal([address]);
      }
      // Without a postcode or town after the number, a lower-case street word needs its lead word.
      for (const text of ['we hebben in hoofdstraat 4 keer gezocht', 'mijn adres is kastanjelaan 7', 'the 3 big road trips, bristol', 'send it to 14 elm grove road please']) {
        expect(streets(text), text).to.deep.equal([]);
      }
    });
    it('reads French streets written in lower case, and type first, without a postcode (they were left in clear)', () => {
      const streets = (text: string) => findStreets(text).map((d) => d.text);
      expect(streets("c'est au 12 rue de la paix, 2e étage")).to.deep.equal(['12 rue de la paix']);
      expect(streets("j'habite au 5 avenue jean jaurès depuis 2019")).to.deep.equal(['5 avenue jean jaurès']);
      expect(streets('bd voltaire 23, sonnez deux fois')).to.deep.equal(['bd voltaire 23']);
      expect(streets('livrez au 8 av. du général de gaulle svp')).to.deep.equal(['8 av. du général de gaulle']);
      expect(streets("j'habite au 10 rue d'alsace et toi ?")).to.deep.equal(["10 rue d'alsace"]);
      expect(streets('Il habite Rue de la Loi 16, au fond de la cour.')).to.deep.equal(['Rue de la Loi 16']);
      // After a word of dwelling every street type leads one, also those that are words in lower case.
      expect(streets("j'habite au 3 chemin des vignes")).to.deep.equal(['3 chemin des vignes']);
      expect(streets('domicile : place du marché 4')).to.deep.equal(['place du marché 4']);
      // Counts, courses, comic books, a past participle, a road number, a year: no address.
      for (const text of [
        "j'ai 2 cours de maths demain",
        'il reste 2 place de libre',
        "j'ai acheté 3 bd de tintin",
        'je suis allée 3 fois, elle est allée voir 2 films',
        'la route nationale 7',
        'je suis passé dans la rue principale 3 fois',
        'tu as 2 rue à traverser',
        'Rue de Rivoli 2024',
        'rendez-vous au 12 rue de la paix pour la réunion',
      ]) {
        expect(streets(text), text).to.deep.equal([]);
      }
      // A meeting at someone's home is at their address (the street's name was masked as a person).
      expect(streets('rdv chez moi, 8 impasse des Lilas à Annecy')).to.deep.equal(['8 impasse des Lilas à Annecy']);
      expect(streets('afspraak bij mij thuis, Kerkstraat 12 in Zwolle')).to.deep.equal(['Kerkstraat 12 in Zwolle']);
    });
    it('ends the town before "en" and a first name: the person after it is no part of the address (the surname was left in clear)', () => {
      expect(found(addressRecognizer, 'Adres: Berkenlaan 14, 3722 GB Bilthoven en Sanne Visser woont op nummer 16', 'nl')).to.deep.equal(['Berkenlaan 14, 3722 GB Bilthoven']);
      expect(found(addressRecognizer, 'Kerkstraat 1, 5611 AB Eindhoven en Jan de Vries', 'nl')).to.deep.equal(['Kerkstraat 1, 5611 AB Eindhoven']);
      expect(found(personRecognizer, 'Adres: Berkenlaan 14, 3722 GB Bilthoven en Sanne Visser woont op nummer 16', 'nl')).to.include('Sanne Visser');
      // A French town's own "en" stays in the town.
      expect(found(addressRecognizer, '5 rue Foch, 51000 Châlons en Champagne', 'fr')).to.deep.equal(['5 rue Foch, 51000 Châlons en Champagne']);
    });
    it('needs both a house number and a postcode', () => {
      expect(found(addressRecognizer, 'Ik woon op de Keizersgracht in Amsterdam.', 'nl')).to.deep.equal([]);
      expect(found(addressRecognizer, 'Die Postleitzahl 80331 gehört zu München.', 'de')).to.deep.equal([]);
      expect(found(addressRecognizer, 'Rendez-vous au 12 rue de Rivoli pour la réunion.', 'fr')).to.deep.equal([]);
    });
  });

  describe('PERSON', () => {
    it('finds names after cue phrases in each language', () => {
      expect(found(personRecognizer, 'Hoi, mijn naam is Jan de Vries.', 'nl')).to.deep.equal(['Jan de Vries']);
      expect(found(personRecognizer, 'Ich heiße Xaver Oberhuber.', 'de')).to.deep.equal(['Xaver Oberhuber']);
      expect(found(personRecognizer, "Je m'appelle Jean-Pierre Dubois.", 'fr')).to.deep.equal(['Jean-Pierre Dubois']);
      expect(found(personRecognizer, 'My name is Okonkwo Adebayo.', 'en')).to.deep.equal(['Okonkwo Adebayo']);
    });
    it('finds names after titles, leaving the title outside the span', () => {
      expect(found(personRecognizer, 'Dhr. Jansen en mevr. A.M. van der Berg', 'nl')).to.deep.equal(['Jansen', 'A.M. van der Berg']);
      expect(found(personRecognizer, 'Frau Dr. Anna Schmidt und Herr Müller', 'de')).to.deep.equal(['Anna Schmidt', 'Müller']);
      expect(found(personRecognizer, 'M. Dupont et Mme Lefèvre', 'fr')).to.deep.equal(['Dupont', 'Lefèvre']);
      expect(found(personRecognizer, 'Mr Thompson and Ms Patel', 'en')).to.deep.equal(['Thompson', 'Patel']);
    });
    it('reads a German doctor\'s faculty after "Dr." as part of the title (QA: "Dr. med. Schäfer" was sent in clear)', () => {
      expect(found(personRecognizer, 'Behandelnder Arzt: Dr. med. Schäfer', 'de')).to.deep.equal(['Schäfer']);
      expect(found(personRecognizer, 'Dr. med. Müller hat angerufen.', 'de')).to.deep.equal(['Müller']);
      expect(found(personRecognizer, 'Befund von Dr. med. Becker liegt vor.', 'de')).to.deep.equal(['Becker']);
      expect(found(personRecognizer, 'Frau Dr. med. Schäfer-Lindner', 'de')).to.deep.equal(['Schäfer-Lindner']);
      expect(found(personRecognizer, 'Dr. med. dent. Jansen', 'de')).to.deep.equal(['Jansen']);
      expect(found(personRecognizer, 'Prof. Dr. rer. nat. Weber und Dr. h.c. Brandt', 'de')).to.deep.equal(['Weber', 'Brandt']);
      expect(found(personRecognizer, 'Dr. med. Anna Schäfer', 'de')).to.deep.equal(['Anna Schäfer']);
    });
    it('chains Dutch academic titles in lower case and takes the initials after them into the name (QA: "drs" masked, initials in clear)', () => {
      expect(found(personRecognizer, 'mr. drs. E.J. van Dam', 'nl')).to.deep.equal(['E.J. van Dam']);
      expect(found(personRecognizer, 'Huisarts: dr. M. Kok', 'nl')).to.deep.equal(['M. Kok']);
      expect(found(personRecognizer, 'Uitgenodigd: prof. dr. ir. J. de Wit en ing. Bakker', 'nl')).to.deep.equal(['J. de Wit', 'Bakker']);
      expect(found(personRecognizer, 'Frau Dr. M. Kok', 'de')).to.deep.equal(['M. Kok']);
      // "M." leading is still the French title.
      expect(found(personRecognizer, 'M. Dupont et Mme Lefèvre', 'fr')).to.deep.equal(['Dupont', 'Lefèvre']);
    });
    it('takes the name after a kinship word alone, also before a starred birth date (it was sent beside the masked date)', () => {
      expect(found(personRecognizer, 'Sohn Jan *02.11.1981, Tochter Greta *17.06.1984.', 'de')).to.deep.equal(['Jan', 'Greta']);
      expect(found(personRecognizer, 'zoon Pieter *12.04.2010, dochter Kjeld *03.05.2012', 'nl')).to.deep.equal(['Pieter', 'Kjeld']);
      expect(found(personRecognizer, 'fils Lucas *12.04.2010, fille Camille *03.05.2012', 'fr')).to.deep.equal(['Lucas', 'Camille']);
      expect(found(personRecognizer, 'My son Oliver 12 and my daughter Grace 9', 'en')).to.deep.equal(['Oliver', 'Grace']);
      // English "son" vouches only for a known first name: in French it is "his".
      expect(found(personRecognizer, 'son Instagram est privé', 'fr')).to.deep.equal([]);
      expect(found(personRecognizer, 'Die Tochtergesellschaft Siemens Energy', 'de')).to.deep.equal([]);
    });
    it('takes every capitalised word after a cue or title, a last surname too (it was left in clear)', () => {
      expect(found(personRecognizer, 'Bitte rufen Sie Frau Maria Garcia Lopez zurück.', 'de')).to.deep.equal(['Maria Garcia Lopez']);
      expect(found(personRecognizer, 'Mijn naam is Jan Peter van der Berg Hoogendoorn.', 'nl')).to.deep.equal(['Jan Peter van der Berg Hoogendoorn']);
      expect(found(personRecognizer, 'Please call Ana María Fernández García tomorrow.', 'en')).to.deep.equal(['Ana María Fernández García']);
      expect(found(personRecognizer, 'Bel mevrouw Anna Bakker Hoogendoorn terug.', 'nl')).to.deep.equal(['Anna Bakker Hoogendoorn']);
      // German writes its nouns with a capital: after a surname only another name continues it.
      expect(found(personRecognizer, 'Bitte geben Sie Frau Anna Schmidt Bescheid.', 'de')).to.deep.equal(['Anna Schmidt']);
      // A street after a name is an address, not more of the name.
      expect(found(personRecognizer, 'Stuur het naar Dhr. Jan Jansen Kerkstraat 12 in Zwolle.', 'nl')).to.deep.equal(['Jan Jansen']);
      // Nor is a role after a name.
      expect(found(personRecognizer, 'Contact Jane Doe Senior Engineer at Acme.', 'en')).to.deep.equal(['Jane Doe']);
      expect(found(personRecognizer, 'Please ask Dr. Emily Watson Chief Medical Officer', 'en')).to.deep.equal(['Emily Watson']);
    });
    it('reads the French title "M." before a capitalised word in any language (short French messages were read as English)', () => {
      for (const lang of ['en', 'nl', 'de'] as const) {
        expect(found(personRecognizer, 'Rappeler M. Lefebvre svp', lang), lang).to.deep.equal(['Lefebvre']);
        expect(found(personRecognizer, 'M. Dupont a appelé hier', lang), lang).to.deep.equal(['Dupont']);
      }
      // Not a size, a unit or a million, a degree, or the end of an acronym or initials.
      expect(found(personRecognizer, 'I take size M. Jackets run small.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Ik heb maat M. Broeken vallen klein.', 'nl')).to.deep.equal([]);
      expect(found(personRecognizer, 'Der Umsatz lag bei 5 M. Euro im Jahr.', 'de')).to.deep.equal([]);
      expect(found(personRecognizer, 'She holds an M. Sc. in physics.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Dear A.M. Okafor, thank you.', 'en')).to.deep.equal(['A.M. Okafor']);
      // Mid-text, "M." ends labels as often: a name the lists know must follow.
      expect(found(personRecognizer, 'See Appendix M. Details are below.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Grootte: M. Kleur: blauw', 'nl')).to.deep.equal([]);
      expect(found(personRecognizer, 'Call M. Kowalczyk tomorrow', 'en')).to.deep.equal(['Kowalczyk']);
    });
    it('reads no name in places: a title inside a compound word, a town-like first name before "de" and a place, a town after "von"', () => {
      // "Dame" is a title, but not as the end of "Notre-Dame".
      expect(found(personRecognizer, 'We visited Notre-Dame de Paris last year.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Notre-Dame de Paris', 'fr')).to.deep.equal([]);
      expect(found(personRecognizer, 'I walked to Santiago de Compostela.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Santiago de Compostela', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Das Team von Jena hat gewonnen.', 'de')).to.deep.equal([]);
      expect(found(personRecognizer, 'Team von Jena', 'de')).to.deep.equal([]);
      // French "visiter" takes places, as the travel words do (QA: "visiter [PERSON_1] et Metz").
      expect(found(personRecognizer, 'Nous voulons visiter Nancy et Metz cet été.', 'fr')).to.deep.equal([]);
      expect(found(personRecognizer, "J'ai visité Florence l'an dernier.", 'fr')).to.deep.equal([]);
      // People still: a known surname after the particle, a cue before a town-like first name.
      expect(found(personRecognizer, 'Santiago de Vries belde gisteren.', 'nl')).to.deep.equal(['Santiago de Vries']);
      expect(found(personRecognizer, 'Mijn naam is Jena Smit.', 'nl')).to.deep.equal(['Jena Smit']);
      expect(found(personRecognizer, 'Dame Judi Dench opened it.', 'en')).to.deep.equal(['Judi Dench']);
    });
    it('reads a programming language named like a person as a language when code is spoken of (it was masked)', () => {
      expect(found(personRecognizer, 'port this script from ruby to julia?', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Port this script from Ruby to Julia?', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Can you rewrite this code in Julia?', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Is Julia faster than Python for this?', 'en')).to.deep.equal([]);
      // People still, where nothing speaks of code.
      expect(found(personRecognizer, 'send it to julia tomorrow', 'en')).to.deep.equal(['julia']);
      expect(found(personRecognizer, 'I met Julia at the station.', 'en')).to.deep.equal(['Julia']);
      // A code comment that names another such language speaks of code (julia was masked there).
      for (const code of ['const x = 1; // port from ruby to julia\nlet y = 2;', '# port from ruby to julia\nx = 1', '/* port from ruby to julia */\nint x;']) {
        expect(found(personRecognizer, code, 'en'), code).to.deep.equal([]);
      }
      // Not a comment alone, nor two such names in chat (they may be two people), nor a URL's "//".
      expect(found(personRecognizer, '// TODO ask julia\nlet y = 2;', 'en')).to.deep.equal(['julia']);
      expect(found(personRecognizer, 'moving from ruby to julia tomorrow', 'en')).to.deep.equal(['julia']);
      expect(found(personRecognizer, 'see https://example.com from ruby to julia', 'en')).to.deep.equal(['julia']);
    });
    it('finds gazetteer first names followed by a surname, and on their own mid-sentence', () => {
      expect(found(personRecognizer, 'Gisteren heeft Pieter Bakker gebeld.', 'nl')).to.deep.equal(['Pieter Bakker']);
      expect(found(personRecognizer, 'I spoke with Sarah from accounts.', 'en')).to.deep.equal(['Sarah']);
    });
    it('does not flag names that are common words, months or brands', () => {
      expect(found(personRecognizer, 'Will you mark the date? May I come in April or August?', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Mark the date in your calendar.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'I bought a Mercedes last year.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Bij Albert Heijn is de koffie in de aanbieding.', 'nl')).to.deep.equal([]);
      // Whiskies named after their makers (they were masked as people).
      expect(found(personRecognizer, 'I drink Jack Daniels and Johnnie Walker, sometimes Jim Beam.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Die Mark war bis 2001 die Währung.', 'de')).to.deep.equal([]);
    });
    it('reads no name in a verb opening a sentence before a brand named after people (QA: "Compare Marks & Spencer" was masked)', () => {
      expect(found(personRecognizer, 'Compare Marks & Spencer and Tesco for Christmas food.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Try Marks & Spencer for the sandwiches.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'I prefer Marks & Spencer for the sandwiches.', 'en')).to.deep.equal([]);
      // A known surname before no brand still follows an unknown first name.
      expect(found(personRecognizer, 'Hanneke Marks called.', 'en')).to.deep.equal(['Hanneke Marks']);
    });
    it('reads a first name after an English article, or before a product word, as a product (coding agents’ prompts)', () => {
      expect(found(personRecognizer, "You are a Claude agent, built on Anthropic's Claude Agent SDK.", 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Fast mode for Claude Code uses Claude Opus 4.6; the job lives only in this Claude session.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Pick what fits the task. Lean toward orchestrating.\n- Judge panel: generate N drafts', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Claude Dupont called. I met Claude at the station.', 'en')).to.deep.equal(['Claude Dupont', 'Claude']);
      expect(found(personRecognizer, 'Der Peter hat angerufen.', 'de')).to.deep.equal(['Peter']);
    });
    it('reads an AI assistant named like a person as the product where the text speaks of it as one (QA: Claude masked in system prompts)', () => {
      const product = [
        'You are Claude, an AI assistant. The most recent Claude models are the Claude 5 family.',
        'Remember: the harness executes these, not Claude. Use the most capable Claude models.',
        'You are Jules, a coding agent. Ask Jules to run the tests; Jules Agent reports back.',
        "I'm Claude, an AI model made by Anthropic. Hi Claude, thanks!",
        'Try Gemini 2.5 or Llama-3 against Claude 3.5 Sonnet; Devin Pro and Cody Enterprise too.',
        'je bent Copilot, een AI-assistent. vraag copilot om hulp.',
        // Listed beside AI products that are no first names (Devin was masked in an agent's system prompt).
        'You are an AI coding agent. Compare yourself to GitHub Copilot, Devin and Cursor. Never claim to be Devin.',
        'Tools like Devin, Copilot and Cursor write code.',
      ];
      for (const text of product) expect(found(personRecognizer, text, 'en'), text).to.deep.equal([]);
      // People still: with a surname, after a strong cue or a title, a greeting where no product is
      // spoken of, a person introducing oneself as an assistant, a count that is no version.
      expect(found(personRecognizer, 'Claude Dubois uses Claude Code.', 'fr')).to.deep.equal(['Claude Dubois']);
      expect(found(personRecognizer, "Je m'appelle Claude. Nos modèles Claude Code.", 'fr')).to.deep.equal(['Claude']);
      expect(found(personRecognizer, 'Bonjour Claude,\nMerci pour ton message.', 'fr')).to.deep.equal(['Claude']);
      expect(found(personRecognizer, 'I am Claude, a research assistant at KU Leuven. Claude can help.', 'en')).to.deep.equal(['Claude', 'Claude']);
      expect(found(personRecognizer, "J'ai revu Claude hier, et Claude 2 fois avant.", 'fr')).to.deep.equal(['Claude']);
      // Listed only beside names that are first names too: people.
      expect(found(personRecognizer, 'Claude, Devin and Cody were at the party.', 'en')).to.include.members(['Devin', 'Cody']);
    });
    it('in chat, reads a first name that is also a word after a greeting, and a name after "so" or "maybe"', () => {
      expect(found(personRecognizer, 'can you reword this: "hi tom, as i said to you last week"', 'en')).to.deep.equal(['tom']);
      expect(found(personRecognizer, 'ok so aisha and connor are both away, maybe karim knows?', 'en')).to.deep.equal(['aisha', 'connor', 'karim']);
      expect(found(personRecognizer, 'so will it work? maybe grace period applies', 'en')).to.deep.equal([]);
    });
    it('reads the French pronoun "lui" as none, in chat too (QA: "pour lui" was masked as a person)', () => {
      for (const text of ["je l'ai acheté pour lui", 'il est chez lui', 'je viens avec lui', "c'est à lui", 'Lui, il est parti hier.'])
        expect(found(personRecognizer, text, 'fr'), text).to.deep.equal([]);
      expect(found(personRecognizer, 'écrire à lucie pour lui dire bonjour', 'fr')).to.deep.equal(['lucie']);
      // With a surname or a cue it is still the name.
      expect(found(personRecognizer, 'Lui Chen called yesterday. Mijn naam is Lui Wong.', 'en')).to.deep.equal(['Lui Chen', 'Lui Wong']);
    });
    it('reads a family by its name: after famille / familie / Familie, and before an English family', () => {
      expect(found(personRecognizer, 'Nous avons dîné chez la famille Le Goff hier.', 'fr')).to.deep.equal(['Le Goff']);
      expect(found(personRecognizer, 'De familie Bakker komt morgen; Die Familie Möller auch.', 'nl')).to.deep.equal(['Bakker', 'Möller']);
      expect(found(personRecognizer, 'We met the Smith family and the Van Dijk family.', 'en')).to.deep.equal(['Smith', 'Van Dijk']);
      expect(found(personRecognizer, 'The family Dinner is on Sunday; the Christmas family dinner; Family Guy.', 'en')).to.deep.equal([]);
    });
    it('leaves the noun before a surname outside the name: a doorbell, a business named after its owner', () => {
      expect(found(personRecognizer, 'Klingel Möller, 2. Stock. Die Bäckerei Müller hat zu.', 'de')).to.deep.equal(['Möller', 'Müller']);
      expect(found(personRecognizer, 'Bel Garage Bakker even, en Hanneke Kramer ook.', 'nl')).to.deep.equal(['Bakker', 'Hanneke Kramer']);
    });
    it('knows surnames by their form where the lists have none, after an unknown first name', () => {
      expect(found(personRecognizer, 'Dragan Petrović called; Ionut Popescu and Nikos Papadopoulos joined.', 'en')).to.deep.equal([
        'Dragan Petrović',
        'Ionut Popescu',
        'Nikos Papadopoulos',
      ]);
      expect(found(personRecognizer, 'Giorgi Beridze en Mehmet Yılmazoğlu komen morgen.', 'nl')).to.deep.equal(['Giorgi Beridze', 'Mehmet Yılmazoğlu']);
      expect(found(personRecognizer, 'Next Lesson starts at nine. The Olympic Ski event.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Call Nadia Ivanova tomorrow; Herr Orlov and Jana Nováková too.', 'en')).to.deep.equal([
        'Nadia Ivanova',
        'Orlov',
        'Jana Nováková',
      ]);
      expect(found(personRecognizer, 'From Lake Geneva to Genova, a Casanova of Moldova.', 'en')).to.deep.equal([]);
    });
    it('knows the names of the largest groups of newcomers: Ukrainian, Chinese, Vietnamese, Syrian, Afghan', () => {
      expect(found(personRecognizer, 'Meeting with Wei Zhang and Svitlana Bondarenko at three.', 'en')).to.deep.equal(['Wei Zhang', 'Svitlana Bondarenko']);
      expect(found(personRecognizer, 'Ik heb Thanh Nguyen en Bashar Halabi gebeld.', 'nl')).to.deep.equal(['Thanh Nguyen', 'Bashar Halabi']);
      expect(found(personRecognizer, 'Ich habe mit Dmytro gesprochen, nicht mit Farhad Ahmadi.', 'de')).to.deep.equal(['Dmytro', 'Farhad Ahmadi']);
      expect(found(personRecognizer, 'A Ming vase from Hong Kong and the Tao of Pooh; I live in Geneva.', 'en')).to.deep.equal([]);
    });
    it('reads Vietnamese names surname first: surname, middle name, given name', () => {
      expect(found(personRecognizer, 'Nguyen Van Minh is our new engineer; send it to Tran Thi Lan.', 'en')).to.deep.equal([
        'Nguyen Van Minh',
        'Tran Thi Lan',
      ]);
      expect(found(personRecognizer, 'Nguyễn Thị Hoa belde, en Le Van Hung ook.', 'nl')).to.deep.equal(['Nguyễn Thị Hoa', 'Le Van Hung']);
      expect(found(personRecognizer, 'Meeting with Pham Duc Anh, Nguyen Thi Thu Ha and Hoang Minh.', 'en')).to.deep.equal([
        'Pham Duc Anh',
        'Nguyen Thi Thu Ha',
        'Hoang Minh',
      ]);
      // Surnames that are words or places elsewhere need a middle name.
      expect(found(personRecognizer, 'We flew to Ho Chi Minh City. Le Mans is a race. Do Not Disturb. Ha Long Bay.', 'en')).to.deep.equal([]);
    });
    it('reads a name before a semicolon in prose as a name, and a type before a declared variable as code', () => {
      expect(found(personRecognizer, 'Pieter Bakker belde; ik heb hem gesproken.', 'nl')).to.deep.equal(['Pieter Bakker']);
      expect(found(personRecognizer, 'I met Sarah yesterday; she was fine.', 'en')).to.deep.equal(['Sarah']);
      expect(found(personRecognizer, '    Victor victor;\n    Alice alice = new Alice();', 'en')).to.deep.equal([]);
    });
    it('accepts a common-word name when a cue says it is a name', () => {
      expect(found(personRecognizer, 'Hi Will, thanks!', 'en')).to.deep.equal(['Will']);
      expect(found(personRecognizer, 'Will Smith is not a customer.', 'en')).to.deep.equal(['Will Smith']);
    });
    it('reads signatures after a sign-off line', () => {
      expect(found(personRecognizer, 'Met vriendelijke groet,\nJeroen Smit', 'nl')).to.deep.equal(['Jeroen Smit']);
      expect(found(personRecognizer, 'Mit freundlichen Grüßen\nJonas Hoffmann', 'de')).to.deep.equal(['Jonas Hoffmann']);
    });
    it('reads no sign-off before a brand named after people: "the best Ben & Jerry\'s flavour"', () => {
      for (const text of ["what's the best Ben & Jerry's flavour", "best Ben & Jerry's flavour"]) {
        expect(found(personRecognizer, text, 'en'), text).to.deep.equal([]);
      }
      expect(found(personRecognizer, 'Best, Ben', 'en')).to.deep.equal(['Ben']);
    });
    it('reads the name under an informal closing on its own line: Groetjes, Thanks so much, Bonne journée (it was sent)', () => {
      for (const [text, name, lang] of [
        ['Tot morgen!\nGroetjes,\nSanne', 'Sanne', 'nl'],
        ['Bedankt!\nGroetjes,\nAnouk', 'Anouk', 'nl'],
        ['Thanks so much,\nRebecca', 'Rebecca', 'en'],
        ['Bonne journée,\nCamille', 'Camille', 'fr'],
        ['Take care,\nRebecca Whitfield', 'Rebecca Whitfield', 'en'],
      ] as const) {
        expect(found(personRecognizer, text, lang), text).to.deep.equal([name]);
      }
      expect(found(personRecognizer, 'Thanks so much,\nI will look into it', 'en')).to.deep.equal([]);
    });
    it('reads an institution or a street named after a person as none: a hyphen-joined compound, a head noun after or before it (QA: masked as a person)', () => {
      for (const [text, lang] of [
        ['Das Robert-Koch-Institut meldet neue Zahlen.', 'de'],
        ['Das Max-Planck-Institut forscht.', 'de'],
        ['Die Johann-Wolfgang-Goethe-Universität in Frankfurt.', 'de'],
        ['Die Friedrich-Ebert-Stiftung lädt ein.', 'de'],
        ['Wir wohnen nahe der Konrad-Adenauer-Straße.', 'de'],
        ['Sie geht auf das Anne-Frank-Gymnasium.', 'de'],
        ['We wonen aan de Prins-Hendrik-laan.', 'nl'],
        ['Het Antoni van Leeuwenhoek ziekenhuis in Amsterdam.', 'nl'],
        ['Le collège Victor Hugo est fermé.', 'fr'],
        ["Il travaille à l'hôpital Édouard Herriot, rue Victor Hugo.", 'fr'],
      ] as const) {
        expect(found(personRecognizer, text, lang), text).to.deep.equal([]);
      }
      // Double-barrelled names stay people.
      expect(found(personRecognizer, 'Frau Dr. Schäfer-Lindner und Hans-Peter Müller', 'de')).to.deep.equal(['Schäfer-Lindner', 'Hans-Peter Müller']);
      expect(found(personRecognizer, 'Ik sprak Antoni van Leeuwenhoek gisteren.', 'nl')).to.deep.equal(['Antoni van Leeuwenhoek']);
    });
    it('reads an organisation named like a person as none: a legal form after it, a head noun before or at its start', () => {
      expect(found(personRecognizer, 'Factuur t.n.v. Gemeente Utrecht graag; t.n.v. Stichting Vrienden van het Museum.', 'nl')).to.deep.equal([]);
      expect(found(personRecognizer, 'Offerte van Jansen Installatietechniek B.V. ontvangen.', 'nl')).to.deep.equal([]);
      expect(found(personRecognizer, 'Bitte senden an c/o Müller GmbH, danke.', 'de')).to.deep.equal([]);
      expect(found(personRecognizer, 'Contrat avec Dupont SARL signé; écrire à la Mairie de Lyon.', 'fr')).to.deep.equal([]);
      expect(found(personRecognizer, 'Contact: Jansen & Zonen B.V., or Acme Ltd.', 'en')).to.deep.equal([]);
      // People next to organisations stay people.
      expect(found(personRecognizer, 't.n.v. Pieter Jansen; Mr Smith from Acme Ltd called; die Stadt Wien und Frau Huber.', 'en')).to.deep.equal([
        'Pieter Jansen',
        'Smith',
        'Huber',
      ]);
    });
    it('reads a lower-case name after a sentence that gives it, the surname known or not (it was left in clear)', () => {
      for (const [text, name, lang] of [
        ['can u draft a msg to my landlord, his name is graham whitfield, about the boiler again', 'graham whitfield', 'en'],
        ['my name is graham whitfield', 'graham whitfield', 'en'],
        ['her name is sarah whitfield btw', 'sarah whitfield', 'en'],
        ['her name is sarah btw', 'sarah', 'en'],
        ['mijn naam is jan klaassenbroek', 'jan klaassenbroek', 'nl'],
        ['zijn naam is jan van den berg', 'jan van den berg', 'nl'],
        ['er heißt lukas und wohnt hier', 'lukas', 'de'],
        ["elle s'appelle camille", 'camille', 'fr'],
      ] as const) {
        expect(found(personRecognizer, text, lang), text).to.deep.equal([name]);
      }
      // Without a known first name after it, the words are as often no name.
      for (const text of ['my name is not important', 'his name is on the list', 'her name is really long']) {
        expect(found(personRecognizer, text, 'en'), text).to.deep.equal([]);
      }
    });
    it('reads the Flemish one-word particles Vanden, Vander, Vande with the surname (it was left in clear)', () => {
      for (const [text, name] of [
        ['Griet Vanden Bossche heeft haar ontslag ingediend', 'Griet Vanden Bossche'],
        ['Gesprek met Pieter Vanden Berghe gehad', 'Pieter Vanden Berghe'],
        ['ik sprak Kristof Vander Elst gisteren', 'Kristof Vander Elst'],
        ['Jan Vande Velde belde', 'Jan Vande Velde'],
        ['Vanden Bossche heeft gebeld', 'Vanden Bossche'],
      ]) {
        expect(found(personRecognizer, text!, 'nl'), text).to.deep.equal([name]);
      }
      // Surnames that start like them are surnames, not particles.
      expect(found(personRecognizer, 'Jan Verdonck belde', 'nl')).to.deep.equal(['Jan Verdonck']);
      expect(found(personRecognizer, 'Dag Jan Vanderlinden', 'nl')).to.deep.equal(['Jan Vanderlinden']);
    });
    it('reads Irish surnames with their particles: Ní, Nic, Ó, Uí, Mhic anywhere, Mac after a known first name', () => {
      expect(found(personRecognizer, 'Siobhán Ní Bhriain will join; Seán Ó Súilleabháin sent the report.', 'en')).to.deep.equal([
        'Siobhán Ní Bhriain',
        'Seán Ó Súilleabháin',
      ]);
      expect(found(personRecognizer, 'Aoife Mac Giolla is on leave, ask Ciarán Mac Cárthaigh or Máire Nic Gearailt.', 'en')).to.deep.equal([
        'Aoife Mac Giolla',
        'Ciarán Mac Cárthaigh',
        'Máire Nic Gearailt',
      ]);
      // An unknown first name before Ó/Ní, and a surname led by Ní alone.
      expect(found(personRecognizer, 'Dr Ní Bhriain agreed, and Fiadh Ó Dálaigh too.', 'en')).to.deep.equal(['Ní Bhriain', 'Fiadh Ó Dálaigh']);
      expect(found(personRecognizer, 'I bought a Mac Pro and a Mac Mini.', 'en')).to.deep.equal([]);
    });
    it('reads initials and a surname after a sign-off or greeting on the same line, the surname known or not', () => {
      expect(found(personRecognizer, 'Merci pour votre retour.\nCordialement, P. Martin', 'fr')).to.deep.equal(['P. Martin']);
      expect(found(personRecognizer, 'Thanks for the update. Best, A. Smith', 'en')).to.deep.equal(['A. Smith']);
      expect(found(personRecognizer, 'Met vriendelijke groet, J. de Vries', 'nl')).to.deep.equal(['J. de Vries']);
      expect(found(personRecognizer, 'Mit freundlichen Grüßen, K. Müller', 'de')).to.deep.equal(['K. Müller']);
      expect(found(personRecognizer, 'Bien à vous, P. Martin', 'fr')).to.deep.equal(['P. Martin']);
      expect(found(personRecognizer, 'Dear A.M. Okafor, thank you.', 'en')).to.deep.equal(['A.M. Okafor']);
      // On the next line, as before.
      expect(found(personRecognizer, 'Met vriendelijke groet,\nJ. de Vries', 'nl')).to.deep.equal(['J. de Vries']);
      // Initials of an organisation after other weak cues, or an acronym after them, are no name.
      expect(found(personRecognizer, 'Contact U.S. Customs for help. Thanks, U.S. ARMY', 'en')).to.deep.equal([]);
    });
    it('reads a known surname alone after a self-introduction (it was left in clear), and no word for how one is', () => {
      expect(found(personRecognizer, 'Ik ben Jansen, de nieuwe collega.', 'nl')).to.deep.equal(['Jansen']);
      expect(found(personRecognizer, 'Bonjour, je suis Dupont, votre conseiller.', 'fr')).to.deep.equal(['Dupont']);
      expect(found(personRecognizer, 'Guten Tag, ich bin Müller vom Kundendienst.', 'de')).to.deep.equal(['Müller']);
      expect(found(personRecognizer, "Hi all, I'm Smith from accounting.", 'en')).to.deep.equal(['Smith']);
      expect(found(personRecognizer, 'Ik ben De Jong en ik bel over de polis.', 'nl')).to.deep.equal(['De Jong']);
      expect(found(personRecognizer, 'Mijn naam is Bakker.', 'nl')).to.deep.equal(['Bakker']);
      // How or what one is: not a surname, a first name that is a word, a trade or origin in German.
      expect(found(personRecognizer, 'Ik ben blij. Ik ben Blij! Ik ben Benieuwd.', 'nl')).to.deep.equal([]);
      expect(found(personRecognizer, "I'm Fine, thanks. I am Sorry. I'm Dutch.", 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'Ich bin Koch, ich bin Schweizer, ich bin Bäcker und ich bin Müde.', 'de')).to.deep.equal([]);
      expect(found(personRecognizer, 'Je suis Content et je suis Prêt.', 'fr')).to.deep.equal([]);
      // A first name after the cue, as before.
      expect(found(personRecognizer, "I'm Priya, and this is Noah Smith.", 'en')).to.deep.equal(['Priya', 'Noah Smith']);
    });
    it('reads initials and a known surname after a contact cue: call, contact, bel, mail (the initials were left in clear)', () => {
      expect(found(personRecognizer, 'Please call J. de Vries tomorrow.', 'en')).to.deep.equal(['J. de Vries']);
      expect(found(personRecognizer, 'For the invoice, contact A.B. Smith in finance.', 'en')).to.deep.equal(['A.B. Smith']);
      expect(found(personRecognizer, 'Kun je mevrouw K. Jansen bellen? Bel mevrouw K. Jansen.', 'nl')).to.deep.equal(['K. Jansen', 'K. Jansen']);
      expect(found(personRecognizer, 'mail P. Janssens even over de offerte', 'nl')).to.deep.equal(['P. Janssens']);
      expect(found(personRecognizer, 'Vraag A.B. Bakker en K. Jansen om een reactie.', 'nl')).to.deep.equal(['A.B. Bakker', 'K. Jansen']);
      // After a contact cue the initials may be an organisation's: the surname must be known.
      expect(found(personRecognizer, 'Contact U.S. Customs, call U.K. Visas, mail U.S. Post or ask H.R. Services.', 'en')).to.deep.equal([]);
      expect(found(personRecognizer, 'bel T.V. Gids of mail K.L.M. Klantenservice', 'nl')).to.deep.equal([]);
    });
  });
});
