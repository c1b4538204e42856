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
});
