import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings on prose, e-mail headers and log lines, with the samples as QA sent them.
describe('firewall QA: places, header names, log lines', () => {
  it('leaves "at <domain>" alone: a shop or a site is not a spelled-out e-mail', () => {
    const places = [
      'I bought it at Amazon.com and returned it at bol.com, but the refund showed up twice at Booking.com',
      'The source code is available at github.com and the docs at docs.python.org.',
      'Sign up at example.org, then log in at app.example.org.',
      'She works at Google.com?',
      'got charged twice at Booking.com',
    ];
    for (const text of places) expect(createFirewall().mask(text), text).to.equal(text);
  });

  it('still masks an e-mail spelled out with "at" and "dot"', () => {
    expect(createFirewall().mask('mail jan dot jansen at gmail dot com please')).to.equal('mail [EMAIL_1] please');
    expect(createFirewall().mask('mail jan at gmail dot com please')).to.equal('mail [EMAIL_1] please');
    // A bare "at" with real dots is still an address where the words are a mailbox's.
    expect(createFirewall().mask('mail jan.jansen at gmail.com please')).to.equal('mail [EMAIL_1] please');
    expect(createFirewall().mask('mail jan at gmail.com please')).to.equal('mail [EMAIL_1] please');
    expect(createFirewall().mask('reach me: p_devries at rotterdam.nl')).to.equal('reach me: [EMAIL_1]');
  });
});

describe('firewall QA: surname-first names in mail headers', () => {
  it('masks "Surname, First" before a mailbox on a header line as one person', () => {
    expect(createFirewall().mask('From: Jansen, Pieter <p.jansen@rotterdam.nl>')).to.equal('From: [PERSON_1] <[EMAIL_1]>');
    expect(
      createFirewall().mask('Van: Bakker, Marieke (Gemeente Utrecht) <m.bakker@utrecht.nl>\nVerzonden: maandag\nAan: Smit, Johan <j.smit@utrecht.nl>'),
    ).to.equal('Van: [PERSON_1] (Gemeente Utrecht) <[EMAIL_1]>\nVerzonden: maandag\nAan: [PERSON_2] <[EMAIL_2]>');
    expect(createFirewall().mask('To: "de Groot, Annelies" <a.degroot@example.nl>')).to.equal('To: "[PERSON_1]" <[EMAIL_1]>');
  });

  it('leaves a comma between two words alone outside a header line', () => {
    const text = 'We visited Utrecht, Gouda and Delft <see notes>.';
    expect(createFirewall().mask(text)).to.equal(text);
  });
});

describe('firewall QA: several unquoted key=value pairs on a log line', () => {
  it('masks each name by its key, and leaves the other values', () => {
    expect(
      createFirewall().mask('2024-11-26 10:02:11 INFO signup first_name=Oliver last_name=Bennett email=o.bennett@outlook.com country=GB'),
    ).to.equal('2024-11-26 10:02:11 INFO signup first_name=[PERSON_1] last_name=[PERSON_2] email=[EMAIL_1] country=GB');
    const german = createFirewall().mask('[2024-11-26T08:12:44Z] DEBUG Kunde angelegt: vorname=Jürgen nachname=Brandt plz=50667 ort=Köln');
    expect(german).to.match(/^\[2024-11-26T08:12:44Z\] DEBUG Kunde angelegt: vorname=\[PERSON_1\] nachname=\[PERSON_2\] /);
    expect(german).not.to.match(/Jürgen|Brandt/);
    expect(createFirewall().mask('user created: first_name=Oliver last_name=Bennett')).to.equal(
      'user created: first_name=[PERSON_1] last_name=[PERSON_2]',
    );
  });
});

describe('firewall QA: UK addresses written one part a line', () => {
  it('masks the addressee, the street, the town and the postcode', () => {
    expect(createFirewall().mask('Ship to:\nMr J. Carter\n41 Church Road\nCardiff\nCF10 3AN')).to.equal('Ship to:\nMr [PERSON_1]\n[ADDRESS_1]');
    expect(createFirewall().mask('Ship to:\nJ. Carter\n41 Kingsway\nCF10 3AN')).to.equal('Ship to:\n[PERSON_1]\n[ADDRESS_1]');
  });

  it('does not take a line of prose above a postcode for a street', () => {
    const text = 'We have 3 Things\nTo Do\nNW1 6XE';
    expect(createFirewall().mask(text)).to.equal(text);
  });
});
