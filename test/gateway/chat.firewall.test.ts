import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { changeNonEuAcceptance } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, readSse, useGatewayFixture } from '../helpers/gateway.js';
import { ADVERSARIAL } from '../firewall/adversarial.js';

// Personal data in a chat request never reaches the provider in clear, and the caller still
// reads the original values in the answer.

// Probes GET /healthz from another process, as a load balancer would: one request after another on
// a kept-alive connection, each timed, from the first answer until told to stop.
const PROBER = `
const latencies = [];
let stopping = false;
process.stdin.on('data', () => { stopping = true; });
const probe = async () => { const t0 = performance.now(); await (await fetch(process.env.PROBE_URL)).arrayBuffer(); return performance.now() - t0; };
await probe();
process.stdout.write('ready\\n');
// A short rest between probes leaves the machine's cores to the service.
while (!stopping) {
  latencies.push(await probe());
  await new Promise((resolve) => setTimeout(resolve, 2));
}
process.stdout.write(JSON.stringify(latencies) + '\\n');
process.exit(0);
`;

async function startProber(url: string): Promise<{ stop(): Promise<number[]> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBER], { env: { ...process.env, PROBE_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines = new EventEmitter();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      lines.emit('line', out.slice(0, nl));
      out = out.slice(nl + 1);
    }
  });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  expect(await next()).to.equal('ready');
  return {
    async stop() {
      const result = next();
      child.stdin.end('stop\n');
      return JSON.parse(await result) as number[];
    },
  };
}
describe('the personal-data firewall in chat', () => {
  const gw = useGatewayFixture({ worker: true });

  const ORIGINALS = ['NL91ABNA0417164300', 'noor.devries@example.nl', '+31 6 12345678', 'Noor de Vries'];
  const MESSAGE = `Mijn naam is Noor de Vries, mijn IBAN is NL91ABNA0417164300, mail noor.devries@example.nl of bel +31 6 12345678.`;
  const upstreamText = () => JSON.stringify(gw.euA.requests.map((r) => r.body));
  const streamedText = (events: Awaited<ReturnType<typeof readSse>>) =>
    events.flatMap((e) => (e === '[DONE]' ? [] : e.choices.map((c: any) => c.delta?.content ?? ''))).join('');

  it('masks every message before it leaves and restores the reply', async () => {
    const response = await postChat(gw, chatBody({ messages: [{ role: 'system', content: 'Help Noor de Vries.' }, { role: 'user', content: MESSAGE }] }), {
      'x-request-id': 'fw-plain',
    });
    const body = (await response.json()) as any;
    const sent = upstreamText();
    for (const value of ORIGINALS) expect(sent, value).not.to.contain(value);
    expect(sent).to.contain('[IBAN_1]').and.contain('[EMAIL_1]').and.contain('[PHONE_1]').and.contain('[PERSON_1]');
    // The same value gets the same placeholder in every message.
    expect(gw.euA.requests[0]!.body.messages[0].content).to.contain('[PERSON_1]');
    expect(body.choices[0].message.content).to.equal(`echo: ${MESSAGE}`);
    expect(body.usage.credits.services).to.be.closeTo((body.usage.prompt_tokens * 0.01) / 1000, 1e-8);
    expect(body.usage.credits.total).to.be.closeTo(body.usage.credits.base + body.usage.credits.services, 1e-8);

    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'fw-plain'")).rows[0],
      { what: 'the trace' },
    );
    const kept = JSON.stringify([trace.input, trace.output, trace.firewall]);
    for (const value of ORIGINALS) expect(kept, value).not.to.contain(value);
    expect(trace.firewall.counts).to.include({ IBAN: 1, EMAIL: 1, PHONE: 1 });
    expect(trace.firewall.counts.PERSON).to.be.at.least(1);
  });

  it('restores placeholders split across stream chunks at every offset', async () => {
    await postChat(gw, chatBody({ messages: [{ role: 'user', content: MESSAGE }], cache: false }));
    const masked = `echo: ${gw.euA.requests[0]!.body.messages[0].content as string}`;
    for (let offset = 1; offset < masked.length; offset += 1) {
      gw.euA.script({ type: 'answer', chunks: [masked.slice(0, offset), masked.slice(offset)] });
      const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: MESSAGE }], stream: true, cache: false }));
      const events = await readSse(response);
      expect(events.at(-1), `offset ${offset}`).to.equal('[DONE]');
      expect(streamedText(events), `offset ${offset}`).to.equal(`echo: ${MESSAGE}`);
    }
  });

  it('masks tool-call arguments going out and restores them coming back', async () => {
    const tools = [{ type: 'function', function: { name: 'pay', parameters: { type: 'object', properties: { iban: { type: 'string' } } } } }];
    gw.euA.script({ type: 'answer', toolCalls: [{ name: 'pay', arguments: '{"iban":"[IBAN_1]"}' }] });
    const response = await postChat(
      gw,
      chatBody({
        tools,
        messages: [
          { role: 'user', content: 'Betaal naar NL91ABNA0417164300' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'pay', arguments: '{"iban":"NL91ABNA0417164300"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'gelukt' },
        ],
      }),
    );
    const body = (await response.json()) as any;
    expect(upstreamText()).not.to.contain('NL91ABNA0417164300');
    expect(gw.euA.requests[0]!.body.messages[1].tool_calls[0].function.arguments).to.contain('[IBAN_1]');
    expect(JSON.parse(body.choices[0].message.tool_calls[0].function.arguments)).to.deep.equal({ iban: 'NL91ABNA0417164300' });
  });

  it('masks a tool result written as JSON with escapes (json.dumps), and the tool call answered from it gets the values as they read', async () => {
    const tools = [{ type: 'function', function: { name: 'send_mail', parameters: { type: 'object', properties: { to: { type: 'string' } } } } }];
    gw.euA.script({ type: 'answer', toolCalls: [{ name: 'send_mail', arguments: '{"to":"[EMAIL_1]","body":"Dear [PERSON_1]"}' }] });
    const result = '{"contact": "Reply to:\\nanna.smit@example.nl", "name": "Jos\\u00e9 Garc\\u00eda", "address": "Lieferadresse:\\nKatharina Wagner\\nLindenstra\\u00dfe 14\\n04109 Leipzig"}';
    const response = await postChat(
      gw,
      chatBody({
        tools,
        messages: [
          { role: 'user', content: 'Look up the ticket and mail the customer.' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: result },
        ],
      }),
    );
    const body = (await response.json()) as any;
    expect(upstreamText()).not.to.match(/anna\.smit|Garc|Jos\\\\u00e9|Katharina|Lindenstra|04109/);
    const sent = gw.euA.requests[0]!.body.messages[2].content as string;
    expect(JSON.parse(sent)).to.deep.equal({ contact: 'Reply to:\n[EMAIL_1]', name: '[PERSON_1]', address: 'Lieferadresse:\n[PERSON_2]\n[ADDRESS_1]' });
    expect(JSON.parse(body.choices[0].message.tool_calls[0].function.arguments)).to.deep.equal({ to: 'anna.smit@example.nl', body: 'Dear José García' });
  });

  it('masks in tool-call arguments a value the prompt masked elsewhere by where it stood, as an agent sends back the call it was given', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const record = '{"birth_date": "12-03-1985", "postcode": "3511 AB", "city": "Utrecht"}';
    await postChat(
      gw,
      chatBody({
        tools,
        messages: [
          { role: 'user', content: `Zoek deze klant op: ${record}` },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"birth_date":"12-03-1985","postcode":"3511AB","city":"Utrecht"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: `gevonden: ${record}` },
        ],
      }),
    );
    const sent = gw.euA.requests[0]!.body.messages;
    expect(JSON.stringify(sent)).not.to.match(/12-03-1985|3511 ?AB/);
    const args = JSON.parse(sent[1].tool_calls[0].function.arguments);
    expect(args.birth_date).to.equal(sent[0].content.match(/\[DATE_OF_BIRTH_\d+\]/)![0]);
    expect(args.postcode).to.match(/^\[ADDRESS_\d+\]$/);
  });

  it('masks the prose and values of tool and response-format definitions, keeping names, and restores what comes back', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'assign_claim',
          description: 'Assigns a claim. Escalations go to noor.devries@example.nl.',
          parameters: {
            type: 'object',
            properties: {
              handler: { type: 'string', enum: ['Noor de Vries', 'Pieter Bakker'], description: 'Who handles it' },
              // A property named like a keyword is a name, not a description.
              description: { type: 'string', default: 'Bel +31 6 12345678' },
            },
            required: ['handler'],
          },
        },
      },
    ];
    const responseFormat = {
      type: 'json_schema',
      json_schema: { name: 'claim', description: 'Refunds go to NL91ABNA0417164300', schema: { type: 'object', properties: { iban: { type: 'string', examples: ['NL91ABNA0417164300'] } } } },
    };
    gw.euA.script({ type: 'answer', toolCalls: [{ name: 'assign_claim', arguments: '{"handler":"[PERSON_1]"}' }] });
    const response = await postChat(gw, chatBody({ tools, response_format: responseFormat, cache: false }));
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    for (const value of ORIGINALS) expect(upstreamText(), value).not.to.contain(value);
    const sent = gw.euA.requests[0]!.body;
    expect(sent.tools[0].function.name).to.equal('assign_claim');
    expect(sent.tools[0].function.description).to.equal('Assigns a claim. Escalations go to [EMAIL_1].');
    expect(Object.keys(sent.tools[0].function.parameters.properties)).to.deep.equal(['handler', 'description']);
    expect(sent.tools[0].function.parameters.properties.handler.enum[0]).to.match(/^\[PERSON_\d\]$/);
    expect(sent.tools[0].function.parameters.properties.handler.description).to.equal('Who handles it');
    expect(sent.tools[0].function.parameters.required).to.deep.equal(['handler']);
    expect(sent.response_format.json_schema.description).to.equal('Refunds go to [IBAN_1]');
    expect(sent.response_format.json_schema.schema.properties.iban.examples).to.deep.equal(['[IBAN_1]']);
    // The model picks a masked enum value; the caller reads the name.
    const handler = JSON.parse(body.choices[0].message.tool_calls[0].function.arguments).handler;
    expect(handler).to.equal(sent.tools[0].function.parameters.properties.handler.enum[0] === '[PERSON_1]' ? 'Noor de Vries' : 'Pieter Bakker');

    // The same definitions on the next turn: the same masking (clean texts are remembered, not skipped unmasked).
    gw.euA.reset();
    await postChat(gw, chatBody({ tools, response_format: responseFormat, cache: false }));
    expect(gw.euA.requests[0]!.body.tools).to.deep.equal(sent.tools);
  });

  it('restores into content escaped for JSON when the request asks for a JSON answer, streamed and not (a multi-line address made it invalid JSON)', async () => {
    const address = 'Vondelstraat 3\n1054 GA Amsterdam';
    const messages = [{ role: 'user', content: `Zet mijn adres in JSON:\n${address}` }];
    const answer = '{"address":"[ADDRESS_1]"}';
    for (const response_format of [{ type: 'json_object' }, { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } }]) {
      gw.euA.script({ type: 'answer', content: answer });
      const whole = (await (await postChat(gw, chatBody({ messages, response_format, cache: false }))).json()) as any;
      expect(JSON.parse(whole.choices[0].message.content), response_format.type).to.deep.equal({ address });
      // Split inside the placeholder: the stream's restorer escapes what it held back too.
      gw.euA.script({ type: 'answer', chunks: ['{"address":"[ADDR', 'ESS_1]"}'] });
      const streamed = streamedText(await readSse(await postChat(gw, chatBody({ messages, response_format, stream: true, cache: false }))));
      expect(JSON.parse(streamed), response_format.type).to.deep.equal({ address });
    }
    // Without a JSON format the content is text, and the value comes back as written.
    gw.euA.script({ type: 'answer', content: 'Adres: [ADDRESS_1]' });
    const text = (await (await postChat(gw, chatBody({ messages, cache: false }))).json()) as any;
    expect(text.choices[0].message.content).to.equal(`Adres: ${address}`);
  });

  it('masks a value found in one message where another repeats it with nothing around it to say what it is, before or after', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    await postChat(
      gw,
      chatBody({
        tools,
        messages: [
          { role: 'system', content: 'Open ticket for 88123456, raised by Xavi Oyelaran.' },
          { role: 'user', content: 'Klantnummer: 88123456. My name is Xavi Oyelaran, born 12-03-1985.' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"customer":"88123456","name":"xavi oyelaran"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: '{"customer": 88123456, "holder": "xavi oyelaran", "born": "12-03-1985", "balance": 40}' },
          { role: 'user', content: 'Yes, that is me, xavi oyelaran. The bakery on the corner is closed.' },
        ],
      }),
    );
    const sent = gw.euA.requests[0]!.body.messages;
    expect(JSON.stringify(sent)).not.to.match(/88123456|Oyelaran|12-03-1985|Xavi/i);
    const ref = sent[1].content.match(/\[CUSTOMER_REF_\d+\]/)![0];
    expect(sent[0].content).to.equal(`Open ticket for ${ref}, raised by ${sent[0].content.match(/\[PERSON_\d+\]/)![0]}.`);
    expect(JSON.parse(sent[2].tool_calls[0].function.arguments).customer).to.equal(ref);
    // A number in a tool's JSON result gets its placeholder in quotes: the JSON stays valid.
    expect(JSON.parse(sent[3].content)).to.include({ customer: ref, balance: 40 });
    // Words of the conversation that are not values stay as written.
    expect(sent[4].content).to.match(/^Yes, that is me, \[PERSON_\d+\]\. The bakery on the corner is closed\.$/);
  });

  it('masks the prompt front to back, so a later turn leaves the start of the prompt as it was (provider prompt caches keep matching)', async () => {
    const tools = [{ type: 'function', function: { name: 'notify', description: 'Sends a copy to compliance@verzekeraar.nl.', parameters: { type: 'object', properties: {} } } }];
    const system = { role: 'system', content: 'Help Noor de Vries with her claim.' };
    await postChat(gw, chatBody({ tools, cache: false, messages: [system, { role: 'user', content: 'Hoe staat mijn claim ervoor?' }] }));
    await postChat(gw, chatBody({ tools, cache: false, messages: [system, { role: 'user', content: 'Mail het naar pieter.bakker@example.com' }] }));
    const [first, second] = gw.euA.requests.map((r) => r.body);
    expect(second.tools).to.deep.equal(first.tools);
    expect(second.messages[0]).to.deep.equal(first.messages[0]);
    expect(second.tools[0].function.description).to.equal('Sends a copy to [EMAIL_1].');
    expect(second.messages[1].content).to.equal('Mail het naar [EMAIL_2]');
  });

  it('sends text unmasked with firewall: false only for an organization that accepted non-EU routing', async () => {
    const refused = await postChat(gw, chatBody({ firewall: false, messages: [{ role: 'user', content: MESSAGE }] }));
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as any).code).to.equal('egress_refused');
    expect(gw.euA.requests).to.have.length(0);

    await gw.app.key({ org: 'open-org', workspace: 'w' });
    await changeNonEuAcceptance(gw.app.db.pool, 'open-org', 'sofie');
    const key = (await gw.app.key({ org: 'open-org', workspace: 'w' })).key;
    const allowed = await postChat(gw, chatBody({ firewall: false, messages: [{ role: 'user', content: MESSAGE }] }), {}, key);
    const body = (await allowed.json()) as any;
    expect(allowed.status).to.equal(200);
    expect(upstreamText()).to.contain('NL91ABNA0417164300');
    expect(body.usage.credits.services).to.equal(0);

    // A workspace whose firewall default was turned off, after the acceptance is withdrawn: the
    // withdrawal switched the default back on, so its chats go on, masked.
    const settings = await api(gw.app.baseUrl, '/v1/settings/router', { method: 'PUT', key, body: { firewall_default: false } });
    expect(settings.status, settings.text).to.equal(200);
    await changeNonEuAcceptance(gw.app.db.pool, 'open-org', null);
    const fresh = (await gw.app.key({ org: 'open-org', workspace: 'w' })).key;
    const withdrawn = await postChat(gw, chatBody({ messages: [{ role: 'user', content: MESSAGE }] }), {}, fresh);
    expect(withdrawn.status).to.equal(200);
    expect(JSON.stringify(gw.euA.requests.at(-1)!.body)).not.to.contain('NL91ABNA0417164300');
    // A default left off without the acceptance (stored before that rule) is refused, and the
    // refusal names the default, not a firewall: false the caller never sent.
    await gw.app.db.pool.query(
      "update workspace_settings set firewall_default = false where organization_id = (select id from organizations where name = 'open-org')",
    );
    const stale = await postChat(gw, chatBody({ messages: [{ role: 'user', content: `${MESSAGE} (stale)` }] }), {}, (await gw.app.key({ org: 'open-org', workspace: 'w' })).key);
    expect(stale.status).to.equal(403);
    expect(((await stale.json()) as any).message).to.match(/^the workspace's firewall default \(off\) sends personal data unmasked/);
  });

  it('keeps /healthz answering while the largest prompt it scans is masked (the scan yields the event loop)', async function () {
    this.timeout(180_000);
    const limit = gw.app.config.firewallMaxChars;
    // A scan that held the event loop would keep a probe waiting for about the whole request; a
    // scan in slices keeps every probe far shorter than the request. The bound is 100 ms, or a
    // quarter of the request when other work on the machine slows everything down, and a pattern
    // passes when one of three runs keeps within it (the machine can stall any one run).
    const within = (slowest: number, requestMs: number) => slowest < Math.max(100, requestMs / 4);
    for (const name of ['title + first name', 'phone, compact', 'mixed']) {
      const prompt = ADVERSARIAL.find((a) => a.name === name)!.make(limit);
      const runs: { slowest: number; requestMs: number }[] = [];
      for (let run = 0; run < 3 && !runs.some((r) => within(r.slowest, r.requestMs)); run++) {
        // A short answer: what is measured is the scan of the prompt, not the stub's echo of it.
        gw.euA.script({ type: 'answer', content: 'ok' });
        const prober = await startProber(`${gw.app.baseUrl}/healthz`);
        const started = performance.now();
        // A model whose context holds the prompt: one that did not would refuse it before the scan.
        const response = await postChat(gw, chatBody({ model: 'test/long', cache: false, messages: [{ role: 'user', content: prompt }] }));
        await response.arrayBuffer();
        const requestMs = performance.now() - started;
        const latencies = await prober.stop();
        expect(response.status, name).to.equal(200);
        expect(latencies.length, `${name}: probes while the chat ran`).to.be.at.least(10);
        runs.push({ slowest: Math.max(...latencies), requestMs });
      }
      const described = runs.map((r) => `${r.slowest.toFixed(0)} of ${r.requestMs.toFixed(0)}`).join(', ');
      expect(runs.some((r) => within(r.slowest, r.requestMs)), `${name}: slowest probe of each run, ms of the request's ms: ${described}`).to.equal(true);
    }
  });

  it('takes the language per call over the workspace setting, and records it on the trace', async () => {
    const response = await postChat(gw, chatBody({ firewall_language: 'de', messages: [{ role: 'user', content: 'Meine Steuer-ID ist 86095742719.' }] }), {
      'x-request-id': 'fw-lang',
    });
    expect(response.status).to.equal(200);
    expect(upstreamText()).not.to.contain('86095742719');
    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select firewall from traces where id = 'fw-lang'")).rows[0],
      { what: 'the trace' },
    );
    expect(trace.firewall.language).to.equal('de');
    expect(trace.firewall.counts).to.have.property('STEUER_ID', 1);
  });
});
