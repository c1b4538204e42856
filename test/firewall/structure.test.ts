import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';
import { detectEntities } from '../../src/firewall/detect.js';

// Issue 23: what people paste — JSON, CSV, tables, key-value lines, code — is masked by what its
// keys and headers say, and keeps its structure; and the casual formats of numbers, streets,
// e-mails and names of chat text are masked too.

const mask = (text: string, language: 'nl' | 'en' | 'fr' | 'de' | 'auto' = 'auto') => createFirewall({ language }).mask(text);

describe('structure-aware masking', () => {
  it('masks the values of a JSON object by their keys, and the masked text is still the same JSON', () => {
    const json = '{"voornaam": "Bram", "achternaam": "Kuipers", "telefoon": "+31612345678", "woonplaats": "Zwolle", "aantal": 3}';
    const masked = mask(`Hier is de export: ${json}`);
    const parsed = JSON.parse(masked.slice(masked.indexOf('{'))) as Record<string, unknown>;
    expect(Object.keys(parsed)).to.deep.equal(['voornaam', 'achternaam', 'telefoon', 'woonplaats', 'aantal']);
    expect(parsed.voornaam).to.match(/^\[PERSON_\d+\]$/);
    expect(parsed.achternaam).to.match(/^\[PERSON_\d+\]$/);
    expect(parsed.telefoon).to.match(/^\[PHONE_\d+\]$/);
    expect(parsed.woonplaats).to.match(/^\[ADDRESS_\d+\]$/);
    expect(parsed.aantal).to.equal(3);
  });

  it('reads a quoted CSV cell holding the separator as one cell: "Surname, First" is a name, the row stays in its columns', () => {
    const csv = 'naam,email,telefoon\n"Jansen, Pieter",pieter@example.nl,0612345678\n"de Vries, Anna",anna@example.nl,0687654321';
    expect(mask(csv, 'nl')).to.equal('naam,email,telefoon\n"[PERSON_1]",[EMAIL_1],[PHONE_1]\n"[PERSON_2]",[EMAIL_2],[PHONE_2]');
    expect(mask('name;email;notes\n"Smith, John";john@example.com;"call after 5; not before"', 'en')).to.equal(
      'name;email;notes\n"[PERSON_1]";[EMAIL_1];"call after 5; not before"',
    );
    // A table of things keeps its quoted cells.
    expect(mask('product,price,name\n"Chair, oak",12.50,"Billy, white"', 'en')).to.equal('product,price,name\n"Chair, oak",12.50,"Billy, white"');
  });

  it('masks a CSV with a header by column and keeps every row and column', () => {
    const csv = 'Vorname,Nachname,Geburtsdatum,Stadt\nMia,Schulz,12.05.1984,Bremen\nLeon,Zimmermann,30.09.1990,Erfurt';
    const masked = mask(csv, 'de');
    const rows = masked.split('\n').map((r) => r.split(','));
    expect(rows).to.have.length(3);
    for (const row of rows) expect(row).to.have.length(4);
    expect(rows[0]).to.deep.equal(['Vorname', 'Nachname', 'Geburtsdatum', 'Stadt']);
    for (const value of ['Mia', 'Schulz', '12.05.1984', 'Bremen', 'Leon', 'Zimmermann', '30.09.1990', 'Erfurt']) expect(masked).not.to.include(value);
  });

  it('masks the cells of a Markdown table under personal headers and keeps the table', () => {
    const table = '| Nom | Prénom | Date de naissance |\n|---|---|---|\n| Gauthier | Inès | 17/10/1986 |';
    const masked = mask(table, 'fr');
    const lines = masked.split('\n');
    expect(lines[0]).to.equal('| Nom | Prénom | Date de naissance |');
    expect(lines[1]).to.equal('|---|---|---|');
    expect(lines[2]).to.match(/^\| \[PERSON_\d+\] \| \[PERSON_\d+\] \| \[DATE_OF_BIRTH_\d+\] \|$/);
  });

  it('masks a cell of a table\'s name column whole, whatever its shape (QA: "Anna Smit505" went out as "[PERSON_1] Smit505")', () => {
    expect(mask('naam;email\nPieter Bakker760;p@example.nl\nX Æ A-12;q@example.nl\nAnna Smit505;r@example.nl', 'nl')).to.equal(
      'naam;email\n[PERSON_1];[EMAIL_1]\n[PERSON_2];[EMAIL_2]\n[PERSON_3];[EMAIL_3]',
    );
    expect(mask('| Naam | Stad |\n| --- | --- |\n| Anna Smit505 | Utrecht |\n| X Æ A-12 | Delft |', 'nl')).to.equal(
      '| Naam | Stad |\n| --- | --- |\n| [PERSON_1] | [ADDRESS_1] |\n| [PERSON_2] | [ADDRESS_2] |',
    );
    // Rows retrieved from memory come under their header, after the knowledge message's source line.
    expect(mask('[1] (document "klanten" in collection crm)\nname,city\nPieter Bakker760,Leeds', 'en')).to.equal(
      '[1] (document "klanten" in collection crm)\nname,city\n[PERSON_1],[ADDRESS_1]',
    );
    expect(mask('voornaam;achternaam;nom\nJan2;n/a;-', 'nl')).to.equal('voornaam;achternaam;nom\n[PERSON_1];n/a;-');
    // A bare "name" column of a table without personal columns is as before: a thing's name stays.
    for (const table of ['| Name | Type | Default |\n|---|---|---|\n| timeout_ms | number | 5000 |', 'name,description\npolder-gateway,the gateway']) {
      expect(mask(table, 'en')).to.equal(table);
    }
  });

  it('masks a value under a name key whole when it opens with a known first name, whatever follows (key-value lines, JSON, a role\'s column)', () => {
    expect(mask('Naam: Anna Smit505', 'nl')).to.equal('Naam: [PERSON_1]');
    expect(mask('{"naam": "Pieter Bakker760", "email": "p@example.nl"}', 'nl')).to.equal('{"naam": "[PERSON_1]", "email": "[EMAIL_1]"}');
    expect(mask('| Owner | Email |\n|---|---|\n| Anna Smit505 | a@example.nl |', 'en')).to.equal('| Owner | Email |\n|---|---|\n| [PERSON_1] | [EMAIL_1] |');
    // Prose after the name is read as before; a thing's name stays.
    expect(mask('Naam: Jan (zie bijlage 2)', 'nl')).to.equal('Naam: [PERSON_1] (zie bijlage 2)');
    for (const text of ['{"name": "polder-gateway", "version": "1.0"}', '{"name": "Emma Mattress v2", "sku": "A1"}']) expect(mask(text, 'en')).to.equal(text);
  });

  it('masks the first names under a child column of a table (they were sent in clear), and no type under an English "Kind"', () => {
    expect(mask('| Ouder | Kind | Telefoon |\n|---|---|---|\n| Mirjam Kok | Sem | 06 12345678 |', 'nl')).to.equal(
      '| Ouder | Kind | Telefoon |\n|---|---|---|\n| [PERSON_1] | [PERSON_2] | [PHONE_1] |',
    );
    expect(mask('| Elternteil | Kind |\n|---|---|\n| Anna Weber | Lukas |', 'de')).to.equal('| Elternteil | Kind |\n|---|---|\n| [PERSON_1] | [PERSON_2] |');
    expect(mask('| Parent | Child |\n|---|---|\n| Sarah Jones | Oliver |', 'en')).to.equal('| Parent | Child |\n|---|---|\n| [PERSON_1] | [PERSON_2] |');
    expect(mask('kind;groep;allergie\nSem;3B;pinda\nNoor;4A;geen', 'nl')).to.equal('kind;groep;allergie\n[PERSON_1];3B;pinda\n[PERSON_2];4A;geen');
    expect(mask('Naam kind: Sem\nGroep: 3B', 'nl')).to.equal('Naam kind: [PERSON_1]\nGroep: 3B');
    // "kind" is English for a type: a column of them, or a YAML key, is no one.
    for (const text of ['| Kind | Count |\n|---|---|\n| Bug | 12 |\n| Feature | 3 |', 'kind: Deployment\napiVersion: apps/v1', '{"kind": "Service", "children": "Submit"}']) {
      expect(mask(text, 'en'), text).to.equal(text);
    }
  });

  it('masks key-value lines, a value under a label on its own line, and SQL and code literals', () => {
    const masked = mask('Naam: stijn de graaf\nGeboortedatum\n11-09-1964\n', 'nl');
    expect(masked).not.to.match(/stijn|graaf|1964/);
    const sql = mask("INSERT INTO customers (first_name, last_name, phone) VALUES ('Oscar', 'Pearce', '+447800819773');", 'en');
    expect(sql).to.match(/VALUES \('\[PERSON_\d+\]', '\[PERSON_\d+\]', '\[PHONE_\d+\]'\);$/);
    const code = mask("expect(greet('Ethan Moss')).toBe('Hello, Ethan Moss!');", 'en');
    expect(code).not.to.include('Ethan');
  });

  it('types a literal compared with a key in code or SQL as it types one assigned to it (they were sent in clear)', () => {
    expect(mask('if (kunde.vorname === "Benedikt" && kunde.plz === "80469") { … }', 'de')).to.equal(
      'if (kunde.vorname === "[PERSON_1]" && kunde.plz === "[ADDRESS_1]") { … }',
    );
    expect(mask('if (kunde.nachname === "Oberhuber") return;', 'de')).to.equal('if (kunde.nachname === "[PERSON_1]") return;');
    expect(mask('if (klant.achternaam !== "Oberhuber") return;', 'nl')).to.equal('if (klant.achternaam !== "[PERSON_1]") return;');
    expect(mask("SELECT * FROM kunden WHERE achternaam LIKE 'Oberhuber%'", 'nl')).to.equal("SELECT * FROM kunden WHERE achternaam LIKE '[PERSON_1]%'");
    expect(mask("where achternaam not ilike '%oberhuber%'", 'nl')).to.equal("where achternaam not ilike '%[PERSON_1]%'");
    // Keys that name things keep their values; "like" in prose is no comparison.
    for (const text of ['if (user.role !== "Admin") {', "WHERE product LIKE 'Emma%'", "I like 'Oberhuber' as a word"]) {
      expect(mask(text, 'en'), text).to.equal(text);
    }
  });

  it('ends a key-value line at the sentence that follows it, so the request in it still reaches the model', () => {
    expect(mask('E-mail: jan@example.nl. Please draft a polite reply refusing the refund.', 'en')).to.equal(
      'E-mail: [EMAIL_1]. Please draft a polite reply refusing the refund.',
    );
    expect(mask('email: JAN.DEVRIES@EXAMPLE.NL tel:+31(0)6-12345678 IP 192.168.10.23', 'nl')).to.equal('email: [EMAIL_1] tel:[PHONE_1] IP [IP_1]');
    expect(mask('Address: 221B Baker Street London. Please send the invoice there', 'en')).to.equal(
      'Address: [ADDRESS_1]. Please send the invoice there',
    );
    expect(mask('Address: 221B Baker St. London', 'en')).to.equal('Address: [ADDRESS_1]');
    // "IBAN" after "met" is the label of the number, not the first name Iban.
    expect(mask('Betaal met IBAN NL91ABNA0417164300 graag', 'nl')).to.equal('Betaal met IBAN [IBAN_1] graag');
    expect(mask('Ik heb met Iban Garcia gesproken', 'nl')).to.equal('Ik heb met [PERSON_1] gesproken');
  });

  it('masks a name in a record that also holds prices or versions when the record names a person (an e-mail, a customer, an owner)', () => {
    expect(mask('name,email,price\nEmma de Vries,emma@devries.nl,49.00', 'en')).to.equal('name,email,price\n[PERSON_1],[EMAIL_1],49.00');
    expect(mask('{"customer":{"name":"Emma de Vries"},"items":[{"sku":"A1","price":49}]}', 'en')).to.equal(
      '{"customer":{"name":"[PERSON_1]"},"items":[{"sku":"A1","price":49}]}',
    );
    expect(mask('customer_name,price\nEmma de Vries,49', 'en')).to.equal('customer_name,price\n[PERSON_1],49');
    expect(mask('owner:\n  name: Ethan Brooks\nreplicas: 3', 'en')).to.equal('owner:\n  name: [PERSON_1]\nreplicas: 3');
    expect(mask('| Product | Owner | Price |\n|---|---|---|\n| Emma Mattress | Sophie Turner | 599 |', 'en')).to.equal(
      '| Product | Owner | Price |\n|---|---|---|\n| Emma Mattress | [PERSON_1] | 599 |',
    );
    // An order's items are things beside their customer's e-mail, which made the whole text a
    // person's record ("Luna Pillow" was masked as a person); the customer's own object is a person's.
    expect(mask('{"items":[{"name":"Luna Pillow","sku":"LP-1","qty":2}],"customer_email":"ruth.baxter@btinternet.com"}', 'en')).to.equal(
      '{"items":[{"name":"Luna Pillow","sku":"LP-1","qty":2}],"customer_email":"[EMAIL_1]"}',
    );
    expect(mask('{"user":{"name":"Ruth Baxter","email":"ruth@example.com"},"product":{"name":"Aurora Lamp","sku":"AL-220"}}', 'en')).to.equal(
      '{"user":{"name":"[PERSON_1]","email":"[EMAIL_1]"},"product":{"name":"Aurora Lamp","sku":"AL-220"}}',
    );
    expect(mask('{"customer":{"name":"Noor de Vries","sku":"X"}}', 'en')).to.equal('{"customer":{"name":"[PERSON_1]","sku":"X"}}');
    // A buyer's object beside a product's is a person's (QA: the product made the whole text about things).
    expect(mask('{"product":{"name":"Chair","price":99},"buyer":{"name":"Anna Smit"}}', 'en')).to.equal(
      '{"product":{"name":"Chair","price":99},"buyer":{"name":"[PERSON_1]"}}',
    );
    expect(mask('[{"name":"Chair","sku":"C1"},{"name":"Anna Smit","role":"buyer"}]', 'en')).to.equal('[{"name":"Chair","sku":"C1"},{"name":"[PERSON_1]","role":"buyer"}]');
    // A product's name is not a person's, nor is a team that owns one.
    expect(mask('product_name,price\nEmma Mattress,599', 'en')).to.equal('product_name,price\nEmma Mattress,599');
    expect(mask('| Product | Owner | Status |\n|---|---|---|\n| Jasper | Team Atlas | live |', 'en')).to.equal(
      '| Product | Owner | Status |\n|---|---|---|\n| Jasper | Team Atlas | live |',
    );
    // A word of a group anywhere in the cell: a team, a squad, a platform group owns it.
    const owned = [
      '{"name":"billing-api","owner":"Platform Team","version":"2.14.0"}',
      '| Service | Owner | Version |\n| --- | --- | --- |\n| billing-api | Platform Team | 2.14.0 |',
      '{"owner":"Data Squad"}',
      'Eigenaar: Billing Ops',
      '{"owner":"Sales EMEA"}',
    ];
    for (const text of owned) expect(mask(text, 'en'), text).to.equal(text);
    expect(mask('| Service | Owner | Version |\n| --- | --- | --- |\n| billing-api | Sophie Turner | 2.14.0 |', 'en')).to.equal(
      '| Service | Owner | Version |\n| --- | --- | --- |\n| billing-api | [PERSON_1] | 2.14.0 |',
    );
  });

  it('leaves product tables, order exports, configuration and code variables alone', () => {
    const clean = [
      '| Product | Price | Stock |\n|---|---|---|\n| Emma Mattress | 599.00 | 12 |\n| Billy Bookcase | 49.99 | 80 |',
      'order_id,date,amount,status\n10293,2024-03-11,49.95,shipped',
      '{"name": "polder-gateway", "version": "2.4.1", "port": 8080}',
      'for (const emma of users) {\n  if (emma.active) count++;\n}',
      'sku\tqty\twarehouse\nMAX-220\t4\tLondon',
    ];
    for (const text of clean) expect(mask(text, 'en'), text).to.equal(text);
  });
});

describe('identifiers beside order and invoice words', () => {
  it('masks an identifier its own label names, whatever the next sentence or item is about', () => {
    expect(mask('Mijn BSN is 314159265. Factuur 2231 volgt.', 'nl')).to.equal('Mijn BSN is [BSN_1]. Factuur 2231 volgt.');
    expect(mask('Please call me on 07911 123456. My order number is 55120.', 'en')).to.equal('Please call me on [PHONE_1]. My order number is 55120.');
    expect(mask('Meine Steuer-ID ist 65470928410. Rechnung folgt.', 'de')).to.equal('Meine Steuer-ID ist [STEUER_ID_1]. Rechnung folgt.');
    expect(mask('Mon NIR est 185057800608491, commande 55120', 'fr')).to.equal('Mon NIR est [NIR_1], commande 55120');
    expect(mask('Rijksregisternummer 85.07.30-033.28, factuur 2231', 'nl')).to.equal('Rijksregisternummer [BE_NATIONAL_NUMBER_1], factuur 2231');
    // Three-digit groups in a run of numbers (seq output, a column of figures) are no BSN without their cue.
    expect(mask('110 111 112 113 114 115 116', 'nl')).to.equal('110 111 112 113 114 115 116');
    expect(mask('mijn bsn is 111 222 333 en 444', 'nl')).to.equal('mijn bsn is [BSN_1] en 444');
    // The number an order or invoice word names is left alone.
    expect(mask('Factuur 314159265 is betaald.', 'nl')).to.equal('Factuur 314159265 is betaald.');
    expect(mask('Bestelling 314159265. Bedankt!', 'nl')).to.equal('Bestelling 314159265. Bedankt!');
  });
});

describe('dates and brands beside personal data', () => {
  it('takes only the date a birth cue stands before as a date of birth, and Track & Trace as a service', () => {
    expect(mask('Geburtsdatum 12.03.1980, Eintrittsdatum 01.09.2015', 'de')).to.equal('Geburtsdatum [DATE_OF_BIRTH_1], Eintrittsdatum 01.09.2015');
    expect(mask('DOB 12/03/1980. Appointment on 15/05/2024.', 'en')).to.equal('DOB [DATE_OF_BIRTH_1]. Appointment on 15/05/2024.');
    expect(mask('Ik ben op 12-03-1985 geboren, lid sinds 01-01-2010', 'nl')).to.equal('Ik ben op [DATE_OF_BIRTH_1] geboren, lid sinds 01-01-2010');
    expect(mask('Je kunt je pakket volgen via Track & Trace.', 'nl')).to.equal('Je kunt je pakket volgen via Track & Trace.');
  });
});

describe('a title before a surname in lower case', () => {
  it('masks the surname, particles and all, in any language, and not a word that is no name', () => {
    expect(mask('tell mr patel his parcel is late', 'en')).to.equal('tell mr [PERSON_1] his parcel is late');
    expect(mask('heb net dhr jansen gesproken', 'nl')).to.equal('heb net dhr [PERSON_1] gesproken');
    expect(mask('mevrouw de jong belde', 'nl')).to.equal('mevrouw [PERSON_1] belde');
    expect(mask('frau schneider hat angerufen', 'de')).to.equal('frau [PERSON_1] hat angerufen');
    expect(mask("j'ai appelé m. dupont", 'fr')).to.equal("j'ai appelé m. [PERSON_1]");
    expect(mask('mr and mrs smith', 'en')).to.equal('mr and mrs [PERSON_1]');
    expect(mask('De kast is 5 m. lang', 'nl')).to.equal('De kast is 5 m. lang');
  });

  it('outside chat-style text, takes no lower-case word after a title: a noun before a verb', () => {
    expect(mask('Meine Frau hat gestern angerufen', 'de')).to.equal('Meine Frau hat gestern angerufen');
    expect(mask('Der Herr hat Recht. Mevrouw heeft gebeld. Monsieur est parti.', 'nl')).to.equal(
      'Der Herr hat Recht. Mevrouw heeft gebeld. Monsieur est parti.',
    );
    // A long text: only the lines that start in lower case are read so.
    const long = `${'Der Bericht ist fertig. '.repeat(50)}\nMeine Frau hat gestern angerufen.\nnoch was: frau schneider hat angerufen`;
    expect(mask(long, 'de')).to.equal(long.replace('frau schneider', 'frau [PERSON_1]'));
  });
});

describe('casual formats (issue 23)', () => {
  const found = (text: string, language: 'nl' | 'en' | 'fr' | 'de') => detectEntities(text, language).map((d) => [d.type, d.text]);

  it('finds phones with dots, after a CSV comma, and IBANs and Steuer-IDs with separators anywhere', () => {
    expect(found('bel me op 06.12.34.56.78 aub', 'nl')).to.deep.include(['PHONE', '06.12.34.56.78']);
    expect(found('Anna,anna@example.com,07400 123456', 'en')).to.deep.include(['PHONE', '07400 123456']);
    expect(found('rekening NL 91 ABNA 0417 1643 00 graag', 'nl')).to.deep.include(['IBAN', 'NL 91 ABNA 0417 1643 00']);
    expect(found('Virement sur NL91.ABNA.0417.1643.00 svp', 'fr')).to.deep.include(['IBAN', 'NL91.ABNA.0417.1643.00']);
    expect(found('Meine Steuer-ID lautet 86.095.742.719.', 'de')).to.deep.include(['STEUER_ID', '86.095.742.719']);
    // A version number and an IP address stay what they are.
    expect(found('Version 12.34.56.78 fixed it', 'en')).to.deep.equal([]);
    expect(found('Der Angriff kam von der IP 62.157.140.133.', 'de')).to.deep.equal([['IP', '62.157.140.133']]);
  });

  it('finds streets without a postcode, glued and labelled postcodes, but not streets in passing', () => {
    expect(found('we wonen aan de Kastanjelaan 31 in Zeist', 'nl')).to.deep.include(['ADDRESS', 'Kastanjelaan 31 in Zeist']);
    expect(found("J'habite au 22 rue Victor Hugo depuis deux ans.", 'fr')).to.deep.equal([['ADDRESS', '22 rue Victor Hugo']]);
    expect(found('Lieferung an Schillerstraße 44, 10627Berlin bitte', 'de')).to.deep.include(['ADDRESS', 'Schillerstraße 44, 10627Berlin']);
    expect(found('postcode 3531 KG huisnummer 16', 'nl')).to.deep.include(['ADDRESS', '3531 KG huisnummer 16']);
    expect(found('Die Straße 5 Kilometer weiter ist gesperrt.', 'de')).to.deep.equal([]);
    expect(found('Die Postleitzahl 80331 gehört zu München.', 'de')).to.deep.equal([]);
  });

  it('finds e-mails written out with at and dot in four languages, only when they spell an address', () => {
    expect(found('mail naar m.jonker apenstaartje ziggo punt nl aub', 'nl')).to.deep.include(['EMAIL', 'm.jonker apenstaartje ziggo punt nl']);
    expect(found('E-Mail: tim.sauer(at)gmx(punkt)de', 'de')).to.deep.include(['EMAIL', 'tim.sauer(at)gmx(punkt)de']);
    expect(found('Look at the results dot plot before we meet at noon.', 'en')).to.deep.equal([]);
    // The spelled-out address shares the placeholder of the written one.
    const fw = createFirewall({ language: 'en' });
    const a = fw.mask('write to kieran.walsh at gmail dot com');
    const b = fw.mask('or kieran.walsh@gmail.com');
    expect(a.slice(a.indexOf('['))).to.equal(b.slice(b.indexOf('[')));
  });

  it('finds lower-case chat names and particle surnames, not brands or towns after a travel word', () => {
    expect(found('weet iemand of thijs visser vandaag op kantoor is?', 'nl')).to.deep.equal([['PERSON', 'thijs visser']]);
    expect(found('Von Berg schreibt, dass die Lieferung später kommt.', 'de')).to.deep.equal([['PERSON', 'Von Berg']]);
    expect(found("Picked up Ben & Jerry's and socks from Marks & Spencer.", 'en')).to.deep.equal([]);
    expect(found('We fly into Charlotte on Friday.', 'en')).to.deep.equal([]);
    expect(found('hey will you grace us with your presence', 'en')).to.deep.equal([]);
  });

  it('reads lower-case names on a lower-case line of a longer message, hyphenated first names too', () => {
    expect(found('hoi! weet iemand of kai-uwe schmidt er al is? ik wacht', 'nl')).to.deep.equal([['PERSON', 'kai-uwe schmidt']]);
    expect(found('morgen früh übernimmt die schicht von marie-luise', 'de')).to.deep.equal([['PERSON', 'marie-luise']]);
    expect(found('hab das wi-fi passwort vergessen', 'de')).to.deep.equal([]);
    // A lone first name where chat names a person: after a preposition, a relation, a greeting or a
    // conjunction, or before a verb of speech; not a first name that is a word ("jack up").
    expect(found('kun je een berichtje opstellen voor femke? namens daan en yusuf', 'nl')).to.deep.equal([
      ['PERSON', 'femke'],
      ['PERSON', 'daan'],
      ['PERSON', 'yusuf'],
    ]);
    expect(found('meine kollegin sabine hat morgen jubiläum. uwe meinte was lustiges', 'de')).to.deep.equal([
      ['PERSON', 'sabine'],
      ['PERSON', 'uwe'],
    ]);
    expect(found('mark the task as done and jack up the priority', 'en')).to.deep.equal([]);
    expect(found('on se voit en bas dans dix minutes', 'fr')).to.deep.equal([]);
    // A short message is read whole when one of its sentences starts in lower case; in a long
    // document only lines that start in lower case are.
    expect(found('Top! kan kai-uwe schmidt morgen de sleutels halen? Ik ben er niet.', 'nl')).to.deep.include(['PERSON', 'kai-uwe schmidt']);
    const prose = 'The board met on Tuesday. It discussed the budget at length. '.repeat(20);
    expect(found(`${prose}\nThe minutes say jan smith was there. Nobody objected.\n${prose}`, 'en')).to.not.deep.include(['PERSON', 'jan smith']);
    expect(found(`${prose}\nhey is jan smith er al? ik wacht\n${prose}`, 'nl')).to.deep.include(['PERSON', 'jan smith']);
  });

  it('keeps particle surnames whole, in any position', () => {
    expect(found('Liesbeth Van de Velde belde net over de offerte.', 'nl')).to.deep.equal([['PERSON', 'Liesbeth Van de Velde']]);
    expect(found('Bonjour, Jean-Baptiste de La Villemarqué a appelé.', 'fr')).to.deep.equal([['PERSON', 'Jean-Baptiste de La Villemarqué']]);
    expect(found("Annemarie van 't Hek komt morgen langs.", 'nl')).to.deep.equal([["PERSON", "Annemarie van 't Hek"]]);
    expect(found("Aanwezig: Marloes op den Akker en Gijs in 't Veld.", 'nl')).to.deep.equal([
      ['PERSON', 'Marloes op den Akker'],
      ['PERSON', "Gijs in 't Veld"],
    ]);
    expect(found('Volgens de Boer is het dak nog lek.', 'nl')).to.deep.equal([['PERSON', 'de Boer']]);
    expect(found('I spoke to van Dijk from procurement.', 'en')).to.deep.equal([['PERSON', 'van Dijk']]);
    expect(found("De offerte ligt bij van 't Velde sinds maandag.", 'nl')).to.deep.equal([['PERSON', "van 't Velde"]]);
    expect(found('De la Cruz is out until Monday.', 'en')).to.deep.equal([['PERSON', 'De la Cruz']]);
    expect(found('We rijden morgen naar den Haag.', 'nl')).to.deep.equal([]);
    expect(found('Il rentre de Paris ce soir.', 'fr')).to.deep.equal([]);
  });

  it('masks a particle surname after a first name the lists do not know, and the Afrikaans surnames alone (QA: "Du Plessis", "Le Roux" leaked)', () => {
    expect(found('I spoke to Francois Du Plessis yesterday.', 'en')).to.deep.equal([['PERSON', 'Francois Du Plessis']]);
    expect(found('Thanks to Charl Du Plessis and Rassie Le Roux.', 'en')).to.deep.equal([
      ['PERSON', 'Charl Du Plessis'],
      ['PERSON', 'Rassie Le Roux'],
    ]);
    expect(found('Faf du Plessis scored; Du Plessis said so.', 'en')).to.deep.equal([
      ['PERSON', 'Faf du Plessis'],
      ['PERSON', 'Du Plessis'],
    ]);
    expect(found('Hanneke van der Merwe belt morgen.', 'nl')).to.deep.equal([['PERSON', 'Hanneke van der Merwe']]);
    // Places led by a capitalised particle stay.
    expect(found('From Gare De Lyon we walked to Place De Gaulle and the Musée Du Louvre.', 'en')).to.deep.equal([]);
  });

  it('tells towns after travel words, makers, brands and code identifiers from people', () => {
    expect(found('We fly to Charlotte on Monday.', 'en')).to.deep.equal([]);
    expect(found('Please give the keys to Charlotte tomorrow.', 'en')).to.deep.equal([['PERSON', 'Charlotte']]);
    expect(found('Je vais à Nancy demain, train pour Nancy à 8h12.', 'fr')).to.deep.equal([]);
    expect(found('Je vais parler à Nancy.', 'fr')).to.deep.equal([['PERSON', 'Nancy']]);
    expect(found('Wir fahren morgen Richtung Marl.', 'de')).to.deep.equal([]);
    expect(found('La Renault Clio ou la Peugeot 208 ?', 'fr')).to.deep.equal([]);
    expect(found("Dr. Oetker Pizza und Jack Daniel's", 'de')).to.deep.equal([]);
    expect(found('rendez-vous chez Jean Louis David, puis Leroy Merlin', 'fr')).to.deep.equal([]);
    expect(found('class Victor extends Base {}\nconst x = <Pierre size="big" />;', 'en')).to.deep.equal([]);
    expect(found('Alice alice = new Alice(keyPair);\nBob bob = null;', 'en')).to.deep.equal([]);
    expect(found('Das Paket ist an Moritz von Hagen gegangen, nicht an uns.', 'de')).to.deep.equal([['PERSON', 'Moritz von Hagen']]);
  });

  it('tells organisations, restaurants, rooms, honours and brands named after people from people, by a word around them (QA)', () => {
    for (const [text, language] of [
      ['Naam: Stichting De Regenboog', 'nl'],
      ['naam;email\nStichting De Regenboog;\nVille de Lyon;', 'nl'],
      ['{"klant": "Jansen Installatietechniek B.V."}', 'nl'],
      ['We eten bij Chez Paul vanavond.', 'nl'],
      ['Ze draagt Max Mara en Paul Smith.', 'nl'],
      ['She won a Marie Curie fellowship and flew to Nelson Mandela Bay.', 'en'],
      ['Rendez-vous salle Victor Hugo, puis in room Darwin, daarna zaal Erasmus.', 'fr'],
      // Streets named after people, with no house number (they were masked: "near [PERSON_1] Street").
      ['We met near Lucas Street yesterday; the shop on Emma Road, Sophie Avenue and Lucas St. is closed.', 'en'],
      ['Wir treffen uns in der Anna Straße.', 'de'],
    ] as const) {
      expect(found(text, language), text).to.deep.equal([]);
    }
    // Without such a word, the person.
    expect(found('Naam: Ville Virtanen', 'nl')).to.deep.equal([['PERSON', 'Ville Virtanen']]);
    expect(found('Nous allons chez Paul demain.', 'fr')).to.deep.equal([['PERSON', 'Paul']]);
    expect(found('I met Marie Curie yesterday; Mr Paul Smith called.', 'en')).to.deep.equal([
      ['PERSON', 'Marie Curie'],
      ['PERSON', 'Paul Smith'],
    ]);
    expect(found('Vergadering in zaal Erasmus met Pieter Bakker.', 'nl')).to.deep.equal([['PERSON', 'Pieter Bakker']]);
    expect(found('Lucas Stone called from Baker Street.', 'en')).to.deep.equal([['PERSON', 'Lucas Stone']]);
  });

  it('reads the postcode and town after a street as the address, in lower case too, and a town without a postcode (decision 0021)', () => {
    expect(found('ich wohne in der hauptstraße 5, 10115 berlin', 'de')).to.deep.equal([['ADDRESS', 'hauptstraße 5, 10115 berlin']]);
    expect(found('wij wonen op de dorpsstraat 4, 1234 ab utrecht', 'nl')).to.deep.equal([['ADDRESS', 'dorpsstraat 4, 1234 ab utrecht']]);
    expect(found('ik woon op kerkstraat 12 1234AB den haag', 'nl')).to.deep.equal([['ADDRESS', 'kerkstraat 12 1234AB den haag']]);
    expect(found('ik woon op kerkstraat 12 in utrecht', 'nl')).to.deep.equal([['ADDRESS', 'kerkstraat 12 in utrecht']]);
    expect(found('Kerkstraat 12, 2024 was een goed jaar', 'nl')).to.deep.equal([['ADDRESS', 'Kerkstraat 12']]);
  });

  it('reads streets without a street word, in lower case, with bis/ter/quater, and a postcode with its house number', () => {
    expect(found('ik woon op de kastanjelaan 7 in zwolle', 'nl')).to.deep.include(['ADDRESS', 'kastanjelaan 7 in zwolle']);
    expect(found('Adresse ist Am Rosenhang 4a in Bielefeld', 'de')).to.deep.include(['ADDRESS', 'Am Rosenhang 4a in Bielefeld']);
    expect(found('Wir wohnen Berliner Allee 12 seit Mai.', 'de')).to.deep.include(['ADDRESS', 'Berliner Allee 12']);
    expect(found('livraison au 19 quater rue Pasteur', 'fr')).to.deep.include(['ADDRESS', '19 quater rue Pasteur']);
    expect(found('Im Jahr 2020 war alles anders, am Montag 5 Leute.', 'de')).to.deep.equal([]);
  });

  it('reads e-mails with a spelled-out local part, Steuer-IDs with slashes, and leaves loopback addresses', () => {
    expect(found('mail priya dot raghunathan at gmail dot com pls', 'en')).to.deep.equal([['EMAIL', 'priya dot raghunathan at gmail dot com']]);
    // A surname's particle said as a word of its own (the address was read from "vries": "jan dot de" was sent).
    expect(found('my email is jan dot de vries at gmail dot com', 'en')).to.deep.equal([['EMAIL', 'jan dot de vries at gmail dot com']]);
    expect(found('mail pieter punt van der berg apenstaartje ziggo punt nl', 'nl')).to.deep.equal([['EMAIL', 'pieter punt van der berg apenstaartje ziggo punt nl']]);
    expect(found('Meine Steuer-ID ist 654/7092/8410.', 'de')).to.deep.equal([['STEUER_ID', '654/7092/8410']]);
    expect(found('server:\n  host: 127.0.0.1\n  mask: 255.255.255.0\n  bind: 0.0.0.0', 'en')).to.deep.equal([]);
  });

  it('reads a first name and a surname in the cells of an SQL insert without a column list, or under columns it does not know, not in a table of things', () => {
    expect(mask("INSERT INTO users VALUES (1, 'Henk', 'Bakker', '06-12345678');", 'nl')).to.equal("INSERT INTO users VALUES (1, '[PERSON_1]', '[PERSON_2]', '[PHONE_1]');");
    expect(mask("insert into employees values (17, 'Greta', 'Lindqvist', 'greta.lindqvist@acme.se');", 'en')).to.equal(
      "insert into employees values (17, '[PERSON_1]', '[PERSON_2]', '[EMAIL_1]');",
    );
    expect(mask("INSERT INTO t (a, b) VALUES ('Jan', 'de Vries');", 'nl')).to.equal("INSERT INTO t (a, b) VALUES ('[PERSON_1]', '[PERSON_2]');");
    // Every row (QA: only the first was read), and names in lower case when the lists know both.
    expect(mask("INSERT INTO klanten VALUES (1, 'Henk', 'Bakker'),\n(2, 'Sanne', 'Visser');", 'nl')).to.equal(
      "INSERT INTO klanten VALUES (1, '[PERSON_1]', '[PERSON_2]'),\n(2, '[PERSON_3]', '[PERSON_4]');",
    );
    expect(mask("insert into t values ('henk','bakker');", 'nl')).to.equal("insert into t values ('[PERSON_1]','[PERSON_2]');");
    for (const text of [
      "INSERT INTO products VALUES (1, 'Emma', 'Mattress', 499);",
      "INSERT INTO items (id, label, kind) VALUES (1, 'Emma', 'Mattress');",
      "INSERT INTO product_catalog VALUES (1, 'Luna', 'Pillow');",
    ]) {
      expect(mask(text, 'en'), text).to.equal(text);
    }
  });

  it('reads every tuple of an SQL insert, JSON inside a quoted shell argument, and person keys among config keys', () => {
    const sql = "INSERT INTO kunden (vorname, nachname) VALUES\n('Ute', 'Kessler'),\n('Malte', 'Grünewald');";
    expect(found(sql, 'de')).to.deep.equal([['PERSON', 'Ute'], ['PERSON', 'Kessler'], ['PERSON', 'Malte'], ['PERSON', 'Grünewald']]);
    const curl = `curl -X POST https://api.example.com/customers -d '{"name":"Volker Brandl","plan":"pro"}'`;
    expect(found(curl, 'de')).to.deep.equal([['PERSON', 'Volker Brandl']]);
    expect(found('TEST_USER_NAME="Kieran Walsh"\nPORT=8080', 'en')).to.deep.equal([['PERSON', 'Kieran Walsh']]);
    const table = '| # | Attendee | Dietary |\n|---|---|---|\n| 1 | Kwame Asante | halal |';
    expect(found(table, 'en')).to.deep.equal([['PERSON', 'Kwame Asante']]);
  });
});
