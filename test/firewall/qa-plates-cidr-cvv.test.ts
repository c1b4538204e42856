import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings: licence plates sent in clear after their label, network ranges masked as IP
// addresses, a card's security code sent in clear beside the masked card number. Samples as QA sent them.
describe('firewall QA: licence plates, network ranges, card security codes', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  describe('licence plates (LICENCE_PLATE)', () => {
    it('masks a plate after its label, in the shapes of the Netherlands, Germany, France, the UK, Spain, Italy and Poland', () => {
      expect(mask('Kenteken: 12-ABC-3')).to.equal('Kenteken: [LICENCE_PLATE_1]');
      expect(mask('Kennzeichen: M-AB 1234')).to.equal('Kennzeichen: [LICENCE_PLATE_1]');
      expect(mask('immatriculation : AB-123-CD')).to.equal('immatriculation : [LICENCE_PLATE_1]');
      expect(mask('registration: AB12 CDE (owner Mr Smith)')).to.equal('registration: [LICENCE_PLATE_1] (owner Mr [PERSON_1])');
      expect(mask('matrícula 1234 BCD')).to.equal('matrícula [LICENCE_PLATE_1]');
      expect(mask('targa AB 123 CD')).to.equal('targa [LICENCE_PLATE_1]');
      expect(mask('numer rejestracyjny WA 12345')).to.equal('numer rejestracyjny [LICENCE_PLATE_1]');
      expect(mask('Tablica rejestracyjna: KR 1234A')).to.equal('Tablica rejestracyjna: [LICENCE_PLATE_1]');
      expect(mask('Vehicle registration: B-XY 123E')).to.equal('Vehicle registration: [LICENCE_PLATE_1]');
      expect(mask('Mijn auto met kenteken AB-12-CD staat fout geparkeerd.')).to.equal('Mijn auto met kenteken [LICENCE_PLATE_1] staat fout geparkeerd.');
      expect(mask('license_plate=AB12CDE')).to.equal('license_plate=[LICENCE_PLATE_1]');
    });

    it('masks a plate under a plate key or column, and gives one plate one placeholder however it is written', () => {
      expect(mask('{"kenteken": "12-ABC-3", "merk": "Volvo"}')).to.equal('{"kenteken": "[LICENCE_PLATE_1]", "merk": "Volvo"}');
      expect(mask('| Naam | Kenteken |\n|---|---|\n| Jan | 12-ABC-3 |\n| Piet | AB-12-CD |')).to.equal(
        '| Naam | Kenteken |\n|---|---|\n| [PERSON_1] | [LICENCE_PLATE_1] |\n| [PERSON_2] | [LICENCE_PLATE_2] |',
      );
      expect(mask('merk;kenteken\nVolvo;12-ABC-3\nFiat;GX-412-K')).to.equal('merk;kenteken\nVolvo;[LICENCE_PLATE_1]\nFiat;[LICENCE_PLATE_2]');
      expect(mask('registration: AB12 CDE, also written number plate AB12CDE')).to.equal(
        'registration: [LICENCE_PLATE_1], also written number plate [LICENCE_PLATE_1]',
      );
    });

    it('leaves plate-like codes without a plate label, and the labels without a plate', () => {
      for (const text of [
        'Order AB-123-CD shipped, product code XY-12-AB',
        'Flight KL 1234 to AB12 CDE',
        'Registration number HRB 12345',
        'registration 2024 opens Monday',
        'Kennzeichen des Produkts: A-1',
        'Die Kennzeichen sind neu',
        'The plaque on the wall',
        'targa commemorativa 2019',
        'Der Artikel M-AB 1234 ist lieferbar.',
        'sku,qty\nAB-123-CD,3',
      ]) {
        expect(mask(text), text).to.equal(text);
      }
    });
  });

  describe('network ranges', () => {
    it('leaves a CIDR range, which names no one', () => {
      for (const text of [
        'Do 10.0.0.0/16 and 10.0.1.0/24 overlap?',
        'allow 172.16.0.0/12 and 192.168.0.0/16 in the firewall',
        'route fd00::/8 and 2001:db8::/32',
        'Is a /24 enough?',
        'version 1.2.3.4 and kernel 5.15.0.91',
        'upgraded from 1.2.3.3 to 1.2.3.4',
      ]) {
        expect(mask(text), text).to.equal(text);
      }
    });

    it('masks a host: an address with its network prefix, a /32, a bare address', () => {
      expect(mask('inet 192.168.1.23/24 brd 192.168.1.255')).to.equal('inet [IP_1] brd [IP_2]');
      expect(mask('host 81.204.17.56/32 is blocked')).to.equal('host [IP_1] is blocked');
      expect(mask('inet6 2001:db8::1/64 scope global')).to.equal('inet6 [IP_1] scope global');
      expect(mask('connect from 81.204.17.56 port 443')).to.equal('connect from [IP_1] port 443');
    });
  });

  describe("a card's security code", () => {
    it('masks the code after its label, as part of the card', () => {
      expect(mask('Card 4111 1111 1111 1111, exp 12/27, CVV 123')).to.equal('Card [CARD_1], exp 12/27, CVV [CARD_2]');
      expect(mask('Visa 4111111111111111 security code 4821')).to.equal('Visa [CARD_1] security code [CARD_2]');
      expect(mask('Kaart 5555 5555 5555 4444 CVC: 482')).to.equal('Kaart [CARD_1] CVC: [CARD_2]');
      expect(mask('Karte 4111 1111 1111 1111, Prüfnummer 123')).to.equal('Karte [CARD_1], Prüfnummer [CARD_2]');
      expect(mask('carte 4111 1111 1111 1111 cryptogramme 321')).to.equal('carte [CARD_1] cryptogramme [CARD_2]');
      expect(mask('tarjeta 4111 1111 1111 1111, código de seguridad 987')).to.equal('tarjeta [CARD_1], código de seguridad [CARD_2]');
      expect(mask('{"card_number": "4111111111111111", "cvv": "123"}')).to.equal('{"card_number": "[CARD_1]", "cvv": "[CARD_2]"}');
      expect(mask('CVV 123')).to.equal('CVV [CARD_1]');
      expect(mask('cvv2: 9876')).to.equal('cvv2: [CARD_1]');
    });

    it('leaves three or four digits that are no card code: other codes, quantities, ports, prices', () => {
      for (const text of [
        'The alarm security code 4821 is on the fridge',
        'Prüfnummer 1234 der Anlage',
        'CID 1234 in the logs',
        'CVV 12345',
        'Order 123 of 4821 items, 3 units at €482',
        'listening on port 8080',
        'cvv-check.js line 123',
      ]) {
        expect(mask(text), text).to.equal(text);
      }
    });
  });
});
