import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';
import { upstreamPrompt } from '../../src/gateway/chatFirewall.js';
import type { ChatMessage } from '../../src/gateway/providers/types.js';

// A coding agent (Claude Code through the Messages door) sends a long system prompt and its tool
// list on every turn. QA found its product's name, its schema placeholders and its commit trailer
// masked as personal data: the model was told that "[PERSON_1]" may search the web.
const SYSTEM = [
  'You are an interactive CLI tool that helps users with software engineering tasks.',
  'When you create a commit, end the message with:',
  '',
  '🤖 Generated with Claude Code',
  '',
  'Co-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>',
  '',
  'If the user asks for help, tell them to report issues at https://github.com/anthropics/claude-code/issues.',
  'The customer in this repository is Jan de Vries <jan.devries@example.nl>; never commit his data.',
].join('\n');

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'WebSearch',
      description:
        '- Allows Claude to search the web and use the results to inform responses\n' +
        '- Provides up-to-date information for current events and recent data\n' +
        "- Use this tool for accessing information beyond Claude's knowledge cutoff",
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'The search query to use' } },
        required: ['query'],
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'SendMessage',
      description: 'Send a message to a teammate.',
      parameters: {
        type: 'object',
        properties: {
          to: { type: 'string', description: 'Recipient: teammate name' },
          from: { type: 'string', description: 'Sender: your name' },
          cc: { type: 'string', description: 'Copy: name of the recipient' },
          body: { type: 'string', description: 'Message text' },
        },
      },
    },
  },
];

describe('firewall: a coding agent’s system prompt and tools', () => {
  it('sends the model’s name, schema placeholders and a no-reply mailbox as written, and masks the person in it', async () => {
    const fw = createFirewall();
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Fix the failing test, then mail claude.dubois@example.fr. Thanks!' },
    ];
    const out = await upstreamPrompt(fw, { messages, tools: TOOLS }, { maxChars: 1_000_000 });
    const web = out.tools![0]!.function;
    expect(web.description).to.equal(TOOLS[0]!.function.description);
    const send = out.tools![1]!.function.parameters as { properties: Record<string, { description: string }> };
    expect(send.properties.to!.description).to.equal('Recipient: teammate name');
    expect(send.properties.from!.description).to.equal('Sender: your name');
    expect(send.properties.cc!.description).to.equal('Copy: name of the recipient');
    const system = out.messages[0]!.content as string;
    expect(system).to.include('Co-Authored-By: Claude Sonnet 4.5 <noreply@anthropic.com>');
    expect(system).to.include('Generated with Claude Code');
    // The person and their own mailbox are still masked.
    expect(system).not.to.include('Jan de Vries');
    expect(system).not.to.include('jan.devries@example.nl');
    expect(out.messages[1]!.content).not.to.include('claude.dubois@example.fr');
  });

  it('reads "Claude" as the model in a sentence about an AI, and a person named Claude in a ticket as a person', () => {
    const product = [
      'Allows Claude to search the web and use the results to inform responses.',
      "Use this tool for accessing information beyond Claude's knowledge cutoff.",
      'Claude is an AI assistant made by Anthropic.',
      'Claude, by Anthropic, answers in the language of the question.',
      'Ask Claude to write the tests; Claude is a large language model.',
      // Claude Code's CronCreate tool (QA): the product's session, so the product that exits.
      'By default the job lives only in this Claude session and is gone when Claude exits.',
      'Each Codex sandbox is closed when Codex stops.',
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

  it('keeps an organisation’s no-reply and role mailboxes, and masks a person’s', () => {
    const kept = [
      'noreply@anthropic.com', 'no-reply@accounts.google.com', 'donotreply@belastingdienst.nl', 'do-not-reply@ing.nl',
      'MAILER-DAEMON@mx.example.com', 'postmaster@example.de', 'notifications@github.com',
    ];
    for (const address of kept) {
      const text = `From: ${address}`;
      expect(createFirewall().mask(text), text).to.equal(text);
      expect(createFirewall().mask(`{"email": "${address}"}`), address).to.equal(`{"email": "${address}"}`);
    }
    expect(createFirewall().mask('Mail jan.jansen@example.nl or 123+jan@users.noreply.github.com')).to.equal('Mail [EMAIL_1] or [EMAIL_2]');
    expect(createFirewall().mask('Mail info@example.nl or support@example.nl')).to.equal('Mail [EMAIL_1] or [EMAIL_2]');
  });
});
