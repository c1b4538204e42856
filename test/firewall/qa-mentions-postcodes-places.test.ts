import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings of 2026-11-27 on casual text, with the samples as QA sent them.
describe('firewall QA: mentions, postcodes said alone, places and brands named after people', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);

  it('masks a person’s handle in a mention, keeping the "@", but not a scoped package nor a team', () => {
    expect(mask('assigned to @jeroen.smit in Jira')).to.equal('assigned to @[PERSON_1] in Jira');
    expect(mask('cc @anna_de_vries and @j.jansen')).to.equal('cc @[PERSON_1] and @[PERSON_2]');
    for (const text of [
      'npm i @mark.down/parser',
      'import x from "@types/node"',
      'ping @devops-team',
      'mail jeroen.smit@example.nl',
      // Python decorators (QA: pytest's @mark.parametrize was masked).
      '@mark.parametrize("x", [1])\ndef test(x): pass',
      '@ray.remote\ndef f(): pass',
    ]) {
      expect(mask(text), text).not.to.contain('@[PERSON');
    }
  });

  it('masks a full UK or Dutch postcode after its label, not a numeric one nor the word alone', () => {
    expect(mask('caller verified DOB and postcode SW1A 2AA')).to.equal('caller verified DOB and postcode [ADDRESS_1]');
    expect(mask('my postal code is M1 1AE')).to.equal('my postal code is [ADDRESS_1]');
    expect(mask('postcode 3511 AB')).to.equal('postcode [ADDRESS_1]');
    for (const text of ['Die Postleitzahl 80331 gehört zu München.', 'the postcode field is required', 'Postcode 2019']) expect(mask(text), text).to.equal(text);
  });

  it('leaves places, landmarks and brands named after people (they were masked as people)', () => {
    for (const text of [
      'vor dem Brandenburger Tor',
      'Tony Chocolonely is lekker',
      'shopping at Galeries Lafayette',
      'take the Elizabeth line',
      'meet at the Ada Lovelace building',
      'an article in Marie Claire',
      'the Grace Hopper Center',
    ]) {
      expect(mask(text), text).to.equal(text);
    }
    expect(mask('Mijn naam is Marie Claire Dubois')).to.equal('Mijn naam is [PERSON_1]');
  });
});
