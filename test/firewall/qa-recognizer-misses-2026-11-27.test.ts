import { expect } from 'chai';
import { expectMasksAndRestores, expectUnchanged, maskAuto } from './qaSamples.js';

// QA 2026-11-27, user messages sent to a running instance that reached the provider in clear (or
// under the wrong type): a BSN written with hyphens or without its leading 0; a date of birth
// written 12-Mar-1985, or told in the first person ("Nací el …"); the phone number of a WhatsApp
// link; an Italian mobile number typed as an NHS number. The samples as QA sent
// them, and beside them the ordinary text of the same shape that must stay as written.
describe('firewall QA: recognizer misses of 2026-11-27', () => {

  describe('a BSN written 3-3-3 with hyphens, or as eight digits after its label', () => {
    it('masks a hyphenated BSN beside its BSN word', () => {
      expectMasksAndRestores('Mijn bsn: 123-456-782, graag verwerken.', 'Mijn bsn: [BSN_1], graag verwerken.');
      expectMasksAndRestores('My BSN is 123-456-782.', 'My BSN is [BSN_1].');
      expect(maskAuto('Burgerservicenummer 123-456-782')).to.equal('Burgerservicenummer [BSN_1]');
      // The forms already masked keep being masked, and one number is one placeholder in any form.
      expect(maskAuto('BSN 123-456-782, ook wel 123456782 of 1234.56.782')).to.equal('BSN [BSN_1], ook wel [BSN_1] of [BSN_1]');
    });

    it('masks an eight-digit BSN (a leading 0 dropped) right after its label', () => {
      expectMasksAndRestores('bsn van klant: 12345672', 'bsn van klant: [BSN_1]');
      expectMasksAndRestores('BSN: 12345672', 'BSN: [BSN_1]');
      expect(maskAuto('bsn van klant: 12345672, ook als 012345672')).to.equal('bsn van klant: [BSN_1], ook als [BSN_1]');
    });

    it('leaves hyphenated and eight-digit numbers without the label as they are', () => {
      expectUnchanged([
        // 123-456-782 and 12345672 pass the 11-proof: only their label makes them BSNs.
        'SKU 123-456-782, 3 units',
        'Artikelnummer 123-456-782',
        'Ticket 123-456-782 is gesloten.',
        'Tekening 123-456-782 rev. B',
        'klant 12345672',
        'Ordernummer 12345672',
        'We shipped 12345672 units.',
      ]);
      // The label names the first number; the second is another.
      expect(maskAuto('BSN 123456782 en 12345672')).to.equal('BSN [BSN_1] en 12345672');
    });
  });
  describe('a date of birth written day-month-year with the month abbreviated and hyphens, slashes or dots', () => {
    it('masks it after its birth cue, in the languages QA wrote', () => {
      expectMasksAndRestores('Patient DOB 12-Mar-1985', 'Patient DOB [DATE_OF_BIRTH_1]');
      expectMasksAndRestores('Date of birth: 12-Mar-1985', 'Date of birth: [DATE_OF_BIRTH_1]');
      expectMasksAndRestores('geboren 12-mrt-1985', 'geboren [DATE_OF_BIRTH_1]');
      expectMasksAndRestores('Geburtsdatum: 12-Mär-1985', 'Geburtsdatum: [DATE_OF_BIRTH_1]');
      expectMasksAndRestores('fecha de nacimiento 12-mar-1985', 'fecha de nacimiento [DATE_OF_BIRTH_1]');
      expectMasksAndRestores('Date of birth: 12-Mar-1985, BSN 123-456-782', 'Date of birth: [DATE_OF_BIRTH_1], BSN [BSN_1]');
    });

    it('masks the slash and dot forms, two-digit years, and the French, Spanish and Italian abbreviations', () => {
      expect(maskAuto('DOB 12/Mar/1985')).to.equal('DOB [DATE_OF_BIRTH_1]');
      expect(maskAuto('Geburtsdatum: 12.Mär.1985')).to.equal('Geburtsdatum: [DATE_OF_BIRTH_1]');
      expect(maskAuto('DOB: 12-MAR-85')).to.equal('DOB: [DATE_OF_BIRTH_1]');
      expect(maskAuto('née le 12-févr-1985')).to.equal('née le [DATE_OF_BIRTH_1]');
      expect(maskAuto('data di nascita 12-ago-1985')).to.equal('data di nascita [DATE_OF_BIRTH_1]');
      expect(maskAuto('fecha de nacimiento: 3-dic-1979')).to.equal('fecha de nacimiento: [DATE_OF_BIRTH_1]');
      // One date in two forms is one placeholder.
      expect(maskAuto('DOB 12-Mar-1985. Geboortedatum: 12.03.1985')).to.equal('DOB [DATE_OF_BIRTH_1]. Geboortedatum: [DATE_OF_BIRTH_1]');
      // The forms that already worked still do.
      expect(maskAuto('DOB: 12 Mar 85')).to.equal('DOB: [DATE_OF_BIRTH_1]');
      expect(maskAuto('Born 03/12/1985')).to.equal('Born [DATE_OF_BIRTH_1]');
    });

    it('leaves such dates without a birth cue, and mixed separators, as they are', () => {
      expectUnchanged([
        'Meeting on 12-Mar-2025 at 10:00',
        'Invoice date 12-Mar-1985',
        'Release 12-Mar-2024 shipped with 3 fixes.',
        'Factuurdatum: 12-mrt-2024',
        'Rechnungsdatum 12.Mär.2024',
        'DOB 12-Mar/1985',
      ]);
    });
  });
  describe('a birth told in the first person in Spanish, or in the Italian past', () => {
    it('masks the date after "nací", "nacida el", "sono nata il", "nacqui il"', () => {
      expectMasksAndRestores('Nací el 5/6/1982 en Sevilla.', 'Nací el [DATE_OF_BIRTH_1] en Sevilla.');
      expect(maskAuto('Yo naci el 12 de marzo de 1982.')).to.equal('Yo naci el [DATE_OF_BIRTH_1].');
      expect(maskAuto('Nacida el 5/6/1982 en Cádiz')).to.equal('Nacida el [DATE_OF_BIRTH_1] en Cádiz');
      expect(maskAuto('Sono nata il 5/6/1982 a Roma.')).to.equal('Sono nata il [DATE_OF_BIRTH_1] a Roma.');
      expect(maskAuto('Nacqui il 3 maggio 1950')).to.equal('Nacqui il [DATE_OF_BIRTH_1]');
    });

    it('leaves the dates of other events in those languages as they are', () => {
      expectUnchanged(['El contrato se firmó el 5/6/2022 en Sevilla.', 'Renací el 5/6/2020 tras el viaje.', 'La fattura è del 3 maggio 2023.']);
    });
  });
  describe('the phone number in a WhatsApp link', () => {
    it('masks the number of a wa.me link and keeps the link, so that restoring gives it back', () => {
      expectMasksAndRestores(
        'Stuur me een appje via https://wa.me/31612345678 of wa.me/+491512345678',
        'Stuur me een appje via https://wa.me/[PHONE_1] of wa.me/[PHONE_2]',
      );
      expectMasksAndRestores('App me: https://wa.me/31612345678', 'App me: https://wa.me/[PHONE_1]');
      expectMasksAndRestores('[WhatsApp](https://wa.me/31612345678?text=Hoi)', '[WhatsApp](https://wa.me/[PHONE_1]?text=Hoi)');
      expectMasksAndRestores('WA.ME/31612345678', 'WA.ME/[PHONE_1]');
      // As tel: links already were.
      expectMasksAndRestores('tel:+31612345678', 'tel:[PHONE_1]');
    });

    it('masks the number of an api.whatsapp.com link, as written or percent-encoded', () => {
      expectMasksAndRestores('https://api.whatsapp.com/send?phone=31612345678&text=Hoi', 'https://api.whatsapp.com/send?phone=[PHONE_1]&text=Hoi');
      expectMasksAndRestores('https://api.whatsapp.com/send/?phone=%2B31612345678', 'https://api.whatsapp.com/send/?phone=%5BPHONE_1%5D');
    });

    it('restores a number written in text and in a link each to its own form', () => {
      // One placeholder would restore the link as 'wa.me/06 12345678', no link at all.
      expectMasksAndRestores('Bel 06 12345678 of wa.me/31612345678', 'Bel [PHONE_1] of wa.me/[PHONE_2]');
    });

    it('leaves other links and short or long paths as they are', () => {
      expectUnchanged([
        'https://wa.me/message/ABCDEF12345',
        'https://java.me/31612345678',
        'https://example.com/items/31612345678',
        'https://wa.me/12345',
        'https://wa.me/3161234567890123456',
      ]);
    });
  });
  describe('an Italian mobile number after a phone word is a phone number, not an NHS number', () => {
    it('masks it as a phone number', () => {
      // 333 123 4567 passes the NHS number's check as well.
      expectMasksAndRestores('cell. 333 123 4567', 'cell. [PHONE_1]');
      expect(maskAuto('Il mio cellulare: 333 123 4567')).to.equal('Il mio cellulare: [PHONE_1]');
      expect(maskAuto('chiamami al 333 123 4567')).to.equal('chiamami al [PHONE_1]');
      expect(maskAuto('phone: 333 123 4567')).to.equal('phone: [PHONE_1]');
    });

    it('still masks it as an NHS number after an NHS word, or alone', () => {
      expect(maskAuto('NHS number 333 123 4567')).to.equal('NHS number [NHS_NUMBER_1]');
      expect(maskAuto('Phone the GP about NHS no. 333 123 4567')).to.equal('Phone the GP about NHS no. [NHS_NUMBER_1]');
      expect(maskAuto('NHS number 333 123 4567, mobile 07700 900123')).to.equal('NHS number [NHS_NUMBER_1], mobile [PHONE_1]');
      expect(maskAuto('Patient 943 476 5919 seen today')).to.equal('Patient [NHS_NUMBER_1] seen today');
      // After a phone word, a number no phone plan read here takes stays masked as what it passes for.
      expect(maskAuto('cell. 943 476 5919')).to.equal('cell. [NHS_NUMBER_1]');
    });
  });

  describe('a label after a possessive labels the same value', () => {
    it('masks what "Mon NIR :", "Mijn BSN:", "My IBAN:" label, as "NIR :" does, a mistyped check key too', () => {
      // The NIR's key should be 91: under its label it is masked all the same, as after "NIR :".
      expectMasksAndRestores('Mon NIR : 1 85 05 78 006 084 92', 'Mon NIR : [NIR_1]');
      expect(maskAuto('NIR : 1 85 05 78 006 084 92')).to.equal('NIR : [NIR_1]');
      expect(maskAuto('Mijn BSN: 123456789')).to.equal('Mijn BSN: [BSN_1]');
      expect(maskAuto('Mijn naam: Jan Jansen')).to.equal('Mijn naam: [PERSON_1]');
      expectUnchanged(['Mijn vraag: wat kost het?', 'My account: premium', 'Mon produit : Ferrari Roma']);
    });
  });
});
