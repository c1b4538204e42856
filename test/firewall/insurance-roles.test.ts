import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';

// Scenario 1: the people on a policy or a claim, named under an insurance role — a table column,
// a key-value label — are masked as they are under "Klant" or "Naam", in chat and in retrieved
// document passages alike.
const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

const ROLES = [
  'Verzekeringnemer', 'Polishouder', 'Verzekerde', 'Naam verzekerde', 'Begunstigde', 'Schadebehandelaar', 'Behandelaar', 'Tussenpersoon',
  'Policyholder', 'Insured', 'Beneficiary', 'Claimant', 'Handler',
  'Versicherungsnehmer', 'Versicherte', 'Versicherter', 'Begünstigte', 'Begünstigter', 'Sachbearbeiter', 'Sachbearbeiterin', 'Name des Versicherungsnehmers',
  "Preneur d'assurance", 'Assuré', 'Assurée', 'Souscripteur', 'Bénéficiaire', 'Gestionnaire', "Nom de l'assuré",
];

describe('firewall: names under insurance roles', () => {
  for (const role of ROLES) {
    it(`masks the names in a "${role}" column and after a "${role}:" label`, () => {
      const table = mask(`Vat deze tabel samen:\n| Polis | ${role} | Bedrag |\n|---|---|---|\n| IV-1 | Xiomara Quintelier | 1200 |\n| IV-2 | Bartholomeus Oudejans | 800 |\n`);
      expect(table).not.to.match(/Quintelier|Oudejans/);
      const csv = mask(`polis;${role.toLowerCase()};bedrag\nPX-1;Bartholomeus Oudejans;800\n`);
      expect(csv).not.to.contain('Oudejans');
      const kv = mask(`${role}: Xiomara Quintelier\nBedrag: 1200`);
      // ("Name des Versicherungsnehmers" itself is read as a name, as before: only the value is asserted.)
      expect(kv).not.to.contain('Quintelier');
      expect(kv).to.match(/: \[PERSON_\d\]\nBedrag: 1200$/);
    });
  }

  it('masks a handler named in a retrieved passage (a table repeated over chunks)', () => {
    const passage =
      'Overzicht schadebehandelaars per regio (intern)\n\n| Regio | Behandelaar | Telefoon |\n|---|---|---|\n| Utrecht | Xiomara Quintelier | 030 555 0101 |\n| Zwolle | Bartholomeus Oudejans | 038 555 0102 |\n';
    expect(mask(passage)).not.to.match(/Quintelier|Oudejans/);
  });

  it('masks a role label in a line of prose', () => {
    expect(mask('Graag terugbellen, polishouder: Xiomara Quintelier, over de schade.')).not.to.contain('Quintelier');
  });

  it('leaves a role with no name under it alone', () => {
    for (const text of ['Behandelaar: afdeling schade Utrecht', 'handler: index.handler', 'Insured: yes', '| Regio | Behandelaar |\n|---|---|\n| Utrecht | team schade |\n']) {
      expect(mask(text), text).to.equal(text);
    }
  });
});
