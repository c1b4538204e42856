import { expect } from 'chai';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, useGatewayFixture } from '../helpers/gateway.js';

// Nothing personal leaves by a side door: a message's name, a file part's file name and an image
// part's URL are masked like the text, and fields of a content part that the contract does not
// name are dropped, not forwarded. The trace stores what left, so it holds none of it either.
describe('the firewall on the side doors of a chat message', () => {
  const gw = useGatewayFixture();

  const DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const PERSONAL = ['Noor', 'Vries', 'noor.devries', 'devries%40', '0612345678', 'Pieter', 'Jansen'];

  const sentMessages = () => gw.euA.requests[0]!.body.messages as any[];
  const traceOf = (id: string) =>
    waitFor(async () => (await gw.app.db.pool.query('select input from traces where id = $1', [id])).rows[0], { what: 'the trace' });
  const expectNone = (text: string, what: string) => {
    for (const value of PERSONAL) expect(text, `${what}: ${value}`).not.to.contain(value);
  };

  it("masks a message's name whole, a file name in place and the personal parts of an image URL, in what leaves and in the trace", async () => {
    const response = await postChat(
      gw,
      chatBody({
        messages: [
          { role: 'system', content: 'Je helpt een klant.' },
          {
            role: 'user',
            name: 'noor_de_vries',
            content: [
              { type: 'text', text: 'Kijk naar mijn cv en mijn foto.' },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'cv_noor_de_vries_0612345678.pdf' } },
              { type: 'image_url', image_url: { url: 'https://photos.example.com/u/Pieter-Jansen/me.jpg?mail=noor.devries%40example.nl&size=large', detail: 'low' } },
              { type: 'image_url', image_url: { url: DATA_URL } },
            ],
          },
        ],
      }),
      { 'x-request-id': 'side-doors-masked' },
    );
    expect(response.status).to.equal(200);
    const [, user] = sentMessages();
    expectNone(JSON.stringify(sentMessages()), 'upstream');
    // A name leaves whole as a placeholder OpenAI's name pattern accepts.
    expect(user.name).to.match(/^PERSON_\d+$/);
    expect(user.content[1].file.filename).to.match(/^cv_\[PERSON_\d+\]_\[PHONE_\d+\]\.pdf$/);
    expect(user.content[1].file.file_data).to.equal('data:application/pdf;base64,JVBERi0xLjQK');
    const url = new URL(user.content[2].image_url.url);
    expect(url.host).to.equal('photos.example.com');
    expect(url.searchParams.get('mail')).to.match(/^\[EMAIL_\d+\]$/);
    expect(url.searchParams.get('size')).to.equal('large');
    expect(decodeURIComponent(url.pathname)).to.match(/^\/u\/\[PERSON_\d+\]\/me\.jpg$/);
    expect(user.content[2].image_url.detail).to.equal('low');
    // A data URL is an attachment: it goes as it is.
    expect(user.content[3].image_url.url).to.equal(DATA_URL);

    const trace = await traceOf('side-doors-masked');
    expectNone(JSON.stringify(trace.input), 'trace');
  });

  it('drops the fields a content part does not have in the contract, with the firewall on and off', async () => {
    const parts = [
      { type: 'text', text: 'Hallo daar.', note: 'Noor de Vries', image_url: { url: 'https://example.com/x.png' } },
      { type: 'image_url', image_url: { url: DATA_URL, detail: 'auto', alt: 'Pieter Jansen' }, caption: 'Noor de Vries' },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav', speaker: 'Noor de Vries' }, transcript: '0612345678' },
      { type: 'file', file: { file_data: 'JVBERi0xLjQK', filename: 'offerte.pdf', owner: 'noor.devries@example.nl' }, meta: { who: 'Pieter' } },
    ];
    const expected = [
      { type: 'text', text: 'Hallo daar.' },
      { type: 'image_url', image_url: { url: DATA_URL, detail: 'auto' } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'file', file: { file_data: 'JVBERi0xLjQK', filename: 'offerte.pdf' } },
    ];
    const masked = await postChat(gw, chatBody({ messages: [{ role: 'user', content: parts, mood: 'Noor de Vries' }] }), {
      'x-request-id': 'side-doors-dropped',
    });
    expect(masked.status).to.equal(200);
    expect(sentMessages()[0]).to.deep.equal({ role: 'user', content: expected });
    expectNone(JSON.stringify((await traceOf('side-doors-dropped')).input), 'trace');

    gw.euA.reset();
    const { changeNonEuAcceptance } = await import('../../src/tenancy/keys.js');
    await gw.app.key({ org: 'open-side-doors', workspace: 'w' });
    await changeNonEuAcceptance(gw.app.db.pool, 'open-side-doors', 'sofie');
    const key = (await gw.app.key({ org: 'open-side-doors', workspace: 'w' })).key;
    const open = await postChat(gw, chatBody({ firewall: false, messages: [{ role: 'user', content: parts }] }), {}, key);
    expect(open.status).to.equal(200);
    expect(sentMessages()[0]).to.deep.equal({ role: 'user', content: expected });
  });

  it('leaves a name, a file name and a URL without personal data as they are', async () => {
    const url = 'https://cdn.example.com/img/chart%202024.png?w=640&fmt=png#top';
    const response = await postChat(
      gw,
      chatBody({
        messages: [
          {
            role: 'user',
            name: 'support_bot',
            content: [
              { type: 'text', text: 'Wat staat er in deze grafiek?' },
              { type: 'image_url', image_url: { url } },
              { type: 'file', file: { file_data: 'JVBERi0xLjQK', filename: 'kwartaal_rapport-2024.pdf' } },
            ],
          },
        ],
      }),
    );
    expect(response.status).to.equal(200);
    const [user] = sentMessages();
    expect(user.name).to.equal('support_bot');
    expect(user.content[1].image_url.url).to.equal(url);
    expect(user.content[2].file.filename).to.equal('kwartaal_rapport-2024.pdf');
  });

  it('masks stop sequences with the placeholders of the prompt, so they leave masked and still stop the model', async () => {
    const response = await postChat(
      gw,
      chatBody({ stop: ['Noor de Vries', 'noor.devries@example.nl', '\n\n'], messages: [{ role: 'user', content: 'Schrijf een brief aan Noor de Vries, noor.devries@example.nl.' }] }),
      { 'x-request-id': 'side-doors-stop' },
    );
    expect(response.status).to.equal(200);
    const sent = gw.euA.requests[0]!.body;
    expectNone(JSON.stringify(sent), 'upstream');
    const content = sent.messages[0].content as string;
    const [person, email] = [content.match(/\[PERSON_\d+\]/)![0], content.match(/\[EMAIL_\d+\]/)![0]];
    expect(sent.stop).to.deep.equal([person, email, '\n\n']);
    expectNone(JSON.stringify((await traceOf('side-doors-stop')).input), 'trace');
  });

  it('refuses more text than the firewall scans for one request with a 413 in the error body, before anything leaves', async () => {
    const limit = gw.app.config.firewallMaxChars;
    const half = 'a '.repeat(Math.ceil(limit / 4));
    const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: half }, { role: 'user', content: [{ type: 'text', text: half }, { type: 'text', text: 'x' }] }] }));
    expect(response.status).to.equal(413);
    const body = (await response.json()) as any;
    expect(body.code).to.equal('payload_too_large');
    expect(body.message).to.contain(String(limit));
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'payload_too_large' });
    expect(gw.euA.requests).to.have.length(0);
  });

  it('counts every string as at least 16 characters, so a flood of one-letter parts is refused like a long text', async () => {
    const limit = gw.app.config.firewallMaxChars;
    const parts = Array.from({ length: Math.ceil(limit / 16) + 1 }, () => ({ type: 'text', text: 'x' }));
    const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: parts }] }));
    expect(response.status).to.equal(413);
    expect(((await response.json()) as any).message).to.contain('each string counts at least 16');
    expect(gw.euA.requests).to.have.length(0);
  });

  it('counts tool descriptions against the same bound', async () => {
    const limit = gw.app.config.firewallMaxChars;
    const description = 'b '.repeat(Math.ceil(limit / 2));
    const tools = [{ type: 'function', function: { name: 'long', description, parameters: { type: 'object', properties: {} } } }];
    const response = await postChat(gw, chatBody({ tools }));
    expect(response.status).to.equal(413);
    expect(((await response.json()) as any).message).to.contain('tool definitions');
    expect(gw.euA.requests).to.have.length(0);
  });
});
