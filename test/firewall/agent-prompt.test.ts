import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// A coding agent's tool descriptions speak of its model by name and describe their fields where a
// value would be: QA found "Allows [PERSON_1] to search the web" and "Recipient: [PERSON_2]" sent
// upstream.
describe('firewall: a coding agent’s system prompt and tools', () => {
  it('reads "Claude" as the model in a sentence about an AI, and a person named Claude in a ticket as a person', () => {
    const product = [
      'Allows Claude to search the web and use the results to inform responses.',
      "Use this tool for accessing information beyond Claude's knowledge cutoff.",
      'Claude is an AI assistant made by Anthropic.',
      'Claude, by Anthropic, answers in the language of the question.',
      'Ask Claude to write the tests; Claude is a large language model.',
    ];
    for (const text of product) expect(createFirewall().mask(text), text).to.equal(text);
    const people: Array<[string, string]> = [
      ['Claude Dubois called about his invoice.', '[PERSON_1] called about his invoice.'],
      ['Bonjour Claude,\nVotre commande est partie.', 'Bonjour [PERSON_1],\nVotre commande est partie.'],
      // A greeting is no evidence of the model, whatever the sentence speaks of.
      ['Bonjour Claude, votre assistant IA est prêt.', 'Bonjour [PERSON_1], votre assistant IA est prêt.'],
      // A Claude with a surname in the text is a person: the lone Claude there is that person too.
      ['Claude Dubois called. Claude wants an AI subscription.', '[PERSON_1] called. [PERSON_2] wants an AI subscription.'],
      // An assistant or a model may be a person's job.
      ['My assistant Claude will call you back.', 'My assistant [PERSON_1] will call you back.'],
      ['I met Claude, our AI consultant, yesterday.', 'I met [PERSON_1], our AI consultant, yesterday.'],
      ['I told Claude about the AI regulations.', 'I told [PERSON_1] about the AI regulations.'],
      ['Claude is the model for our spring catalogue.', '[PERSON_1] is the model for our spring catalogue.'],
    ];
    for (const [text, masked] of people) expect(createFirewall().mask(text), text).to.equal(masked);
  });

  it('reads a lower-case placeholder phrase after a name label as no name', () => {
    for (const text of ['Recipient: teammate name', 'Sender: your name', 'Name: user name', 'first_name: your first name', "Owner: the user's name", 'To: name of the recipient']) {
      expect(createFirewall().mask(text), text).to.equal(text);
    }
    expect(createFirewall().mask('Recipient: jan jansen')).to.equal('Recipient: [PERSON_1]');
    expect(createFirewall().mask('Recipient: Jan Jansen')).to.equal('Recipient: [PERSON_1]');
  });
});
