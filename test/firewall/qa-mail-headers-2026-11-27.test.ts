import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27: names in mail and chat headers as Outlook/Exchange, Teams and French mail paste
// them, surname first, with the surname left in clear beside the placeholder ("Hoekstra,
// [PERSON_1]"); the samples as QA sent them, with the look-alikes that must stay beside them.
describe('firewall QA: surname-first names in mail and chat headers (2026-11-27)', () => {
  const masks = (text: string, expected: string) => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask(text);
    expect(masked, text).to.equal(expected);
    expect(fw.restore(masked), masked).to.equal(text);
  };
  const unchanged = (texts: string[]) => {
    for (const text of texts) masks(text, text);
  };

  describe('"Surname, Firstname" on a header line without a mailbox', () => {
    it('masks the pair as one person in Dutch, German, English and French headers', () => {
      masks('Van: Hoekstra, Marieke', 'Van: [PERSON_1]');
      masks('Aan: Brouwer, Wouter; Yilmaz, Fatima', 'Aan: [PERSON_1]; [PERSON_2]');
      masks('Von: Krause, Wolfgang', 'Von: [PERSON_1]');
      masks('An: Schäfer-Lindner, Birgit', 'An: [PERSON_1]');
      masks('From: Hughes, Charlotte', 'From: [PERSON_1]');
      masks('To: Hughes, Charlotte', 'To: [PERSON_1]');
      masks('Cc: Okafor, Chinedu; Brouwer, Wouter', 'Cc: [PERSON_1]; [PERSON_2]');
      masks('From: Smith, John; Jones, Mary; Taylor, Ann', 'From: [PERSON_1]; [PERSON_2]; [PERSON_3]');
      masks('De : Girard, Nicolas', 'De : [PERSON_1]');
      masks('À : Fontaine, Élodie', 'À : [PERSON_1]');
      masks('To: Van Dijk, Jan', 'To: [PERSON_1]');
    });

    it('masks a whole pasted Outlook header, and the surname where it recurs alone', () => {
      masks(
        'Van: Hoekstra, Marieke\nVerzonden: maandag 3 november 2026 10:12\nAan: Brouwer, Wouter\nCC: Yilmaz, Fatima\nOnderwerp: dossier Visser\n\nHoekstra schreef gisteren dat mevrouw Visser belt.',
        'Van: [PERSON_1]\nVerzonden: maandag 3 november 2026 10:12\nAan: [PERSON_2]\nCC: [PERSON_3]\nOnderwerp: dossier [PERSON_4]\n\n[PERSON_5] schreef gisteren dat mevrouw [PERSON_4] belt.',
      );
      masks('From: Hughes, Charlotte\nSent: Monday\n\nHi all, Hughes here.', 'From: [PERSON_1]\nSent: Monday\n\nHi all, [PERSON_2] here.');
    });

    it('reads the headers of a paste that lost its line breaks', () => {
      masks(
        'From: Hoekstra, Marieke Sent: Monday, November 3, 2026 10:12 AM To: Brouwer, Wouter Subject: Q3',
        'From: [PERSON_1] Sent: Monday, November 3, 2026 10:12 AM To: [PERSON_2] Subject: Q3',
      );
    });

    it('takes a calling name in brackets into the person, and leaves an organisation’s', () => {
      masks('Van: Visser, A. (Anouk) <a.visser@example.nl>', 'Van: [PERSON_1] <[EMAIL_1]>');
      masks('Van: Bakker, Marieke (Gemeente Utrecht) <m.bakker@utrecht.nl>', 'Van: [PERSON_1] (Gemeente Utrecht) <[EMAIL_1]>');
    });

    it('leaves teams, departments, roles, places and two first names as they were', () => {
      unchanged([
        'Van: afdeling Schade',
        'From: Support Team',
        'From: Sales, Marketing',
        'To: Finance, Mark',
        'To: Team, Marketing',
        'From: IT, Helpdesk',
        'Van: Utrecht, Nederland',
        'De : SERVICE Client',
        'De : SNCF Voyageurs',
      ]);
      // The given name is still masked; the role or department before the comma is not.
      masks('Cc: Legal, Charlotte', 'Cc: Legal, [PERSON_1]');
      masks('From: Office, Janet', 'From: Office, [PERSON_1]');
      // Two first names are two people, as before.
      masks('To: Anna, Pieter', 'To: Anna, [PERSON_1]');
      // "A:" is also a transcript's answer: without a mailbox nothing is read as a display name.
      masks('Q: Is it done?\nA: Correct, Anna', 'Q: Is it done?\nA: Correct, [PERSON_1]');
    });
  });

  describe('Teams transcripts', () => {
    it('masks the speaker written "Surname, Firstname" after the time stamp', () => {
      masks('[09:12] Krause, Wolfgang: kannst du das prüfen?', '[09:12] [PERSON_1]: kannst du das prüfen?');
      masks('[14:05] Hoekstra, Marieke: ik kijk ernaar', '[14:05] [PERSON_1]: ik kijk ernaar');
      masks('[09:12 AM] Krause, Wolfgang\nKannst du das prüfen?', '[09:12 AM] [PERSON_1]\nKannst du das prüfen?');
    });

    it('leaves a log line’s words and an acronym', () => {
      unchanged(['[09:12] Build, Deploy: ok', '[09:12] Build, Deploy: ok\n[09:13] Test, Lint: failed', '[release] Build, Deploy: ok']);
      masks('[09:12] CI, Anna: ok', '[09:12] CI, [PERSON_1]: ok');
    });
  });

  describe('French SURNAME Firstname in a header', () => {
    it('masks the surname in capitals with the first name, with or without a mailbox', () => {
      masks('De : GIRARD Nicolas <nicolas.girard@example.fr>', 'De : [PERSON_1] <[EMAIL_1]>');
      masks('À : FONTAINE Élodie ; MOREAU Julien', 'À : [PERSON_1] ; [PERSON_2]');
      masks('À : DE LA FONTAINE Jean-Pierre', 'À : [PERSON_1]');
    });

    it('leaves an acronym before a first name out of the name', () => {
      masks('À : RH Julie', 'À : RH [PERSON_1]');
      masks('À : CNRS Nicolas', 'À : CNRS [PERSON_1]');
    });
  });

  describe('Dutch initials with the calling name in brackets', () => {
    it('masks initials, calling name and surname as one person, the title left outside', () => {
      masks('Geachte dhr. K.J. (Kees) de Wit,', 'Geachte dhr. [PERSON_1],');
      masks('P. (Piet) van Leeuwen', '[PERSON_1]');
      masks('Met vriendelijke groet,\nJ.A.M. (HANS) VAN DER HEIJDEN', 'Met vriendelijke groet,\n[PERSON_1]');
    });

    it('needs initials before the bracket and a first name inside it', () => {
      unchanged(['Art. 5 (Anna) Jansen', 'zie bijlage B. (Schade) Formulier', 'Stap 2. (Optioneel) Installeren']);
    });
  });

  describe('subject lines', () => {
    it('masks a known surname after a word that files the case under it', () => {
      masks('Onderwerp: dossier Visser', 'Onderwerp: dossier [PERSON_1]');
      masks('Subject: FW: dossier Brouwer', 'Subject: FW: dossier [PERSON_1]');
      masks('RE: Okafor complaint', 'RE: [PERSON_1] complaint');
      masks('Betreff: Kunde Müller', 'Betreff: Kunde [PERSON_1]');
      masks('Onderwerp: klant de Vries', 'Onderwerp: klant [PERSON_1]');
    });

    it('leaves reports, places, firms and products', () => {
      unchanged([
        'Subject: FW: Q3 report',
        'Subject: dossier Amsterdam',
        'Subject: klant Albert Heijn',
        'Onderwerp: dossier Jansen Transport',
        'Subject: client Portal',
        'RE: Billing complaint',
        'RE: Customer complaint',
        'RE: Amazon complaint',
      ]);
    });
  });

  describe('a form label that names the order', () => {
    it('masks the pair after "Name, Vorname" as one person', () => {
      masks('NAME, VORNAME: MÜLLER, SABINE', 'NAME, VORNAME: [PERSON_1]');
      masks('Nom, prénom : DUPONT, Marie', 'Nom, prénom : [PERSON_1]');
      masks('Naam, voornaam: Jansen, Pieter', 'Naam, voornaam: [PERSON_1]');
      masks('Name, Vorname: Müller, Sabine, geb. 01.02.1980', 'Name, Vorname: [PERSON_1], geb. [DATE_OF_BIRTH_1]');
    });

    it('leaves a value that is no name', () => {
      unchanged(['NAME, VORNAME: siehe unten', 'Name, Vorname: —']);
    });
  });
});
