import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { changeNonEuAcceptance } from '../../src/tenancy/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { factContents, setExtractionModel, submitFact, waitForSubmission } from './factsFixture.js';
import { LOCAL_EMBED_MODEL, SERVICES, loadTestCatalog } from '../helpers/catalog.js';

// Fact extraction by a model sends the submission and the facts already held to a provider. The
// workspace's firewall applies as it does to a chat: personal data leaves masked (one vault per
// job), and the facts the model answers with are stored with the real values put back.

/**
 * An extraction model that can only work with what it receives: it states each sentence of the
 * submission as a fact, and in reconciliation rewrites the held e-mail fact with the new address,
 * all with whatever text (placeholders or values) it was sent. It records every request body.
 */
async function startEchoingExtractor(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const emailIn = (text: string) => /\[EMAIL_\d+\]|\S+@\S+\.[a-z]+/.exec(text)?.[0];
  const answer = (request: { response_format: { json_schema: { name: string } }; messages: { content: string }[] }): unknown => {
    const user = request.messages.at(-1)!.content;
    if (request.response_format.json_schema.name === 'facts') {
      return { facts: user.split(/(?<=\.)\s+/).filter((sentence) => sentence !== '') };
    }
    const asked = JSON.parse(user) as { memories: { id: string; text: string }[]; new_facts: string[] };
    const held = asked.memories.find((memory) => memory.text.includes('e-mail'));
    return {
      actions: asked.new_facts.map((text) =>
        held && emailIn(text)
          ? { event: 'UPDATE', id: held.id, text: `My e-mail address is ${emailIn(text)} (before: ${emailIn(held.text)})` }
          : { event: 'ADD', id: null, text },
      ),
    };
  };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      bodies.push(body);
      const content = JSON.stringify(answer(JSON.parse(body)));
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: `chatcmpl-${bodies.length}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'extractor-upstream',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const NAME = 'Sofie de Vries';
const EMAIL = 'sofie.devries@example.nl';
const PHONE = '+31 6 12345678';
const IBAN = 'NL91 ABNA 0417 1643 00';
const NEW_EMAIL = 's.devries@work.example.com';

/** The identifiers found in a request body, in any of the forms a value could be written in. */
function identifiersIn(body: string): string[] {
  const compact = body.replace(/\s+/g, '').toLowerCase();
  const forms: [string, string][] = [
    ['name', 'sofie'],
    ['name', 'vries'],
    ['email', EMAIL],
    ['email', NEW_EMAIL],
    ['phone', '12345678'],
    ['iban', 'nl91abna0417164300'],
  ];
  return forms.filter(([, form]) => compact.includes(form.replace(/\s+/g, '').toLowerCase())).map(([kind, form]) => `${kind}: ${form}`);
}

describe('facts (extraction model) and the firewall', () => {
  let app: TestApp;
  let extractor: Awaited<ReturnType<typeof startEchoingExtractor>>;
  let key: string;
  let scope: { app: TestApp; organizationId: string; workspaceId: string };
  before(async () => {
    extractor = await startEchoingExtractor();
    const yaml = `
providers:
  - {id: eu-x, region: eu, kind: openai, base_url: "${extractor.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: local, region: eu, kind: local}
models:
  - id: test/extractor
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 2}
    capabilities: [json_schema]
    endpoints:
      - {provider: eu-x, upstream_model: extractor-upstream}
${LOCAL_EMBED_MODEL}
aliases: {}
${SERVICES}
`;
    app = await startTestApp({ catalog: loadTestCatalog(yaml).catalog });
    const created = await app.key({ org: 'acme', workspace: 'main' });
    key = created.key;
    scope = { app, organizationId: created.organization_id, workspaceId: created.workspace_id };
    await setExtractionModel(scope, 'test/extractor');
    await app.startWorker();
  });
  after(async () => {
    await app.close();
    await extractor.close();
  });
  beforeEach(() => {
    extractor.bodies.length = 0;
  });

  const setFirewallDefault = (on: boolean) =>
    app.db.pool.query('update workspace_settings set firewall_default = $2 where workspace_id = $1', [scope.workspaceId, on]);

  const extract = async (userRef: string, content: string) => {
    expect((await submitFact(app, key, { content, user_ref: userRef })).status).to.equal(202);
    const submission = await waitForSubmission(app, scope.workspaceId, userRef);
    expect(submission.status, submission.error ?? '').to.equal('done');
    return submission;
  };

  it('masks the submission and the facts held before they reach the model, and stores the facts with the real values', async () => {
    const userRef = 'fw-masked';
    await extract(userRef, `My name is ${NAME}. My e-mail address is ${EMAIL}. My phone number is ${PHONE}. My IBAN is ${IBAN}.`);
    expect(extractor.bodies).to.have.length(1);
    expect(identifiersIn(extractor.bodies[0]!)).to.deep.equal([]);
    const sent = JSON.parse(extractor.bodies[0]!).messages;
    expect(sent[1].content).to.match(/\[PERSON_1\].*\[EMAIL_1\].*\[PHONE_1\].*\[IBAN_1\]/);
    // The model is told to keep the placeholders, so that they can be restored.
    expect(sent[0].content).to.contain('[PERSON_1]');
    expect(await factContents(app, key, { user_ref: userRef })).to.have.members([
      `My name is ${NAME}.`,
      `My e-mail address is ${EMAIL}.`,
      `My phone number is ${PHONE}.`,
      `My IBAN is ${IBAN}.`,
    ]);

    // A second submission: reconciliation shows the model the facts held, masked with the same
    // vault as the new ones, and its rewrite of a held fact is restored too.
    extractor.bodies.length = 0;
    await extract(userRef, `My new e-mail address is ${NEW_EMAIL}.`);
    expect(extractor.bodies).to.have.length(2);
    for (const body of extractor.bodies) expect(identifiersIn(body)).to.deep.equal([]);
    const reconciliation = JSON.parse(JSON.parse(extractor.bodies[1]!).messages[1].content);
    expect(reconciliation.new_facts).to.deep.equal(['My new e-mail address is [EMAIL_1].']);
    expect(reconciliation.memories.map((m: { text: string }) => m.text)).to.include.members([
      'My name is [PERSON_1].',
      'My e-mail address is [EMAIL_2].',
    ]);
    expect(await factContents(app, key, { user_ref: userRef })).to.have.members([
      `My name is ${NAME}.`,
      `My e-mail address is ${NEW_EMAIL} (before: ${EMAIL})`,
      `My phone number is ${PHONE}.`,
      `My IBAN is ${IBAN}.`,
    ]);

    // The trace counts what was masked, never the values.
    const { rows } = await app.db.pool.query<{ input: { masked: Record<string, number> } }>(
      `select input from traces where workspace_id = $1 and kind = 'facts' order by created_at`,
      [scope.workspaceId],
    );
    expect(rows.at(-1)!.input.masked).to.include({ EMAIL: 3, PERSON: 1 });
    expect(identifiersIn(JSON.stringify(rows))).to.deep.equal([]);
  });

  it('sends in clear only when the workspace turned its firewall off with the organization’s acceptance', async () => {
    const content = `My name is ${NAME}. My e-mail address is ${EMAIL}.`;
    await changeNonEuAcceptance(app.db.pool, 'acme', 'sofie');
    await setFirewallDefault(false);
    try {
      await extract('fw-off', content);
      expect(identifiersIn(extractor.bodies[0]!)).to.include.members(['name: sofie', `email: ${EMAIL}`]);
      expect(await factContents(app, key, { user_ref: 'fw-off' })).to.have.members([`My name is ${NAME}.`, `My e-mail address is ${EMAIL}.`]);

      // The acceptance withdrawn, the workspace's setting no longer stands: masked again.
      extractor.bodies.length = 0;
      await changeNonEuAcceptance(app.db.pool, 'acme', null);
      await extract('fw-withdrawn', content);
      expect(identifiersIn(extractor.bodies[0]!)).to.deep.equal([]);
      expect(await factContents(app, key, { user_ref: 'fw-withdrawn' })).to.have.members([
        `My name is ${NAME}.`,
        `My e-mail address is ${EMAIL}.`,
      ]);
    } finally {
      await setFirewallDefault(true);
      await changeNonEuAcceptance(app.db.pool, 'acme', null);
    }
  });
});
