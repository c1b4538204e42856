import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings: Spanish, Italian and Polish phone numbers in national form were sent in clear, even
// after a clear cue; only their +34/+39/+48 forms were masked. Samples as QA sent them.
describe('firewall QA: Spanish, Italian and Polish phone numbers in national form', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  it('masks them after a phone word of their language', () => {
    expect(mask('Mi número es 612 345 678')).to.equal('Mi número es [PHONE_1]');
    expect(mask('móvil: 699 887 766')).to.equal('móvil: [PHONE_1]');
    expect(mask('Il mio numero è 333 482 1956')).to.equal('Il mio numero è [PHONE_1]');
    expect(mask('Mój numer to 605 123 456')).to.equal('Mój numer to [PHONE_1]');
    expect(mask('al fijo 91 555 12 34')).to.equal('al fijo [PHONE_1]');
    expect(mask('Zadzwoń pod 798-456-123')).to.equal('Zadzwoń pod [PHONE_1]');
    expect(mask('chiamami al 339.123.4567')).to.equal('chiamami al [PHONE_1]');
    expect(mask('Mi móvil es el 612 345 678 y el fijo 91 555 12 34.')).to.equal('Mi móvil es el [PHONE_1] y el fijo [PHONE_2].');
    expect(mask('Chiamami al 06 6982 1234 o al 333 482 1956')).to.equal('Chiamami al [PHONE_1] o al [PHONE_2]');
    expect(mask('Mój numer: 22 123 45 67')).to.equal('Mój numer: [PHONE_1]');
    expect(mask('Móvil del cliente: 612 345 678')).to.equal('Móvil del cliente: [PHONE_1]');
    // An English phone word names no country; the shape and the plan do.
    expect(mask('phone: 339.123.4567')).to.equal('phone: [PHONE_1]');
  });

  it('gives the national and the international form of one number one placeholder', () => {
    expect(mask('Il mio numero è +39 333 482 1956 oppure 333 482 1956')).to.equal('Il mio numero è [PHONE_1] oppure [PHONE_1]');
    expect(mask('Mi teléfono: +34 612 345 678, o sea 612 345 678')).to.equal('Mi teléfono: [PHONE_1], o sea [PHONE_1]');
  });

  it('masks them in chat transcripts and mail bodies', () => {
    expect(mask('[10:32] Ana: llámame al 699 887 766 cuando puedas')).to.equal('[10:32] [PERSON_1]: llámame al [PHONE_1] cuando puedas');
    expect(mask('Hola Luis,\n\nte paso mi teléfono: 612 34 56 78\n\nUn saludo')).to.equal('Hola [PERSON_1],\n\nte paso mi teléfono: [PHONE_1]\n\nUn saludo');
    expect(mask('Buongiorno,\nper qualsiasi cosa il mio cellulare è 347 123 4567.\nCordiali saluti')).to.equal(
      'Buongiorno,\nper qualsiasi cosa il mio cellulare è [PHONE_1].\nCordiali saluti',
    );
  });

  it('masks them in CSV cells and Markdown tables under a phone column, and in SQL and JSON under a phone key', () => {
    expect(mask('nombre;teléfono;email\nAna García;612 345 678;ana@example.es\nLuis Pérez;699 887 766;luis@example.es')).to.equal(
      'nombre;teléfono;email\n[PERSON_1];[PHONE_1];[EMAIL_1]\n[PERSON_2];[PHONE_2];[EMAIL_2]',
    );
    // The town and name columns beside them are read by their headers too (structure.ts).
    expect(mask('ciudad,móvil\nMadrid,612345678\nSevilla,699887766')).to.equal('ciudad,móvil\n[ADDRESS_1],[PHONE_1]\n[ADDRESS_2],[PHONE_2]');
    expect(mask('imie;komórka\nJan;605 123 456')).to.equal('imie;komórka\n[PERSON_1];[PHONE_1]');
    expect(mask('id\ttelefon\n7\t605 123 456')).to.equal('id\ttelefon\n7\t[PHONE_1]');
    expect(mask('| Nombre | Móvil |\n|---|---|\n| Ana | 612 345 678 |')).to.equal('| Nombre | Móvil |\n|---|---|\n| [PERSON_1] | [PHONE_1] |');
    expect(mask('| Nome | Cellulare | Ordine |\n|---|---|---|\n| Mario | 333 482 1956 | 612345678 |')).to.equal(
      '| Nome | Cellulare | Ordine |\n|---|---|---|\n| [PERSON_1] | [PHONE_1] | 612345678 |',
    );
    expect(mask('cliente,tel.\n1,612 345 678')).to.equal('cliente,tel.\n1,[PHONE_1]');
    expect(mask("INSERT INTO clientes (nombre, telefono) VALUES ('Ana', '612 345 678');")).to.equal(
      "INSERT INTO clientes (nombre, telefono) VALUES ('[PERSON_1]', '[PHONE_1]');",
    );
    expect(mask('{"movil": "612 345 678", "qty": 2}')).to.equal('{"movil": "[PHONE_1]", "qty": 2}');
  });

  it('leaves nine digits without a phone word as they are: order numbers, quantities, prices, ids', () => {
    for (const text of [
      'Order 612345678 shipped',
      'Pedido 612 345 678 enviado',
      'Mi número de pedido es 612345678',
      'Mi número de cliente es 612 345 678',
      "Il numero d'ordine è 333 482 1956",
      'Numero di serie 333 482 1956',
      'Numer zamówienia 605123456',
      'We shipped 612 345 678 units',
      'Listening on port 8080, pid 612345678',
      'Version 6.12.345.678 released',
      'Preis: 699 887 766 EUR',
      'Tu número de la suerte: 7',
      'producto;precio;stock\nSilla;699887766;12',
      'SKU 612-345-678, 3 units at 69.99',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });
});
