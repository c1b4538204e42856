import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// Names written in capitals, as forms, tickets and booking systems write them, and names on cards
// (2026-11-27).
describe('firewall: names in capitals, passengers’ names and names on cards', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  it('masks a name in capitals whose surname starts with a particle', () => {
    expect(mask('Customer JAN DE VRIES called about the delivery')).to.equal('Customer [PERSON_1] called about the delivery');
    expect(mask('CONTACT: MARIA DA SILVA')).to.equal('CONTACT: [PERSON_1]');
    expect(mask('PIETER VAN DER BERG')).to.equal('[PERSON_1]');
    expect(mask('JOHN LE CARRE wrote it')).to.equal('[PERSON_1] wrote it');
  });

  it('masks a passenger’s name written SURNAME/GIVEN NAMES, leaving the honorific', () => {
    expect(mask('Passenger: MULLER/ANNA MRS')).to.equal('Passenger: [PERSON_1] MRS');
    expect(mask('1. DE VRIES/JAN MR  KL1234 AMS-LHR 12DEC')).to.equal('1. [PERSON_1] MR  KL1234 AMS-LHR 12DEC');
    expect(mask('KOWALSKI/PIOTR JAN')).to.equal('[PERSON_1]');
    expect(mask("O'BRIEN/SEAN MR")).to.equal('[PERSON_1] MR');
    expect(mask('LI/WEI MR')).to.equal('[PERSON_1] MR');
    expect(mask('SMITH/JOHN')).to.equal('[PERSON_1]');
    // The word before the slash is no surname: the name after it is read as a name in capitals.
    expect(mask('HEADER: CLIENT/MARIA SANTOS')).to.equal('HEADER: CLIENT/[PERSON_1]');
  });

  it('leaves pairs of capitals joined by a slash that are not names', () => {
    for (const text of [
      'the TCP/IP stack',
      'AC/DC played',
      'ask HR/ANNA',
      'ls /usr/LIB/JOHN',
      'an A/B test',
      'PATH=/opt/JAN',
      'https://x.com/ANNA',
      'the DE LA RUE plant',
      // QA, second round: months, colours, wines, words before a first name, an honorific after no name.
      'SALES DEC/JAN UP 5%',
      '| DEC/JAN | 15 |',
      'SEASON: APRIL/MAY',
      'COLOR: ROSE/IVORY',
      'CHERRY/OLIVE and MERLOT/CHARLOTTE',
      'SIDEBAR/GRACE',
      'GPT/MARK, BERT/EMMA',
      'SORT BY NAME/ANNA',
      'EURO/JAN',
      'Use TCP/IP MRS settings',
      'USD/EUR MR trade',
      'BUY/SELL MRS BROWN',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });

  it('masks the name on a card after its label, initials included', () => {
    expect(mask('name on card H. Becker, exp 09/28')).to.equal('name on card [PERSON_1], exp 09/28');
    expect(mask("Cardholder's name: Anna Schmidt")).to.equal("Cardholder's name: [PERSON_1]");
    expect(mask('Karteninhaber: H. Becker')).to.equal('Karteninhaber: [PERSON_1]');
    expect(mask('Nom sur la carte : Camille Martin')).to.equal('Nom sur la carte : [PERSON_1]');
    expect(mask('the cardholder must sign the receipt')).to.equal('the cardholder must sign the receipt');
  });
});
