import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27, third round: the postcode and town beside a masked street, reference labels of
// letters and files, answers in call transcripts whose question is on the line before, and false
// positives (a date read as a policy number, a founding read as a birth, a town column of counts
// read as addresses). The samples as QA sent them, with look-alikes that must stay beside them.
describe('firewall QA: addresses, references and answers of 2026-11-27', () => {
  /** The masked text, after checking that restore gives back the original. */
  const mask = (text: string) => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask(text);
    expect(fw.restore(masked), `restore of ${masked}`).to.equal(text);
    return masked;
  };
  const unchanged = (texts: string[]) => {
    for (const text of texts) expect(mask(text), text).to.equal(text);
  };

  describe('the postcode and town after a street, whatever joins them', () => {
    it('takes them into the address after "in", "te", "à", a dot, a bar, a dash or a slash', () => {
      expect(mask('Er wohnt Hauptstraße 5 in 10115 Berlin.')).to.equal('Er wohnt [ADDRESS_1].');
      expect(mask('Ik woon op de Dorpsstraat 12 in 1234 AB Utrecht.')).to.equal('Ik woon op de [ADDRESS_1].');
      expect(mask('Sie wohnt Am Rosenhang 4a in 79098 Freiburg.')).to.equal('Sie wohnt [ADDRESS_1].');
      expect(mask('Parkallee 9 · 20144 Hamburg')).to.equal('[ADDRESS_1]');
      expect(mask('Kastanjelaan 31 | 3722 GB Bilthoven')).to.equal('[ADDRESS_1]');
      expect(mask('Hauptstraße 5 - 10115 Berlin')).to.equal('[ADDRESS_1]');
      expect(mask('Hauptstraße 5/10115 Berlin')).to.equal('[ADDRESS_1]');
      expect(mask('Het pakket gaat naar Kerkstraat 4 te 1234 AB Zwolle.')).to.equal('Het pakket gaat naar [ADDRESS_1].');
      expect(mask('Er wohnt Hauptstraße 5 in 10115 Berlin und arbeitet dort.')).to.equal('Er wohnt [ADDRESS_1] und arbeitet dort.');
    });

    it('masks a postcode and town under a label that names both, in capitals too', () => {
      expect(mask('PLZ/ORT: 80331 MÜNCHEN')).to.equal('PLZ/ORT: [ADDRESS_1]');
      expect(mask('Straße: Lindenweg 3\nPLZ/Ort: 80331 München')).to.equal('Straße: [ADDRESS_1]\nPLZ/Ort: [ADDRESS_2]');
      expect(mask('Postcode en woonplaats: 3722 GB Bilthoven')).to.equal('Postcode en woonplaats: [ADDRESS_1]');
    });

    it('masks a Dutch postcode with a house number', () => {
      expect(mask('Mijn adres is 1234AB 12a.')).to.equal('Mijn adres is [ADDRESS_1].');
      expect(mask('Afleveradres: 3722 GK 31')).to.equal('Afleveradres: [ADDRESS_1]');
      expect(mask('Postcode 3722GK, huisnummer 31.')).to.equal('Postcode [ADDRESS_1].');
    });

    it('leaves years, counts, units, product and legal codes that look like them', () => {
      unchanged([
        'De server heeft 2048 GB 4 cores.',
        'Vermogen: 1200 MW 2.',
        'Release 2024 RC 1.',
        'Windows 2019 SP 1',
        'Zie artikel 6162 BW 1.',
        'Zie pagina 1234 AB 12 van het rapport',
        'Die Postleitzahl 80331 gehört zu München.',
      ]);
      expect(mask('Ik heb de Dorpsstraat 12 in 2019 gekocht.')).to.equal('Ik heb de [ADDRESS_1] in 2019 gekocht.');
      expect(mask('Hauptstraße 5 in 2019 renoviert')).to.equal('[ADDRESS_1] in 2019 renoviert');
      expect(mask('Parkallee 9 - 2024 Review')).to.equal('[ADDRESS_1] - 2024 Review');
    });
  });

  describe('reference labels of letters, claims, contracts and staff', () => {
    it('masks the value after a letter’s reference label', () => {
      expect(mask('Uw kenmerk: SCH-2024-118734')).to.equal('Uw kenmerk: [CUSTOMER_REF_1]');
      expect(mask('Ons kenmerk: SCH-2024-118735')).to.equal('Ons kenmerk: [CUSTOMER_REF_1]');
      expect(mask('Ihr Zeichen: HR-7734-2210')).to.equal('Ihr Zeichen: [CUSTOMER_REF_1]');
      expect(mask('Unser Zeichen: HR-7734-2211')).to.equal('Unser Zeichen: [CUSTOMER_REF_1]');
      expect(mask('Vos références : SIN-2024-44871')).to.equal('Vos références : [CUSTOMER_REF_1]');
      expect(mask('Your ref: CLM-7781-22')).to.equal('Your ref: [CUSTOMER_REF_1]');
      expect(mask('Our ref: CLM-7781-23')).to.equal('Our ref: [CUSTOMER_REF_1]');
    });

    it('masks a claim’s, a report’s and a contract’s code', () => {
      expect(mask('Betreft: Schademelding 2024-118734')).to.equal('Betreft: Schademelding [CUSTOMER_REF_1]');
      expect(mask('Regarding your claim CLM-7781-22 of last week')).to.equal('Regarding your claim [CUSTOMER_REF_1] of last week');
      expect(mask('claim ref 7781-22-HX')).to.equal('claim ref [CUSTOMER_REF_1]');
      expect(mask('Concernant le contrat MRH-441298 du client')).to.equal('Concernant le contrat [CUSTOMER_REF_1] du client');
    });

    it('masks an employee number', () => {
      expect(mask('Personeelsnr: 10442')).to.equal('Personeelsnr: [CUSTOMER_REF_1]');
      expect(mask('Jan de Vries (personeelsnummer 10442) is ziek')).to.equal('[PERSON_1] (personeelsnummer [CUSTOMER_REF_1]) is ziek');
      expect(mask('Personalnummer 10442')).to.equal('Personalnummer [CUSTOMER_REF_1]');
      expect(mask('employee no. 10442')).to.equal('employee no. [CUSTOMER_REF_1]');
    });

    it('leaves the words as prose, counts, amounts, years and payment references', () => {
      unchanged([
        'I claim 2 points for this round.',
        'We will claim EUR 500 from the insurer.',
        'Claim COVID-19 relief here.',
        'le contrat 2024-2025 est signé',
        'un contrat CDD-2024 de six mois',
        'Signez le contrat 12 mois',
        'Our reference 2024 plan',
        'Our ref. 12',
        'Uw kenmerk: zie boven',
        'Ihr Zeichen der Zuneigung',
        'Vos références professionnelles',
        'employee number 5',
        'the employee no. of the month',
        'Betalingskenmerk: 1234 5678 9012 3456',
      ]);
      // "personal number" is English for a phone's.
      expect(mask('Personal number: +31 6 12345678')).to.equal('Personal number: [PHONE_1]');
    });

    it('reads no date as a policy number', () => {
      unchanged(['Ingangsdatum polis 01-04-1998', 'Polis 2024-03-01 verlengd']);
      expect(mask('Polis IV-2024-889123 loopt sinds 01-04-1998')).to.equal('Polis [CUSTOMER_REF_1] loopt sinds 01-04-1998');
    });
  });

  describe('an answer on the line after the question that asks for it', () => {
    it('masks a date of birth given in answer', () => {
      expect(mask('Wat is uw geboortedatum?\n14 maart 1968')).to.equal('Wat is uw geboortedatum?\n[DATE_OF_BIRTH_1]');
      expect(mask('Wann sind Sie geboren?\nAm 12.04.1956.')).to.equal('Wann sind Sie geboren?\nAm [DATE_OF_BIRTH_1].');
      expect(mask('Agent: Can you confirm your date of birth?\nCaller: Yes, it’s the 14th of March 1968.')).to.equal(
        'Agent: Can you confirm your date of birth?\nCaller: Yes, it’s the [DATE_OF_BIRTH_1].',
      );
      expect(mask('Medewerker: Wat is uw geboortedatum?\nKlant: Dat is 03-04-1960.')).to.equal('Medewerker: Wat is uw geboortedatum?\nKlant: Dat is [DATE_OF_BIRTH_1].');
    });

    it('masks a postcode and house number, a policy number given in answer, past the asker’s own next line', () => {
      expect(mask('Wat is uw postcode en huisnummer?\n1234AB 12a')).to.equal('Wat is uw postcode en huisnummer?\n[ADDRESS_1]');
      expect(mask('Wat is uw postcode?\nKlant: 3722 GB')).to.equal('Wat is uw postcode?\nKlant: [ADDRESS_1]');
      expect(mask('[10:42] Medewerker: Mag ik uw polisnummer?\n[10:43] Klant: PV-4471-2209')).to.equal(
        '[10:42] Medewerker: Mag ik uw polisnummer?\n[10:43] Klant: [CUSTOMER_REF_1]',
      );
      expect(mask('[10:42] Medewerker: Mag ik uw polisnummer?\n[10:42] Medewerker: Die staat op uw polisblad.\n[10:43] Klant: ja, PV-4471-2209')).to.equal(
        '[10:42] Medewerker: Mag ik uw polisnummer?\n[10:42] Medewerker: Die staat op uw polisblad.\n[10:43] Klant: ja, [CUSTOMER_REF_1]',
      );
      expect(mask('Can I have your customer number?\nSure, it is 88123456.')).to.equal('Can I have your customer number?\nSure, it is [CUSTOMER_REF_1].');
    });

    it('takes only the one answer, and only to a question that asks for that kind of value', () => {
      expect(mask('Wat is uw geboortedatum?\nKlant: 14 maart 1968, en klant sinds 01-01-2000.')).to.equal(
        'Wat is uw geboortedatum?\nKlant: [DATE_OF_BIRTH_1], en klant sinds 01-01-2000.',
      );
      unchanged([
        'Wanneer is de schade ontstaan?\n14 maart 2023',
        'Wann sind Sie geboren?\nAgent: Und wann ist der Schaden passiert?\nKunde: 12.04.2023',
        'Can you confirm your date of birth?\nAgent: thanks.\n14 March 1968 is the date of the accident',
        'Hoeveel polissen heeft u?\nKlant: 3',
        'Mag ik uw polisnummer?\nKlant: Die heb ik niet bij de hand, ik bel over 10 minuten terug.',
        'Wat is uw klantnummer?\nDat weet ik niet.\nIk heb wel een factuur 2024-0012.',
        'Wat was de ingangsdatum van de polis?\n01-04-1998',
        'Release notes?\n2024-05-01 v1.2',
      ]);
    });
  });

  describe('a founding is no birth', () => {
    it('leaves a founding date that something was "born" after', () => {
      unchanged([
        'De vereniging, opgericht op 12 maart 1902, werd geboren uit een fusie.',
        'Het bedrijf, opgericht in 1902 en geboren uit een fusie',
        'Founded on 3 May 1990, born out of a merger',
        'Die Firma wurde am 12. März 1902 gegründet.',
      ]);
      expect(mask('Geboren op 12 maart 1902, werd hij bakker.')).to.equal('Geboren op [DATE_OF_BIRTH_1], werd hij bakker.');
      expect(mask('Hij is op 12 maart 1950 geboren.')).to.equal('Hij is op [DATE_OF_BIRTH_1] geboren.');
    });
  });

  describe('a column of towns with counts is no address column', () => {
    it('leaves the towns of an aggregate by town', () => {
      unchanged([
        'stad,aantal_claims,gemiddeld_bedrag\nAmsterdam,1241,820\nRotterdam,988,760\nUtrecht,512,700',
        'stad;aantal;bedrag\nAmsterdam;1.241;820,50\nRotterdam;988;760,00',
        '| city | claims | avg |\n|---|---|---|\n| Leeds | 120 | 3.5 |',
      ]);
    });

    it('still masks the town of a person’s row', () => {
      expect(mask('naam,stad,leeftijd\nJan Jansen,Utrecht,42')).to.equal('naam,stad,leeftijd\n[PERSON_1],[ADDRESS_1],42');
      expect(mask('name,city\nPieter Bakker,Leeds')).to.equal('name,city\n[PERSON_1],[ADDRESS_1]');
      expect(mask('klant,stad,aantal\nJan Jansen,Utrecht,3')).to.equal('klant,stad,aantal\n[PERSON_1],[ADDRESS_1],3');
    });
  });
});
