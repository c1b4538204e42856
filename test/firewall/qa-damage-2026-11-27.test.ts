import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27, second round: what the Spanish, Italian and Polish round broke or missed. False
// positives that change what a prompt says (a company, a button, a carrier, a lease's end masked as
// a person, an address or a date of birth) and values still sent in clear; the samples as QA sent
// them, with the hard negatives beside them.
describe('firewall QA: damage and leaks of the southern round', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);
  const unchanged = (texts: string[]) => {
    for (const text of texts) expect(mask(text), text).to.equal(text);
  };

  describe('a "<thing>_name" key names that thing', () => {
    it('leaves the names of companies, products, banks, files, teams, events and services', () => {
      unchanged([
        '{"company_name": "Acme Holdings", "product_name": "Wireless Mouse", "bank_name": "Deutsche Bank"}',
        '{"file_name": "Report Final.docx", "team_name": "Core Platform", "event_name": "Summer Party", "service_name": "Billing API"}',
        '<input name="company_name" value="Acme Holdings">',
        '<input name="product_name" value="Grace Hopper Edition">',
        '{"venue_name": "Grand Hotel Central", "bedrijfsnaam": "Bakkerij Centraal"}',
      ]);
    });

    it('still masks the names under a person’s or a role’s name key', () => {
      expect(
        mask('{"first_name": "Anna", "customer_name": "Peter Visser", "contact_name": "Jan Bakker", "patient_name": "Eva Jansen", "holder_name": "Tom Berg", "maiden_name": "Kok"}'),
      ).to.equal(
        '{"first_name": "[PERSON_1]", "customer_name": "[PERSON_2]", "contact_name": "[PERSON_3]", "patient_name": "[PERSON_4]", "holder_name": "[PERSON_5]", "maiden_name": "[PERSON_6]"}',
      );
      expect(mask('{"display_name": "Anna Smit", "user_name": "Anna Smit", "username": "Anna Smit"}')).to.equal(
        '{"display_name": "[PERSON_1]", "user_name": "[PERSON_1]", "username": "[PERSON_1]"}',
      );
      expect(mask('{"signer_name": "Xiomara Quintelier", "emergency_contact_name": "Xiomara Okafor"}')).to.equal(
        '{"signer_name": "[PERSON_1]", "emergency_contact_name": "[PERSON_2]"}',
      );
      // A key we do not know: a name the lists know is a person's.
      expect(mask('{"guide_name": "Anna Jansen"}')).to.equal('{"guide_name": "[PERSON_1]"}');
      unchanged(['{"guide_name": "Lonely Planet"}']);
    });

    it('leaves a button’s label', () => {
      unchanged([
        '<input name="name" value="Submit"> <input type="submit" name="name" value="Send Message">',
        '<input type="button" name="action" value="Save Draft">',
      ]);
      expect(mask('<input name="name" value="Lucas Bennett"><input type="submit" value="Send">')).to.equal(
        '<input name="name" value="[PERSON_1]"><input type="submit" value="Send">',
      );
    });

    it('reads "nombre" and "nome" as a person’s name only with a name or personal data beside it', () => {
      unchanged(['nombre = "Usuario"', '{"nombre": "Madrid Centro", "tipo": "oficina"}', '{"nome": "Sede Centrale", "tipo": "ufficio"}']);
      expect(mask('{"nombre": "Lucía Pérez"}')).to.equal('{"nombre": "[PERSON_1]"}');
      expect(mask('{"nome": "Marco Rossi"}')).to.equal('{"nome": "[PERSON_1]"}');
      expect(mask('{"nombre": "Xiomara Quintelier", "email": "x@example.es"}')).to.equal('{"nombre": "[PERSON_1]", "email": "[EMAIL_1]"}');
      expect(mask('nombre;email\nXiomara Quintelier;x@example.es')).to.equal('nombre;email\n[PERSON_1];[EMAIL_1]');
    });
  });
});
