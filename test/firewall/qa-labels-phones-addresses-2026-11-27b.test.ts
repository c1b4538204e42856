import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

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
});
