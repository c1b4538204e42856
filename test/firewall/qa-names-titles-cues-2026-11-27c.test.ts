import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA round 2026-11-27c: names after cues, titles and prepositions, in the case they were written.

describe('firewall QA 2026-11-27c: names after cues, titles and prepositions', () => {
  it('reads a lower-case name after any possessive "name is" in capitalised text', () => {
    expectMasksAndRestores("The customer's name is jessica thompson.", "The customer's name is [PERSON_1].");
    expectMasksAndRestores('Your name is sarah, right?', 'Your name is [PERSON_1], right?');
    expectUnchanged(['The file name is config.', 'Your name is not important.', "The project's name is phoenix rising."]);
  });

  it('reads a lower-case surname the lists know after a title in capitalised text', () => {
    expectMasksAndRestores('Herr mueller hat angerufen', 'Herr [PERSON_1] hat angerufen');
    expectMasksAndRestores('Frau schmidt hat angerufen', 'Frau [PERSON_1] hat angerufen');
    expectMasksAndRestores('Mevrouw de vries belde', 'Mevrouw [PERSON_1] belde');
    expectMasksAndRestores('Mme lefebvre a appelé', 'Mme [PERSON_1] a appelé');
    expectUnchanged([
      'Meine Frau hat gestern angerufen',
      'Meine Frau weiss es.',
      'Der Herr hat Recht.',
      'Mevrouw heeft gebeld.',
      'Monsieur le maire a dit non.',
      'Madame est servie.',
    ]);
  });

  it('reads Spanish and Portuguese titles: Sr., Sra., Dra., Dr.ª, doña, don', () => {
    expectMasksAndRestores('El Sr. Martínez llamó ayer.', 'El Sr. [PERSON_1] llamó ayer.');
    expectMasksAndRestores('La Sra. Gutiérrez pidió el reembolso.', 'La Sra. [PERSON_1] pidió el reembolso.');
    expectMasksAndRestores('Estimado Sr. Domínguez:', 'Estimado Sr. [PERSON_1]:');
    expectMasksAndRestores('Estimada Sra. Ibarrondo:', 'Estimada Sra. [PERSON_1]:');
    expectMasksAndRestores('Sr. garcía llamó', 'Sr. [PERSON_1] llamó');
    expectMasksAndRestores('O Sr. Almeida ligou ontem.', 'O Sr. [PERSON_1] ligou ontem.');
    expectMasksAndRestores('Prezado Sr. Almeida,', 'Prezado Sr. [PERSON_1],');
    expectMasksAndRestores('Don Ramírez y doña Pilar vinieron.', '[PERSON_1] y doña [PERSON_2] vinieron.');
    expectMasksAndRestores('Habló con don Ramírez.', 'Habló con don [PERSON_1].');
    expectUnchanged([
      "Don't go.",
      'They don Kevlar vests.',
      'We hired a Sr. Engineer and a Sr. Software Engineer.',
      'Position: Sr. Data Scientist',
    ]);
    expectMasksAndRestores('John Smith Sr. called.', '[PERSON_1] Sr. called.');
  });

  it('reads a first name after Dutch "naar", German "an", Spanish and Italian "a"', () => {
    expectMasksAndRestores('Stuur het door naar Femke.', 'Stuur het door naar [PERSON_1].');
    expectMasksAndRestores('De klant vraagt naar Hanneke.', 'De klant vraagt naar [PERSON_1].');
    expectMasksAndRestores('Schick es an Sabine.', 'Schick es an [PERSON_1].');
    expectMasksAndRestores('Mándaselo a Lucía.', 'Mándaselo a [PERSON_1].');
    expectMasksAndRestores('Mandalo a Giulia.', 'Mandalo a [PERSON_1].');
    expectUnchanged(['ik ging naar Utrecht', 'Ik ga naar Florence.', 'Schick es an Amazon.', 'Vamos a Madrid.', 'It runs a Claude session.']);
  });

  it('reads name cues in chat case and in Spanish, Polish and Portuguese introductions', () => {
    expectMasksAndRestores('se llama lucía martín', 'se llama [PERSON_1]');
    expectMasksAndRestores('hola soy maría garcía lópez de barcelona', 'hola soy [PERSON_1] de barcelona');
    expectMasksAndRestores('ma na imię katarzyna', 'ma na imię [PERSON_1]');
    expectMasksAndRestores('Hej, tu Kasia z księgowości.', 'Hej, tu [PERSON_1] z księgowości.');
    expectMasksAndRestores('Kasia is ziek vandaag.', '[PERSON_1] is ziek vandaag.');
    expectMasksAndRestores('Oi, aqui é a Inês do RH.', 'Oi, aqui é a [PERSON_1] do RH.');
    expectMasksAndRestores('Hola, soy Alba de contabilidad.', 'Hola, soy [PERSON_1] de contabilidad.');
    expectMasksAndRestores("I'm Grace from accounting.", "I'm [PERSON_1] from accounting.");
    expectUnchanged(["I'm Fine at home.", 'Sono Felice di conoscerti.', 'se llama como el río', 'ma na imię po babci']);
  });

  it('leaves a team or department signing under a closing, and reads a first name under "Gr,"', () => {
    expectUnchanged([
      'Saludos,\nEquipo de soporte',
      'Cordiali saluti,\nUfficio Acquisti',
      'Pozdrawiam,\nDział Obsługi Klienta',
      'Best,\nEngineering',
      'Mehl 500 gr,\nZucker 200 gr',
    ]);
    expectMasksAndRestores('Saludos,\nLucía', 'Saludos,\n[PERSON_1]');
    expectMasksAndRestores('Gr,\nHans', 'Gr,\n[PERSON_1]');
    expectMasksAndRestores(
      'Hi, ich bin der Tobias vom Vertrieb, kannst du mir helfen?',
      'Hi, ich bin der [PERSON_1] vom Vertrieb, kannst du mir helfen?',
    );
  });

  it('leaves developer tools, brands, places and ideas named like people', () => {
    expectUnchanged([
      'Hugo for the static site',
      'Setup: Kafka, Cassandra, Hadoop',
      'Use Jackson for JSON and Lombok',
      'Hudson is deprecated. Also Travis CI.',
      "Dr. Martens boots, Levi's jeans",
      'La tienda de Zara y Mango',
      'the Monroe Doctrine',
      "Newton's third law",
      'the Marie Kondo method',
      'Check out the Mona Lisa',
      'Lake Louise',
      'Zwarte Piet',
      'Rob the bank scenario in our game design doc',
      'Die Lilie ist weiß',
      'I bought a mango and a banana.',
    ]);
    expectMasksAndRestores('Hugo called about the invoice.', '[PERSON_1] called about the invoice.');
    expectMasksAndRestores('Travis has two jobs and runs tests.', '[PERSON_1] has two jobs and runs tests.');
    expectMasksAndRestores('Zara is ill today.', '[PERSON_1] is ill today.');
    expectMasksAndRestores('Rob called the bank.', '[PERSON_1] called the bank.');
    expectMasksAndRestores('Louise lives by the lake.', '[PERSON_1] lives by the lake.');
    expectMasksAndRestores('Marie Kondo visited us.', '[PERSON_1] visited us.');
  });

  it('reads a first name before a bracketed note, a count of days, or first in a list of first names', () => {
    expectMasksAndRestores('Jennifer (flu) and Michael (back pain) are off today.', '[PERSON_1] (flu) and [PERSON_2] (back pain) are off today.');
    expectMasksAndRestores(
      'Sick: Jennifer (flu), Michael (back pain), Stephanie (burnout)',
      'Sick: [PERSON_1] (flu), [PERSON_2] (back pain), [PERSON_3] (burnout)',
    );
    expectMasksAndRestores(
      'Sick leave overview: Daan 3 days, Noor 5 days, Sem 1 day, Lotte 2 days, Finn 4 days',
      'Sick leave overview: [PERSON_1] 3 days, [PERSON_2] 5 days, [PERSON_3] 1 day, [PERSON_4] 2 days, [PERSON_5] 4 days',
    );
    expectMasksAndRestores('Sick: Jennifer, Michael, Stephanie', 'Sick: [PERSON_1], [PERSON_2], [PERSON_3]');
    expectMasksAndRestores('Daan, Noor en Sem zijn ziek', '[PERSON_1], [PERSON_2] en [PERSON_3] zijn ziek');
    expectUnchanged(['Max 5 items', 'Paris, London and Berlin', 'Florence, Italy', 'Hugo (static site generator)', 'See Victoria (Australia).']);
  });
});
