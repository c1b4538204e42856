import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { errorMiddleware } from '../../src/errors.js';
import { jsonBody } from '../../src/http/middleware/body.js';
import { MAX_JSON_ELEMENTS, MAX_JSON_KEYS, MAX_JSON_KEYS_PER_OBJECT } from '../../src/jsonDepth.js';
import { requestContext } from '../../src/http/middleware/requestContext.js';
import type { AppState } from '../../src/http/state.js';
import { Validator } from '../../src/http/validation.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';

// The request pipeline's own middleware (request context, error handling, body limit, JSON
// parsing, schema validation against the generated schemas), mounted on routes of this test.
describe('http/validation and body parsing', () => {
  const limit = 64 * 1024;
  const logs = capturedLogger();
  const validator = new Validator();
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestContext(logs.log));
    app.use(errorMiddleware);
    const router = new Router<AppState>();
    for (const schema of ['ChatCompletionRequest', 'EmbeddingRequest', 'DocumentIngestRequest']) {
      router.post(`/${schema}`, jsonBody(limit), validator.body(schema), (ctx) => {
        ctx.body = { ok: true, body: ctx.state.body };
      });
    }
    router.post('/wide', jsonBody(20 * 1024 * 1024), (ctx) => {
      ctx.body = { ok: true };
    });
    router.get('/boom', () => {
      throw new Error('relation "secret_table" does not exist at select * from secret_table');
    });
    app.use(router.routes());
    server = createServer(app.callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const chat = (extra: Record<string, unknown>) => ({
    model: 'local/echo',
    messages: [{ role: 'user', content: 'Hallo' }],
    ...extra,
  });

  async function expect422(schema: string, body: unknown, fields: string[]) {
    const response = await api(baseUrl, `/${schema}`, { method: 'POST', body });
    expect(response.status, JSON.stringify(response.body)).to.equal(422);
    expect(response.body.message).to.be.a('string');
    expect(Object.keys(response.body.errors)).to.have.members(fields);
    for (const field of fields) expect(response.body.errors[field]).to.be.an('array').that.is.not.empty;
    expect(response.body.error.type).to.equal('invalid_request_error');
    expect(fields).to.include(response.body.error.param);
    return response.body.errors as Record<string, string[]>;
  }

  it('accepts a valid chat body and keeps unknown chat fields out of the errors', async () => {
    const body = chat({ messages: [{ role: 'assistant', content: 'x', refusal: null }, { role: 'user', content: 'y' }] });
    const response = await api(baseUrl, '/ChatCompletionRequest', { method: 'POST', body });
    expect(response.status).to.equal(200);
  });

  it('names a bad role by its dotted path', async () => {
    const errors = await expect422('ChatCompletionRequest', chat({ messages: [{ role: 'robot', content: 'hi' }] }), [
      'messages.0.role',
    ]);
    expect(errors['messages.0.role']![0]).to.contain('"user"');
  });

  it('names a missing nested field by its dotted path', async () => {
    await expect422('ChatCompletionRequest', chat({ messages: [{ role: 'user', content: 'a' }, { content: 'b' }] }), [
      'messages.1.role',
    ]);
  });

  it('reports several bounds at once', async () => {
    await expect422(
      'ChatCompletionRequest',
      chat({ messages: [], top_p: 2, tags: Array.from({ length: 11 }, (_, i) => `t${i}`), name: 'n'.repeat(121) }),
      ['messages', 'top_p', 'tags', 'name'],
    );
  });

  it('bounds the lists and maps a caller could make as long as the body allows: a chain, provider lists, logit_bias', async () => {
    // QA: 100,000 models, 100,000 provider names and 200,000 biased tokens were each answered 200.
    const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    await expect422(
      'ChatCompletionRequest',
      {
        models: many(33, 'vendor/m'),
        messages: [{ role: 'user', content: 'Hallo' }],
        provider: { order: many(65, 'p'), only: many(65, 'p'), ignore: many(65, 'p') },
        logit_bias: Object.fromEntries(many(1025, '').map((token) => [token, 1])),
      },
      ['models', 'provider.order', 'provider.only', 'provider.ignore', 'logit_bias'],
    );
  });

  it('names an entry inside a map and inside an array', async () => {
    await expect422(
      'ChatCompletionRequest',
      chat({ logit_bias: { '50256': 101 }, tags: ['ok', 't'.repeat(65)], provider: { order: 'mistral' } }),
      ['logit_bias.50256', 'tags.1', 'provider.order'],
    );
  });

  it('says once what is wrong with a key of a map, naming the key', async () => {
    const errors = await expect422('ChatCompletionRequest', chat({ logit_bias: { __proto__x: 5 } }), ['logit_bias']);
    expect(errors.logit_bias).to.deep.equal(['key "__proto__x" must match pattern "^[0-9]{1,9}$"']);
  });

  it('explains a union field with the types it accepts', async () => {
    const errors = await expect422('ChatCompletionRequest', chat({ stop: 5 }), ['stop']);
    expect(errors.stop!.join(' ')).to.match(/string/).and.match(/array/);
  });

  it('refuses base64 embeddings and empty inputs with their paths', async () => {
    await expect422('EmbeddingRequest', { model: 'local/embed-1024', input: ['a', ''], encoding_format: 'base64' }, [
      'input.1',
      'encoding_format',
    ]);
  });

  it('refuses unknown top-level fields outside chat, and missing required ones', async () => {
    await expect422('DocumentIngestRequest', { title: 't'.repeat(256), collection: 'c', colour: 'red' }, [
      'title',
      'text',
      'colour',
    ]);
  });

  it('bounds token caps, n and seed to what a provider can read as integers', async () => {
    await expect422('ChatCompletionRequest', chat({ max_tokens: 1e300, max_completion_tokens: 2 ** 31, n: 1e20, seed: 2 ** 60 }), [
      'max_tokens',
      'max_completion_tokens',
      'n',
      'seed',
    ]);
  });

  it('names fields called like Object’s own properties as unknown fields, not a 500', async () => {
    for (const field of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const raw = `{"model":"local/embed-1024","input":"x",${JSON.stringify(field)}:{}}`;
      const response = await api(baseUrl, '/EmbeddingRequest', { method: 'POST', raw });
      expect(response.status, raw).to.equal(422);
      expect(response.body.errors[field]).to.deep.equal(['is not a known field']);
    }
  });

  it('answers 413 for a body over the limit', async () => {
    const response = await api(baseUrl, '/ChatCompletionRequest', {
      method: 'POST',
      raw: JSON.stringify(chat({ messages: [{ role: 'user', content: 'x'.repeat(limit) }] })),
    });
    expect(response.status).to.equal(413);
    expect(response.body.message).to.contain(String(limit));
  });

  it('answers 413, before parsing, for a body within the byte limit that holds more values than a request takes', async () => {
    // QA: ten bodies of ~17 MB holding an object of 400,000 keys held the process for 5 s in JSON.parse.
    const members = (n: number, prefix = 'k') => `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}":1`).join(',')}}`;
    const post = (raw: string) => api(baseUrl, '/wide', { method: 'POST', raw });
    for (const [raw, says] of [
      [`{"metadata":${members(MAX_JSON_KEYS_PER_OBJECT + 1)}}`, `an object of more than ${MAX_JSON_KEYS_PER_OBJECT} members`],
      [`{"parts":[${Array.from({ length: MAX_JSON_KEYS / 2 + 1 }, () => '{"type":"text","text":"x"}').join(',')}]}`, `more than ${MAX_JSON_KEYS} object members in all`],
      [`{"input":[${'0,'.repeat(MAX_JSON_ELEMENTS + 1)}0]}`, `more than ${MAX_JSON_ELEMENTS} values`],
    ] as const) {
      const response = await post(raw);
      expect(response.status, says).to.equal(413);
      expect(response.body.message).to.contain(says);
      expect(response.body.error).to.include({ type: 'invalid_request_error', code: 'payload_too_large' });
    }
    // At the bounds, and with colons, commas and quotes inside strings (not counted), it is read.
    const atBounds = `{"metadata":${members(MAX_JSON_KEYS_PER_OBJECT)},"input":[${'0,'.repeat(MAX_JSON_ELEMENTS - MAX_JSON_KEYS_PER_OBJECT - 2)}0],"text":${JSON.stringify(':,\\"{['.repeat(300_000))}}`;
    expect((await post(atBounds)).status).to.equal(200);
  });

  it('answers 413 for a chunked upload that crosses the limit, without reading the rest of it', async () => {
    const request = httpRequest(`${baseUrl}/ChatCompletionRequest`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const answered = once(request, 'response') as Promise<[IncomingMessage]>;
    request.on('error', () => undefined);
    // No content-length: the limit can only be noticed while reading. Well past it, the client keeps sending.
    const chunk = Buffer.alloc(16 * 1024, 'x');
    request.write('{"model":"local/echo","messages":[{"role":"user","content":"');
    for (let sent = 0; sent <= limit + chunk.length; sent += chunk.length) request.write(chunk);
    const [response] = await answered;
    const text = (await response.toArray()).join('');
    expect(response.statusCode).to.equal(413);
    expect(response.headers.connection).to.equal('close');
    expect(JSON.parse(text).message).to.contain(String(limit));
    request.destroy();
  });

  it('reads a gzip, deflate or br body within the limit, and refuses with a 400 (the contract answers so a body that is not JSON) a body it would misread', async () => {
    const json = Buffer.from(JSON.stringify(chat({ messages: [{ role: 'user', content: 'Café Zoë' }] })));
    const post = (body: Buffer, headers: Record<string, string>) =>
      fetch(`${baseUrl}/ChatCompletionRequest`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
    for (const [encoding, pack] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
      const response = await post(pack(json), { 'content-encoding': encoding });
      expect(response.status, encoding).to.equal(200);
      expect(((await response.json()) as any).body.messages[0].content).to.equal('Café Zoë');
    }
    // Small on the wire, past the limit once unpacked: a 413, never the whole of it in memory.
    const bomb = await post(gzipSync(Buffer.alloc(limit * 20, ' ')), { 'content-encoding': 'gzip' });
    expect(bomb.status).to.equal(413);
    const refusals: [Record<string, string>, RegExp][] = [
      [{ 'content-encoding': 'compress' }, /Content-Encoding compress is not taken/],
      [{ 'content-type': 'application/json; charset=latin1' }, /must be UTF-8; charset=latin1/],
      [{ 'content-type': 'multipart/form-data; boundary=x' }, /form and file uploads are not taken/],
    ];
    for (const [headers, message] of refusals) {
      const response = await post(json, headers);
      expect(response.status, JSON.stringify(headers)).to.equal(400);
      const body = (await response.json()) as any;
      expect(body.message).to.match(message);
      expect(body.error).to.include({ type: 'invalid_request_error', code: 'unsupported_media_type' });
    }
    expect((await post(json, { 'content-type': 'application/json; charset=UTF-8' })).status).to.equal(200);
  });

  it('answers 400 for a body that is not UTF-8, rather than storing U+FFFD in place of its letters', async () => {
    const latin1 = Buffer.from('{"model":"x","messages":[{"role":"user","content":"Ik woon in K\xf6ln en heet J\xfcrgen"}]}', 'latin1');
    const response = await fetch(`${baseUrl}/ChatCompletionRequest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(latin1) });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as any;
    expect(body.message).to.match(/not valid UTF-8/);
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('reads a body that begins with a byte order mark, as RFC 8259 allows', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"model":"x","messages":[{"role":"user","content":"Hallo"}]}')]);
    const response = await fetch(`${baseUrl}/ChatCompletionRequest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(withBom) });
    expect(response.status, await response.text()).to.equal(200);
  });

  it('counts a client that goes away mid-upload as 499, not as a fault of the service', async () => {
    const { port } = new URL(baseUrl);
    const { connect } = await import('node:net');
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const handled = once(server, 'request');
    socket.write('POST /ChatCompletionRequest HTTP/1.1\r\nHost: x\r\nX-Request-Id: upload-abort-1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":');
    await handled;
    socket.destroy();
    await waitFor(async () => logs.lines().some((l) => l.request_id === 'upload-abort-1' && l.msg === 'request'), { what: 'the access log line' });
    const lines = logs.lines().filter((l) => l.request_id === 'upload-abort-1');
    expect(lines.map((l) => l.level)).not.to.include(50);
    expect(lines.find((l) => l.msg === 'request')).to.include({ status: 499 });
  });

  it('answers 400 for malformed JSON and for an empty body', async () => {
    const broken = await api(baseUrl, '/ChatCompletionRequest', { method: 'POST', raw: '{"model": "x",' });
    expect(broken.status).to.equal(400);
    expect(broken.body.message).to.match(/not valid JSON/);
    expect(broken.body.error).to.include({ type: 'invalid_request_error' });
    const empty = await api(baseUrl, '/ChatCompletionRequest', { method: 'POST', raw: '' });
    expect(empty.status).to.equal(400);
  });

  it('answers an unexpected fault with a bare 500 and logs the cause', async () => {
    const response = await api(baseUrl, '/boom', { headers: { 'x-request-id': 'boom-1' } });
    expect(response.status).to.equal(500);
    expect(response.body).to.deep.include({ message: 'internal error', request_id: 'boom-1' });
    expect(response.text).not.to.contain('secret_table');
    expect(response.text).not.to.match(/at .*\.js/);
    const logged = logs.lines().find((l) => l.request_id === 'boom-1' && l.msg === 'unhandled error');
    expect(JSON.stringify(logged)).to.contain('secret_table');
  });
});
