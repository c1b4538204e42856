import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings on Spanish, Italian and Polish text: keys and column headers of names and addresses,
// double surnames, name cues and street addresses, with the samples as QA sent them (each went to
// the provider in clear).
describe('firewall QA: Spanish, Italian and Polish names, keys and addresses', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  it('types values under Spanish, Italian and Polish name keys', () => {
    expect(mask('{"nome":"Anna","cognome":"Romano","codice_fiscale":"RSSMRA85T10A562S"}')).to.equal(
      '{"nome":"[PERSON_1]","cognome":"[PERSON_2]","codice_fiscale":"[CODICE_FISCALE_1]"}',
    );
    expect(mask('{"nombre":"Carmen","apellidos":"García López","primer_apellido":"García","segundo_apellido":"López"}')).to.equal(
      '{"nombre":"[PERSON_1]","apellidos":"[PERSON_2]","primer_apellido":"[PERSON_3]","segundo_apellido":"[PERSON_4]"}',
    );
    expect(mask('{"nazwisko":"Wójcik","imię":"Magdalena"}')).to.equal('{"nazwisko":"[PERSON_1]","imię":"[PERSON_2]"}');
    expect(mask('{"Nombre y apellidos":"Carmen García López"}')).to.equal('{"Nombre y apellidos":"[PERSON_1]"}');
    expect(mask('nazwisko: Wójcik\nimie: Magdalena')).to.equal('nazwisko: [PERSON_1]\nimie: [PERSON_2]');
  });

  it('types values under Spanish, Italian and Polish address, postcode, town, birth-date, e-mail and phone keys', () => {
    expect(
      mask('{"indirizzo":"Via Roma 10","città":"Roma","CAP":"00184","cellulare":"3471234567","data_di_nascita":"02/06/1958"}'),
    ).to.equal('{"indirizzo":"[ADDRESS_1]","città":"[ADDRESS_2]","CAP":"[ADDRESS_3]","cellulare":"[PHONE_1]","data_di_nascita":"[DATE_OF_BIRTH_1]"}');
    expect(mask('{"dirección":"Calle Mayor 5","código postal":"28009","ciudad":"Madrid","correo":"carmen@example.es"}')).to.equal(
      '{"dirección":"[ADDRESS_1]","código postal":"[ADDRESS_2]","ciudad":"[ADDRESS_3]","correo":"[EMAIL_1]"}',
    );
    expect(mask('{"ulica":"Długa 5","kod_pocztowy":"31-147","miasto":"Kraków","data_urodzenia":"12.08.1980"}')).to.equal(
      '{"ulica":"[ADDRESS_1]","kod_pocztowy":"[ADDRESS_2]","miasto":"[ADDRESS_3]","data_urodzenia":"[DATE_OF_BIRTH_1]"}',
    );
  });

  it('masks whole CSV rows under Spanish, Italian and Polish headers', () => {
    expect(mask('nombre,apellidos,correo\nCarmen,García López,carmen@example.es')).to.equal('nombre,apellidos,correo\n[PERSON_1],[PERSON_2],[EMAIL_1]');
    expect(mask('nome;cognome;email;indirizzo\nAnna;Ferrari;anna@example.it;Via Roma 10')).to.equal(
      'nome;cognome;email;indirizzo\n[PERSON_1];[PERSON_2];[EMAIL_1];[ADDRESS_1]',
    );
    expect(mask('imię,nazwisko\nMagdalena,Wójcik')).to.equal('imię,nazwisko\n[PERSON_1],[PERSON_2]');
  });

  it('leaves product tables, a "cap" that is no postcode, and "nome" as a variable in code', () => {
    for (const text of [
      '[{"nombre":"Silla Roja","precio":49,"stock":3},{"nombre":"Mesa Luna","precio":120,"stock":1}]',
      'nome;prezzo;quantità\nTavolo Rosso;120;3\nSedia Anna;45;10',
      '{"cap":"round","limit":"100"}',
      '{"via":"email","status":"sent"}',
      'for nome in nomi:\n    print(nome)',
      'const nome = input("Come ti chiami? ")',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });

  it('takes a second Spanish surname into the name', () => {
    expect(mask('Me llamo Javier Fernández Ruiz y vivo en Madrid.')).to.equal('Me llamo [PERSON_1] y vivo en Madrid.');
    expect(mask('Hablé con Pedro Sánchez Martínez ayer.')).to.equal('Hablé con [PERSON_1] ayer.');
    expect(mask('Pedro Sánchez Martínez llamó ayer.')).to.equal('[PERSON_1] llamó ayer.');
    expect(mask('La reunión con Javier Fernández Ruiz y Ana.')).to.equal('La reunión con [PERSON_1] y [PERSON_2].');
    // Not a word that is no surname, nor a street after the name.
    expect(mask('Ik woon bij Jan van Dijk op de Kerkstraat 5.')).to.equal('Ik woon bij [PERSON_1] op de [ADDRESS_1].');
  });

  it('reads Spanish, Italian and Polish name cues', () => {
    expect(mask('Mi nombre es Javier Fernández Ruiz.')).to.equal('Mi nombre es [PERSON_1].');
    expect(mask('Mi chiamo Giulia Bianchi.')).to.equal('Mi chiamo [PERSON_1].');
    expect(mask('Il mio nome è Marco Rossi.')).to.equal('Il mio nome è [PERSON_1].');
    expect(mask('Nazywam się Anna Kowalska.')).to.equal('Nazywam się [PERSON_1].');
    expect(mask('Mam na imię Piotr.')).to.equal('Mam na imię [PERSON_1].');
    expect(mask('Hola, soy Lucía Sánchez Martínez.')).to.equal('Hola, soy [PERSON_1].');
    expect(mask('Sono Marco, il tuo collega.')).to.equal('Sono [PERSON_1], il tuo collega.');
    expect(mask('Jestem Anna Nowak.')).to.equal('Jestem [PERSON_1].');
    // "soy", "sono", "jestem" say as often what or how one is.
    for (const text of ['Sono Felice di conoscerti.', 'Soy Vegano desde 2019.']) expect(mask(text), text).to.equal(text);
  });

  it('masks Spanish, Italian and Polish street addresses', () => {
    expect(mask('Vivo en Calle de Alcalá 145, 28009 Madrid.')).to.equal('Vivo en [ADDRESS_1].');
    expect(mask('Mieszkam przy ul. Floriańska 12, 31-019 Kraków.')).to.equal('Mieszkam przy [ADDRESS_1].');
    expect(mask('Abito in Via Roma 10, 00184 Roma.')).to.equal('Abito in [ADDRESS_1].');
    expect(mask('Enviar a C/ Mayor 5, 3º B, por favor.')).to.equal('Enviar a [ADDRESS_1], por favor.');
    expect(mask('La oficina está en Avenida de la Constitución 12.')).to.equal('La oficina está en [ADDRESS_1].');
    expect(mask('Ci vediamo in Piazza Garibaldi 3.')).to.equal('Ci vediamo in [ADDRESS_1].');
    expect(mask('Biuro: al. Jerozolimskie 44, Warszawa')).to.equal('Biuro: [ADDRESS_1]');
  });

  it('reads a value under an address key past a street type’s abbreviation', () => {
    expect(mask('Adres: ul. Długa 5, 31-147 Kraków')).to.equal('Adres: [ADDRESS_1]');
    // A sentence after the value still ends it.
    expect(mask('Address: 1 Baker Street, London. Please send the invoice there.')).to.equal('Address: [ADDRESS_1]. Please send the invoice there.');
  });

  it('leaves roads in history, "via" as a channel, Rome alone and streets in passing', () => {
    for (const text of [
      'The Via Appia was built in 312 BC.',
      'Die Via Appia ist eine alte Römerstraße. Sie führt von Roma nach Brindisi.',
      "I'll send it via email tomorrow.",
      'Please send the files via Dropbox 2 times a week.',
      'Il corso Python 3 inizia lunedì.',
      'Roma is beautiful in spring.',
      'Smith et al. Jones 12 found nothing.',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });
});
