import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings: several dates of birth after one cue, first names under thanks, a title and a
// street after a surname, titles under a key, HTML form fields; the samples as QA sent them.
describe('firewall QA: listed birth dates, thanks closings, titles and HTML forms', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  it('masks every date of a list after a birth cue', () => {
    expect(mask('My kids were born on 3 May 2012 and 17 Sept 2015')).to.equal('My kids were born on [DATE_OF_BIRTH_1] and [DATE_OF_BIRTH_2]');
    expect(mask('De kinderen zijn geboren op 3 mei 2012 en 17 september 2015.')).to.equal(
      'De kinderen zijn geboren op [DATE_OF_BIRTH_1] en [DATE_OF_BIRTH_2].',
    );
    expect(mask('Geburtsdaten: 03.05.2012 und 17.09.2015')).to.equal('Geburtsdaten: [DATE_OF_BIRTH_1] und [DATE_OF_BIRTH_2]');
    expect(mask('Dates of birth: 03/05/2012, 17/09/2015')).to.equal('Dates of birth: [DATE_OF_BIRTH_1], [DATE_OF_BIRTH_2]');
    expect(mask('My kids were born on 3 May 2012, 17 Sept 2015 and 1 Jan 2018.')).to.equal(
      'My kids were born on [DATE_OF_BIRTH_1], [DATE_OF_BIRTH_2] and [DATE_OF_BIRTH_3].',
    );
  });

  it('leaves dates that are no list of the birth cue', () => {
    expect(mask('Born on 3 May 2012. Meetings on 4 June 2024 and 5 June 2024.')).to.equal('Born on [DATE_OF_BIRTH_1]. Meetings on 4 June 2024 and 5 June 2024.');
    expect(mask('Geburtsdatum 12.03.1980, Eintrittsdatum 01.09.2015')).to.equal('Geburtsdatum [DATE_OF_BIRTH_1], Eintrittsdatum 01.09.2015');
    for (const text of ['Invoices dated 03/05/2012 and 17/09/2015 are overdue.', 'Releases: 03.05.2012 und 17.09.2015']) expect(mask(text), text).to.equal(text);
  });

  it('masks a first name signed under a thanks', () => {
    expect(mask('Thanks in advance,\nOliver')).to.equal('Thanks in advance,\n[PERSON_1]');
    expect(mask('Dank je wel,\nSanne')).to.equal('Dank je wel,\n[PERSON_1]');
    expect(mask('Vielen Dank!\nJonas')).to.equal('Vielen Dank!\n[PERSON_1]');
    expect(mask("Merci d'avance,\nÉlodie")).to.equal("Merci d'avance,\n[PERSON_1]");
    expect(mask('Merci !\nÉlodie')).to.equal('Merci !\n[PERSON_1]');
    expect(mask('Vielen Dank!\nViele Grüße\nJonas')).to.equal('Vielen Dank!\nViele Grüße\n[PERSON_1]');
  });

  it('leaves the prose or closing that follows a thanks', () => {
    for (const text of ['Merci !\nBonne journée', 'Dank je wel,\nDe planning volgt morgen.', 'Thanks!\nThe report is attached.', 'Vielen Dank!\nDas Angebot folgt morgen.']) {
      expect(mask(text), text).to.equal(text);
    }
  });

  it('keeps a title and surname apart from the street after them', () => {
    expect(mask('Ophalen bij mevrouw Hendriks op de Dorpsstraat 12 in Hoogeveen.')).to.equal('Ophalen bij mevrouw [PERSON_1] op de [ADDRESS_1].');
  });

  it('keeps a title under a key outside the placeholder', () => {
    expect(mask('Julien Lefèvre a appelé.\nSalarié : M. Julien Lefèvre')).to.equal('[PERSON_1] a appelé.\nSalarié : M. [PERSON_1]');
    expect(mask('Ansprechpartner: Herr Jonas Becker')).to.equal('Ansprechpartner: Herr [PERSON_1]');
    expect(mask('Contact: Mr John Carter')).to.equal('Contact: Mr [PERSON_1]');
    expect(mask('{"contact":"Mevr. Anna de Vries"}')).to.equal('{"contact":"Mevr. [PERSON_1]"}');
  });

  it('types an HTML form field’s value by its name, in either order', () => {
    expect(
      mask('<form><input name="last_name" value="Pearce"><input name="nom" value="Lambert"><input type="text" name="email" value="jan@example.com"><input name="phone" value="+31612345678"></form>'),
    ).to.equal(
      '<form><input name="last_name" value="[PERSON_1]"><input name="nom" value="[PERSON_2]"><input type="text" name="email" value="[EMAIL_1]"><input name="phone" value="[PHONE_1]"></form>',
    );
    expect(mask('<input value="Okafor" type="text" name="surname" />')).to.equal('<input value="[PERSON_1]" type="text" name="surname" />');
    expect(mask('<meta name="author" content="Jan Jansen">')).to.equal('<meta name="author" content="[PERSON_1]">');
  });

  it('leaves form fields that name no personal data', () => {
    for (const text of [
      '<input name="q" value="Paris"><input type="submit" value="Search">',
      '<input name="product" value="Emma Mattress"><input name="qty" value="2">',
      '<form name="signup" method="post"><select name="country"><option value="NL">NL</option></select></form>',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
  });
});
