import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA 2026-11-27 (third round): addresses, phone numbers and id documents, the inputs as QA sent them.

describe('QA 2026-11-27c: a date followed by a time is no phone number', () => {
  it('leaves the timestamps of a chat log or export alone, over any number of lines', () => {
    expectUnchanged([
      '[26-11-24 09:14:22] a\n[26-11-24 09:15:03] b\n[26-11-24 09:15:40] c',
      '26-11-24 09:14 a\n26-11-24 09:15 b\n26-11-24 09:16 c',
      '26.11.24 09:14 ok\n27.11.24 10:15 ok\n28.11.24 11:16 ok',
      '11/26/24 09:14 a\n11/26/24 09:15 b\n11/26/24 09:16 c',
    ]);
  });

  it('still masks a phone number on such a line, and one written with a time beside it', () => {
    expectMasksAndRestores('[26-11-24 09:14:22] bel me op 06-12345678\n[26-11-24 09:15:03] ok\n[26-11-24 09:15:40] ok', '[26-11-24 09:14:22] bel me op [PHONE_1]\n[26-11-24 09:15:03] ok\n[26-11-24 09:15:40] ok');
    expectMasksAndRestores('call 020 123 4567 at 09:30', 'call [PHONE_1] at 09:30');
  });
});

describe('QA 2026-11-27c: Portuguese and Brazilian phone numbers', () => {
  it('reads them after a Portuguese phone word', () => {
    expectMasksAndRestores('meu número é 912 345 678', 'meu número é [PHONE_1]');
    expectMasksAndRestores('Tlm: 912 345 678', 'Tlm: [PHONE_1]');
    expectMasksAndRestores('meu zap é (11) 91234-5678', 'meu zap é [PHONE_1]');
    expectMasksAndRestores('o meu telefone é 213 456 789', 'o meu telefone é [PHONE_1]');
    expectMasksAndRestores('liga-me para o 936 123 456', 'liga-me para o [PHONE_1]');
  });

  it('leaves nine digits alone after an order, invoice or amount word, or without a phone word', () => {
    expectUnchanged([
      'a encomenda 912 345 678 chegou',
      'o valor é 912 345 678',
      'fatura 912345678',
      'meu número de cliente é 912 345 678',
      '(11) 91234-5678',
      'versão 912.345.678',
    ]);
  });
});

describe('QA 2026-11-27c: Portuguese NIF and Cartão de Cidadão', () => {
  it('masks a NIF that passes its check digit after its label', () => {
    expectMasksAndRestores('o meu NIF é 232013969', 'o meu NIF é [ID_NUMBER_1]');
    expectMasksAndRestores('NIF: 232 013 969', 'NIF: [ID_NUMBER_1]');
    expectMasksAndRestores('número de contribuinte 232013969', 'número de contribuinte [ID_NUMBER_1]');
  });

  it("leaves a failing check digit, a company's NIF and a number an invoice word is nearer to", () => {
    expectUnchanged([
      'o meu NIF é 232013968',
      'fatura 232013969',
      'encomenda n.º 232013969',
      'NIF da empresa 501234567 fatura n.º 232013969',
      'invoice 232013969',
    ]);
  });

  it('masks the Cartão de Cidadão number after its name', () => {
    expectMasksAndRestores('Cartão de Cidadão 12345678 9 ZZ1', 'Cartão de Cidadão [ID_NUMBER_1]');
    expectMasksAndRestores('Cartão de Cidadão n.º 12345678 9 ZZ1', 'Cartão de Cidadão n.º [ID_NUMBER_1]');
  });
});

describe('QA 2026-11-27c: identity documents after their name', () => {
  it('masks the number after a Polish, Italian, Dutch or German label', () => {
    expectMasksAndRestores('dowód osobisty ABA300000', 'dowód osobisty [ID_NUMBER_1]');
    expectMasksAndRestores("carta d'identità CA00000AA", "carta d'identità [ID_NUMBER_1]");
    expectMasksAndRestores('ID-kaart nummer SPECI2014', 'ID-kaart nummer [ID_NUMBER_1]');
    expectMasksAndRestores('Führerschein B072RRE2I55', 'Führerschein [ID_NUMBER_1]');
    expectMasksAndRestores('Führerschein-Nr. B072RRE2I55', 'Führerschein-Nr. [ID_NUMBER_1]');
    expectMasksAndRestores('numer dowodu osobistego ABA300000', 'numer dowodu osobistego [ID_NUMBER_1]');
    expectMasksAndRestores('Rijbewijs nummer 5123456789', 'Rijbewijs nummer [ID_NUMBER_1]');
  });

  it('leaves a word, a year or a count after the label', () => {
    expectUnchanged([
      'Führerschein Klasse B seit 2019',
      'dowód osobisty 2020',
      "carta d'identità scaduta nel 2021",
      'Führerschein 2019 gemacht',
      'Ausweis ist abgelaufen',
      'ID-kaart nummer kwijt',
      'Ausweis 123456',
    ]);
  });
});

describe('QA 2026-11-27c: Portuguese dates of birth', () => {
  it('masks a date after a Portuguese birth cue, with a Portuguese month', () => {
    expectMasksAndRestores('data de nascimento: 12/03/1985', 'data de nascimento: [DATE_OF_BIRTH_1]');
    expectMasksAndRestores('nascido em 12 de março de 1985', 'nascido em [DATE_OF_BIRTH_1]');
    expectMasksAndRestores('data de nascimento: 12-fev-1985', 'data de nascimento: [DATE_OF_BIRTH_1]');
  });

  it('leaves other dates', () => {
    expectUnchanged(['data da fatura: 12/03/1985', 'reunião em 12 de março de 2024', 'a empresa nasceu em 1985', 'marco 12 1985']);
  });
});

describe('QA 2026-11-27c: Portuguese addresses and lower-case Spanish, Italian and Polish ones', () => {
  it('masks a Portuguese street with its postcode and town, in any case', () => {
    expectMasksAndRestores('moro na Rua Augusta 100, 1100-053 Lisboa', 'moro na [ADDRESS_1]');
    expectMasksAndRestores('Moro na Rua Augusta 100, 1100-053 Lisboa', 'Moro na [ADDRESS_1]');
    expectMasksAndRestores('moro na rua augusta 100, 1100-053 lisboa', 'moro na [ADDRESS_1]');
    expectMasksAndRestores('Travessa do Carmo 12, 1200-095 Lisboa', '[ADDRESS_1]');
    expectMasksAndRestores('Praça do Comércio 5 em Lisboa', '[ADDRESS_1]');
  });

  it('masks a lower-case street with its postcode and town', () => {
    expectMasksAndRestores('vivo en calle mayor 5, 28013 madrid', 'vivo en [ADDRESS_1]');
    expectMasksAndRestores('abito in via roma 12, 00184 roma', 'abito in [ADDRESS_1]');
    expectMasksAndRestores('mieszkam na ul. długa 5 m. 3, 00-238 warszawa', 'mieszkam na [ADDRESS_1]');
  });

  it('leaves "rua" and "via" as words, and lower-case streets without a postcode', () => {
    expectUnchanged(['a rua tem 3 casas', 'sent via email 2 times', 'il corso python 3', 'the rua 5 of them', 'vivo en calle mayor 5', 'via email 2, 3 times']);
  });
});

describe('QA 2026-11-27c: streets without a postcode as chat writes them', () => {
  it('masks a lower-case English street after a word of dwelling or a flat, with its town', () => {
    expectMasksAndRestores('she lives at 22 baker street', 'she lives at [ADDRESS_1]');
    expectMasksAndRestores('I live at 14 elm grove road, bristol', 'I live at [ADDRESS_1]');
    expectMasksAndRestores('flat 3, 14 elm grove road, bristol', '[ADDRESS_1]');
    expectMasksAndRestores('Apt 4B, 221 West 57th Street, New York, NY 10019', '[ADDRESS_1]');
  });

  it('masks a Dutch street with the number word between street and number', () => {
    expectMasksAndRestores('ik woon in de Kerkstraat, nummer 12', 'ik woon in de [ADDRESS_1]');
    expectMasksAndRestores('Ik woon in de Kerkstraat op nummer 12 in Utrecht', 'Ik woon in de [ADDRESS_1]');
  });

  it('leaves lower-case streets without a word of dwelling, and numbers that are no house', () => {
    expectUnchanged(['we went to 22 baker street', 'order 22 baker street', 'the 2 way street', 'she lives at 22 and works at 3 main street', 'version 22 main street build']);
  });
});

describe('QA 2026-11-27c: a phone number written with an en dash', () => {
  it('masks it whole', () => {
    expectMasksAndRestores('tel 06–12345678', 'tel [PHONE_1]');
  });

  it('leaves ranges of years and pages', () => {
    expectUnchanged(['2019–2024', 'pages 120–130 and 140–150', 'van 1998–2004 in Utrecht']);
  });
});
