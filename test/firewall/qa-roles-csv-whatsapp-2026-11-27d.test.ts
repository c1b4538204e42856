import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA 2026-11-27 (fourth round): lower-case names after a role word or a verb of contact, surnames in
// headerless CSV rows, a one-line WhatsApp export, identifiers after their label without a colon,
// a plate after whose car it is. The inputs as QA sent them.

describe('QA 2026-11-27d: a lower-case name after a role word or a verb of contact', () => {
  it('masks a first name and a surname after a role word, in any text', () => {
    expectMasksAndRestores('employee tom baker was late 3 times this month', 'employee [PERSON_1] was late 3 times this month');
    expectMasksAndRestores('Mitarbeiter lukas hoffmann krankgemeldet', 'Mitarbeiter [PERSON_1] krankgemeldet');
    expectMasksAndRestores('Medewerker kees van dijk is vandaag ziek.', 'Medewerker [PERSON_1] is vandaag ziek.');
    expectMasksAndRestores('Kollegin anna schmidt ist im Urlaub.', 'Kollegin [PERSON_1] ist im Urlaub.');
    expectMasksAndRestores("Le client julien moreau a rappelé.", 'Le client [PERSON_1] a rappelé.');
    // As before, in chat-style text.
    expectMasksAndRestores('medewerker kees van dijk', 'medewerker [PERSON_1]');
    expectMasksAndRestores("l'employé julien moreau", "l'employé [PERSON_1]");
  });

  it('masks a first name and a surname after a verb of contact, a first name that is a word before a known or particle-led surname', () => {
    expectMasksAndRestores('Hi team, please add sarah connor to the Slack channel.', 'Hi team, please add [PERSON_1] to the Slack channel.');
    expectMasksAndRestores('hey can u call mark de jong back? his nr is 06 12345678', 'hey can u call [PERSON_1] back? his nr is [PHONE_1]');
    expectMasksAndRestores('Could you email emma visser the minutes?', 'Could you email [PERSON_1] the minutes?');
    expectMasksAndRestores('Ruf bitte lukas hoffmann an.', 'Ruf bitte [PERSON_1] an.');
    expectMasksAndRestores('Bel even kees van dijk, hij wacht.', 'Bel even [PERSON_1], hij wacht.');
    expectMasksAndRestores('Ruf lukas hoffmann an.', 'Ruf [PERSON_1] an.');
    expectMasksAndRestores('Please call customer tom baker today.', 'Please call customer [PERSON_1] today.');
  });

  it('leaves ordinary words after these cues alone', () => {
    expectUnchanged([
      'Please call mark as done.',
      'call mark as done',
      'Add will power to the list.',
      'add will power',
      'Please add sugar.',
      'please add sugar',
      'Employee of the month is here.',
      'employee of the month',
      'Ask tom about it.',
      'ask tom about it',
      'Call back later.',
      'call back later',
      'Bel kees de volgende keer.',
      'The customer will call back tomorrow.',
      'Add rose petals to the cake.',
      'The patient was seen today.',
      'Text mark down in the doc.',
    ]);
  });
});

describe('QA 2026-11-27d: a surname in a CSV row without a header', () => {
  it('masks a known surname cell beside a first-name cell, either order, one row or several', () => {
    expectMasksAndRestores('Jansen,Pieter,06-11223344,p.jansen@gmail.com', '[PERSON_1],[PERSON_2],[PHONE_1],[EMAIL_1]');
    expectMasksAndRestores('Pieter,Jansen,06-11223344,p.jansen@gmail.com', '[PERSON_1],[PERSON_2],[PHONE_1],[EMAIL_1]');
    expectMasksAndRestores(
      'Jansen,Pieter,06-11223344,p.jansen@gmail.com\nde Vries,Anna,06-22334455,anna@example.nl\nBakker,Sanne,06-33445566,s.bakker@example.nl',
      '[PERSON_1],[PERSON_2],[PHONE_1],[EMAIL_1]\n[PERSON_3],[PERSON_4],[PHONE_2],[EMAIL_2]\n[PERSON_5],[PERSON_6],[PHONE_3],[EMAIL_3]',
    );
    expectMasksAndRestores('Jansen;Pieter;06-11223344', '[PERSON_1];[PERSON_2];[PHONE_1]');
    expectMasksAndRestores('Jansen\tPieter\t06-11223344', '[PERSON_1]\t[PERSON_2]\t[PHONE_1]');
  });

  it('leaves rows of towns, things and words alone', () => {
    expectUnchanged([
      'Paris,Lyon,Nice',
      'Amsterdam,Rotterdam,Utrecht,Den Haag',
      'Mark,Will,Grace',
      'apples,pears,plums',
      'Red,Green,Blue,Black',
      'id,name,price\n1,Lamp,20',
    ]);
  });
});

describe('QA 2026-11-27d: the contact of a WhatsApp export line', () => {
  it('masks the name on one line of the export, and on many', () => {
    expectMasksAndRestores('26/11/2024, 21:04 - Sophie: ja net', '26/11/2024, 21:04 - [PERSON_1]: ja net');
    expectMasksAndRestores(
      '26/11/2024, 21:04 - Sophie: ja net\n26/11/2024, 21:05 - Bram: oke\n26/11/2024, 21:06 - Sophie: top',
      '26/11/2024, 21:04 - [PERSON_1]: ja net\n26/11/2024, 21:05 - [PERSON_2]: oke\n26/11/2024, 21:06 - [PERSON_1]: top',
    );
    expectMasksAndRestores('11/26/24, 9:04 PM - Mark de Vries: ok', '11/26/24, 9:04 PM - [PERSON_1]: ok');
    expectMasksAndRestores('26.11.24, 21:04 - Lena: bis gleich', '26.11.24, 21:04 - [PERSON_1]: bis gleich');
  });

  it('leaves lines of other shapes alone: logs, agendas, the export’s own notices', () => {
    expectUnchanged([
      '2024-11-26 10:00 - Deploy: ok',
      '2024-11-26, 10:00 - INFO: started',
      'Sprint 12, 10:00 - Agenda: review',
      '26/11/2024, 21:04 - Messages and calls are end-to-end encrypted.',
      '10:00 - Agenda: review',
    ]);
  });
});

describe('QA 2026-11-27d: identifiers right after their label, a plate after whose car it is', () => {
  it('masks a Steuer-ID or a NIR right after its label without a colon, as with one, a mistyped one too', () => {
    expectMasksAndRestores('Steuer-ID 12 345 678 903', 'Steuer-ID [STEUER_ID_1]');
    expectMasksAndRestores('meine IdNr lautet 12 345 678 903', 'meine IdNr lautet [STEUER_ID_1]');
    expectMasksAndRestores('NIR 1 85 05 78 006 084 36', 'NIR [NIR_1]');
    expectMasksAndRestores('mon n° de sécu est 1 85 05 78 006 084 36', 'mon n° de sécu est [NIR_1]');
    expectMasksAndRestores('NIR : 1 85 05 78 006 084 36', 'NIR : [NIR_1]');
  });

  it('leaves a mistyped number alone without its label right before it', () => {
    expectUnchanged([
      'Rechnung 12 345 678 903',
      'Steuer-ID folgt, Auftrag 12 345 678 903',
      'commande 1 85 05 78 006 084 36',
      'NIR demandé pour le dossier, référence 1 85 05 78 006 084 36',
    ]);
  });

  it('masks a Dutch plate after "kenteken van … van … is"', () => {
    expectMasksAndRestores('kenteken van de auto van mijn vrouw is 12-ABC-3', 'kenteken van de auto van mijn vrouw is [LICENCE_PLATE_1]');
    expectMasksAndRestores('Kennzeichen des Autos von meiner Frau ist M-AB 1234', 'Kennzeichen des Autos von meiner Frau ist [LICENCE_PLATE_1]');
  });

  it('leaves what is no plate after such words alone', () => {
    expectUnchanged(['het kenteken van de auto van mijn vrouw is onbekend', 'kenteken van de auto van mijn vrouw is 2024 gekocht']);
  });
});
