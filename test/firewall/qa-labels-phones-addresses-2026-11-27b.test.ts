import { expect } from 'chai';
import { expectMasksAndRestores, expectUnchanged, maskAuto } from './qaSamples.js';

// QA 2026-11-27, second batch: Spanish, Italian and Polish mobiles told as someone's number, Dutch
// streets without a street word, vCard birthdays and addresses, identity documents under short
// labels, British account numbers, children listed beside their birth dates, "Surname, First name"
// after a label, and the postcode and town after a street. Samples as QA sent them, each with the
// ordinary text of the same shape that must go out as it is.
describe('firewall QA: labels, phones and addresses of 2026-11-27 (b)', () => {
  describe("someone's number told by name", () => {
    it('masks a Spanish, Italian or Polish mobile after "the number of <name> is"', () => {
      expectMasksAndRestores('el número de Lucía es 655 123 456', 'el número de [PERSON_1] es [PHONE_1]');
      expectMasksAndRestores('il numero di Marco è 347 123 4567', 'il numero di [PERSON_1] è [PHONE_1]');
      expectMasksAndRestores('numer Ani to 501 234 567', 'numer Ani to [PHONE_1]');
      expectMasksAndRestores('el número de Lucía García es 655 123 456', 'el número de [PERSON_1] es [PHONE_1]');
    });

    it("leaves a member's, order's or file's number of the same shape", () => {
      expectUnchanged([
        'el número de socio es 655 123 456',
        'El número de Pedido es 655 123 456',
        'numer Zamówienia to 501 234 567',
        'il numero di Pratica è 347 123 4567',
        'il numero di serie è 347 123 4567',
      ]);
    });
  });
  describe('Dutch streets without a street word, after a word of dwelling', () => {
    it('masks the whole street, its number and its town', () => {
      expectMasksAndRestores('Ik woon op de Laan van Meerdervoort 455 in Den Haag.', 'Ik woon op de [ADDRESS_1].');
      expectMasksAndRestores('Ik woon aan het Spui 14 in Amsterdam.', 'Ik woon aan het [ADDRESS_1].');
      expectMasksAndRestores('Ik woon op de Kastanjelaan 12 in Den Haag.', 'Ik woon op de [ADDRESS_1].');
      expectMasksAndRestores('verhuisd naar de Burgemeester de Monchyplein 7 in Den Haag', 'verhuisd naar de [ADDRESS_1]');
      expectMasksAndRestores('We zijn verhuisd naar de Laan van Meerdervoort 455.', 'We zijn verhuisd naar de [ADDRESS_1].');
      expectMasksAndRestores('Wij wonen aan de Laan van Meerdervoort 455, 2563 AA Den Haag.', 'Wij wonen aan de [ADDRESS_1].');
      expectMasksAndRestores('Adres: Laan van Meerdervoort 455', 'Adres: [ADDRESS_1]');
    });

    it('leaves capitalised words and a number that are no home: a count, a year, software, a workplace', () => {
      expectUnchanged([
        'De repo is verhuisd naar GitLab 16.',
        'Het project is verhuisd naar Python 3 vorig jaar.',
        'Ik woon op de Veluwe 20 minuten van Apeldoorn.',
        'Ik woon op Texel sinds 2019.',
        'Ik woon aan het Spui 14 jaar al.',
        'Ik woon op de 3e verdieping van Blok 4.',
      ]);
    });
  });
  describe("a vCard's birthday and address", () => {
    it('masks BDAY in either date form, and the box, street, town and postcode of ADR each in its field', () => {
      expectMasksAndRestores(
        'BEGIN:VCARD\nVERSION:3.0\nFN:Pieter de Vries\nTEL:+31 6 12345678\nBDAY:1964-03-12\nEND:VCARD',
        'BEGIN:VCARD\nVERSION:3.0\nFN:[PERSON_1]\nTEL:[PHONE_1]\nBDAY:[DATE_OF_BIRTH_1]\nEND:VCARD',
      );
      expectMasksAndRestores(
        'BEGIN:VCARD\nFN:Anna Jansen\nBDAY:19790101\nADR;TYPE=home:;;Van Speijkstraat 22;Den Haag;;2518 EZ;NL\nEND:VCARD',
        'BEGIN:VCARD\nFN:[PERSON_1]\nBDAY:[DATE_OF_BIRTH_1]\nADR;TYPE=home:;;[ADDRESS_1];[ADDRESS_2];;[ADDRESS_3];NL\nEND:VCARD',
      );
      expectMasksAndRestores(
        'BEGIN:VCARD\nFN:Anna Jansen\nADR;TYPE=HOME:;;Oudegracht 145;Utrecht;;3511 AH;Nederland\nEND:VCARD',
        'BEGIN:VCARD\nFN:[PERSON_1]\nADR;TYPE=HOME:;;[ADDRESS_1];[ADDRESS_2];;[ADDRESS_3];Nederland\nEND:VCARD',
      );
      // The region and the country are shared by millions: they stay.
      expectMasksAndRestores(
        'BEGIN:VCARD\nitem1.ADR;TYPE=home:;;Kerkstraat 4;Zwolle;Overijssel;8011 AB;Nederland\nBDAY:--0412\nEND:VCARD',
        'BEGIN:VCARD\nitem1.ADR;TYPE=home:;;[ADDRESS_1];[ADDRESS_2];Overijssel;[ADDRESS_3];Nederland\nBDAY:[DATE_OF_BIRTH_1]\nEND:VCARD',
      );
    });

    it("leaves a vCard's revision date, product id and empty address, and such lines outside a vCard", () => {
      expectUnchanged([
        'BEGIN:VCARD\nVERSION:4.0\nPRODID:-//Apple Inc.//iOS 17.0//EN\nREV:20240101T000000Z\nADR;TYPE=work:;;;;;;\nEND:VCARD',
        'ADR;TYPE=A:1;2;3',
      ]);
    });
  });
  describe('passport and identity card numbers under short labels', () => {
    it('masks the number after "nr.", "-Nr.:", "n.º", "n." apart from the document\'s name', () => {
      expectMasksAndRestores('Paspoort nr. NXC3F8K21, geldig tot 2031.', 'Paspoort nr. [ID_NUMBER_1], geldig tot 2031.');
      expectMasksAndRestores('Ausweis-Nr.: L01X00T47', 'Ausweis-Nr.: [ID_NUMBER_1]');
      expectMasksAndRestores('Pasaporte n.º PAA123456', 'Pasaporte n.º [ID_NUMBER_1]');
      expectMasksAndRestores('Reisepass Nr. C01X00T47', 'Reisepass Nr. [ID_NUMBER_1]');
      expectMasksAndRestores('Il passaporto n. YA1234567 scade nel 2030.', 'Il passaporto n. [ID_NUMBER_1] scade nel 2030.');
      expectMasksAndRestores('Paspoort: NXC3F8K21', 'Paspoort: [ID_NUMBER_1]');
    });

    it('leaves a count or a word after such a label', () => {
      expectUnchanged(['Paspoort nr. 2 ligt in de la.', 'Ausweis-Nr. bitte angeben', 'Pasaporte n.º 2 de la lista', 'Passport no. 3 of the form']);
    });
  });
  describe('a British bank account after its sort code', () => {
    it('masks the account number, keeping the sort code, which names a branch', () => {
      expectMasksAndRestores('Bank: Sort code 20-00-00  Account 55779911', 'Bank: Sort code 20-00-00  Account [IBAN_1]');
      expectMasksAndRestores('Sort code 20-00-00, account number 55779911', 'Sort code 20-00-00, account number [IBAN_1]');
      expectMasksAndRestores('Please pay into sort code 20-00-00 a/c no. 55779911.', 'Please pay into sort code 20-00-00 a/c no. [IBAN_1].');
    });

    it('leaves a sort code alone, an account without one, and a count after one', () => {
      expectUnchanged(['Sort code: 20-00-00', 'Account 55779911', 'Sort code 20-00-00 account 2 of 3']);
    });
  });
  describe('children listed under a plural label beside their birth dates', () => {
    it('masks each name as well as its date', () => {
      expectMasksAndRestores(
        'Kinder: Leon (*03.02.2005), Mia (*21.09.2008)',
        'Kinder: [PERSON_1] (*[DATE_OF_BIRTH_1]), [PERSON_2] (*[DATE_OF_BIRTH_2])',
      );
      expectMasksAndRestores(
        'kinderen: Sem (geb. 12-04-2012) en Tess (geb. 03-08-2015)',
        'kinderen: [PERSON_1] (geb. [DATE_OF_BIRTH_1]) en [PERSON_2] (geb. [DATE_OF_BIRTH_2])',
      );
      expectMasksAndRestores(
        'Children: Oliver (born 4 May 2012) and Isla (born 9 June 2015)',
        'Children: [PERSON_1] (born [DATE_OF_BIRTH_1]) and [PERSON_2] (born [DATE_OF_BIRTH_2])',
      );
      expectMasksAndRestores(
        'Kinder: Leon (*03.02.2005), Mia (*21.09.2008), sonst niemand',
        'Kinder: [PERSON_1] (*[DATE_OF_BIRTH_1]), [PERSON_2] (*[DATE_OF_BIRTH_2]), sonst niemand',
      );
    });

    it("leaves a component's children with counts, and a label without names", () => {
      expectUnchanged(['children: Button (2), Icon (3)', 'Kinder: keine', 'kinderen: geen']);
    });
  });
  describe('"Surname, First name" after a label and in capitals', () => {
    it('masks the whole name, each of a list joined by ";", in capitals too', () => {
      expectMasksAndRestores('Aangever: Janssen, Pieter-Jan', 'Aangever: [PERSON_1]');
      expectMasksAndRestores('Attendees: Öztürk, Mehmet; Yılmaz, Ayşe', 'Attendees: [PERSON_1]; [PERSON_2]');
      expectMasksAndRestores('NAME: MÜLLER, KATHARINA', 'NAME: [PERSON_1]');
      expectMasksAndRestores('AANGEVER: JANSSEN, PIETER-JAN', 'AANGEVER: [PERSON_1]');
      expectMasksAndRestores('Naam: de Vries, Jan', 'Naam: [PERSON_1]');
      expectMasksAndRestores('Aangever: Janssen, Pieter-Jan (zie bijlage)', 'Aangever: [PERSON_1] (zie bijlage)');
      expectMasksAndRestores('From: MÜLLER, KATHARINA <k.mueller@example.de>', 'From: [PERSON_1] <[EMAIL_1]>');
      expectMasksAndRestores('From: JANSSEN, PIETER-JAN', 'From: [PERSON_1]');
    });

    it('leaves teams, departments and organisations in the same shape', () => {
      expectUnchanged(['Owner: Platform, Data', 'To: LEGAL, SUPPORT', 'Cc: IT, HR']);
    });
  });
  describe('the postcode and town after a masked street', () => {
    it('takes them in after the side of a floor and after an Italian "a"', () => {
      expectMasksAndRestores('Lindenstraße 14, 2. OG links, 50674 Köln', '[ADDRESS_1]');
      expectMasksAndRestores('Hauptstraße 5, 3. Stock rechts', '[ADDRESS_1]');
      expectMasksAndRestores('abito in via Garibaldi 22 a Torino', 'abito in [ADDRESS_1]');
      expectMasksAndRestores('abito in via Garibaldi 22 a Torino da tre anni.', 'abito in [ADDRESS_1] da tre anni.');
    });

    it('leaves what follows "a" when it is no town', () => {
      expectMasksAndRestores('abito in via Garibaldi 22 a sinistra', 'abito in [ADDRESS_1] a sinistra');
      expectMasksAndRestores('Kerkstraat 12 a tiny house', '[ADDRESS_1] a tiny house');
      expectUnchanged(['Ho letto 22 a Torino libri.', 'Pagina 12 a Milano']);
    });
  });

  describe('what labels must leave (QA over-masking round, 2026-11-27)', () => {
    it("reads a machine's address as no home's, and a field that says it holds nothing as empty", () => {
      expect(maskAuto('Het IP-adres: 10.0.0.1 is bezet, kies een ander.')).to.equal('Het IP-adres: [IP_1] is bezet, kies een ander.');
      expect(maskAuto('IP address: 10.0.0.1 is taken')).to.equal('IP address: [IP_1] is taken');
      expectUnchanged(['Webadres: www.example.nl', 'Serveradres: db01.intern.local', 'Adres: onbekend', 'Adres: n.v.t.', 'Name: n/a', 'Telefoon: -']);
      expect(maskAuto('Naam: Jan Jansen\nAdres: zie hierboven')).to.equal('Naam: [PERSON_1]\nAdres: zie hierboven');
      expect(maskAuto('Adres: Kerkstraat 12, 1234 AB Utrecht')).to.equal('Adres: [ADDRESS_1]');
      // Who approved or signed is a name's label: the surname before the comma went out in clear.
      expect(maskAuto('Approved by: Jansen, Pieter')).to.equal('Approved by: [PERSON_1]');
      expect(maskAuto('Goedgekeurd door: Bakker, Marieke')).to.equal('Goedgekeurd door: [PERSON_1]');
      expectUnchanged(['Approved by: QA team']);
    });
  });
});
