import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// Credits are numeric(20, 8): the expected sums are added up in units of 1e-8, exactly, then
// turned into a number once, as the service must.
const UNIT = 100_000_000n;
const toUnits = (decimal: string): bigint => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole!) * UNIT + BigInt(fraction.padEnd(8, '0').slice(0, 8));
};
const fromUnits = (units: bigint): number => Number(`${units / UNIT}.${(units % UNIT).toString().padStart(8, '0')}`);

interface UsageRow {
  kind: string;
  model: string;
  created_at: Date;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  credits_base: string;
  credits_services: string;
  credits_total: string;
}

function expectedFigures(rows: UsageRow[]) {
  const sum = (pick: (row: UsageRow) => string) => fromUnits(rows.reduce((total, row) => total + toUnits(pick(row)), 0n));
  const tokens = (pick: (row: UsageRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    requests: rows.length,
    prompt_tokens: tokens((r) => r.prompt_tokens),
    completion_tokens: tokens((r) => r.completion_tokens),
    cached_tokens: tokens((r) => r.cached_tokens),
    cache_write_tokens: tokens((r) => r.cache_write_tokens),
    total_tokens: tokens((r) => r.prompt_tokens + r.completion_tokens),
    credits: { base: sum((r) => r.credits_base), services: sum((r) => r.credits_services), total: sum((r) => r.credits_total) },
  };
}

const DAY_MS = 86_400_000;
const utcDay = (date: Date) => date.toISOString().slice(0, 10);

describe('GET /v1/usage', () => {
  let gw: GatewayFixture;
  let scope: { organization_id: string; workspace_id: string };
  const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS);
  const twoDaysAgoLate = new Date(`${utcDay(twoDaysAgo)}T23:59:59.500Z`);
  const fortyDaysAgo = new Date(Date.now() - 40 * DAY_MS);

  const insertUsage = (
    target: { organization_id: string; workspace_id: string },
    row: { request_id: string; kind: string; model: string; prompt: number; base: string; services: string; total: string; at: Date },
  ) =>
    gw.app.db.pool.query(
      `insert into usage (organization_id, workspace_id, request_id, kind, model, provider, prompt_tokens, completion_tokens,
                          cached_tokens, credits_base, credits_services, credits_total, created_at)
       values ($1, $2, $3, $4, $5, 'local', $6, 0, 0, $7, $8, $9, $10)`,
      [target.organization_id, target.workspace_id, row.request_id, row.kind, row.model, row.prompt, row.base, row.services, row.total, row.at],
    );

  const rowsOf = async (workspaceId: string): Promise<UsageRow[]> =>
    (await gw.app.db.pool.query<UsageRow>('select * from usage where workspace_id = $1', [workspaceId])).rows;

  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
    const created = await gw.app.key({ org: 'acme', workspace: 'main' });
    scope = created;
    const other = await gw.app.key({ org: 'acme', workspace: 'other' });

    // A scripted mix: chat on the built-in model and on stub providers, a cache hit, embeddings.
    const chats = [
      chatBody({ model: 'local/echo' }),
      chatBody({ model: 'local/echo', messages: [{ role: 'user', content: 'Mijn e-mail is jan@voorbeeld.nl' }] }),
      chatBody({ model: 'test/chat-a' }),
      chatBody({ model: 'test/chat-b' }),
    ];
    for (const body of chats) expect((await postChat(gw, body, {}, created.key)).status).to.equal(200);
    expect((await postChat(gw, chats[2]!, {}, created.key)).headers.get('x-cache')).to.equal('HIT');
    for (const input of ['een', ['twee', 'drie vier']]) {
      const response = await api(gw.app.baseUrl, '/v1/embeddings', { method: 'POST', key: created.key, body: { model: 'local/embed-1024', input } });
      expect(response.status).to.equal(200);
    }
    // The ingest pipeline bills through the same table; its rows are written directly here so
    // this test does not depend on it.
    await insertUsage(scope, { request_id: 'ingest-1', kind: 'ingest', model: 'local/embed-1024', prompt: 1234, base: '0.01234', services: '0.06', total: '0.07234', at: new Date() });
    await insertUsage(scope, { request_id: 'old-chat', kind: 'chat', model: 'local/echo', prompt: 10, base: '0.0001', services: '0', total: '0.0001', at: twoDaysAgoLate });
    await insertUsage(scope, { request_id: 'old-ingest', kind: 'ingest', model: 'local/embed-1024', prompt: 7, base: '0.00000007', services: '0.02', total: '0.02000007', at: twoDaysAgo });
    await insertUsage(scope, { request_id: 'ancient', kind: 'chat', model: 'local/echo', prompt: 99, base: '1', services: '0', total: '1', at: fortyDaysAgo });
    // Another workspace's usage never shows.
    await insertUsage(other, { request_id: 'elsewhere', kind: 'chat', model: 'local/echo', prompt: 5, base: '5', services: '0', total: '5', at: new Date() });
    await waitFor(async () => (await rowsOf(scope.workspace_id)).length === 11, { what: 'every usage row' });
  });
  after(async () => {
    await gw.close();
  });

  const recent = async () => (await rowsOf(scope.workspace_id)).filter((r) => r.created_at.getTime() > Date.now() - 30 * DAY_MS);

  it('sums the last 30 days by kind, with embeddings and ingest as lines of their own', async () => {
    const response = await api(gw.app.baseUrl, '/v1/usage?group_by=kind', { key: gw.key });
    expect(response.status).to.equal(200);
    const rows = await recent();
    expect(response.body.group_by).to.equal('kind');
    expect(response.body.data.map((r: any) => r.key)).to.deep.equal(['chat', 'embeddings', 'ingest']);
    for (const line of response.body.data) {
      expect(line).to.deep.equal({ key: line.key, ...expectedFigures(rows.filter((r) => r.kind === line.key)) });
    }
    expect(response.body.total).to.deep.equal(expectedFigures(rows));
    const chat = response.body.data[0];
    expect(chat.requests).to.equal(6);
    expect(chat.cached_tokens).to.be.above(0);
    expect(chat.credits.services).to.be.above(0);
    // The default period: 30 whole UTC days up to the end of today.
    const to = new Date(response.body.to);
    expect(to.toISOString()).to.match(/T00:00:00\.000Z$/);
    expect(to.getTime() - new Date(response.body.from).getTime()).to.equal(30 * DAY_MS);
  });

  it('groups by UTC day, each day split by kind', async () => {
    const response = await api(gw.app.baseUrl, '/v1/usage', { key: gw.key });
    expect(response.body.group_by).to.equal('day');
    const rows = await recent();
    const days = [...new Set(rows.map((r) => utcDay(r.created_at)))].sort();
    expect(response.body.data.map((r: any) => r.key)).to.deep.equal(days);
    expect(days).to.include(utcDay(twoDaysAgo));
    for (const line of response.body.data) {
      const ofDay = rows.filter((r) => utcDay(r.created_at) === line.key);
      const { kinds, ...figures } = line;
      expect(figures).to.deep.equal({ key: line.key, ...expectedFigures(ofDay) });
      expect(Object.keys(kinds).sort()).to.deep.equal([...new Set(ofDay.map((r) => r.kind))].sort());
      for (const [kind, split] of Object.entries(kinds)) expect(split).to.deep.equal(expectedFigures(ofDay.filter((r) => r.kind === kind)));
    }
    expect(response.body.total).to.deep.equal(expectedFigures(rows));
  });

  it('groups by model, separating embeddings from ingest of the same model', async () => {
    const response = await api(gw.app.baseUrl, '/v1/usage?group_by=model', { key: gw.key });
    const rows = await recent();
    expect(response.body.data.map((r: any) => r.key)).to.deep.equal(['local/echo', 'local/embed-1024', 'test/chat-a', 'test/chat-b']);
    const embed = response.body.data.find((r: any) => r.key === 'local/embed-1024');
    const ofModel = rows.filter((r) => r.model === 'local/embed-1024');
    expect(embed.credits).to.deep.equal(expectedFigures(ofModel).credits);
    expect(embed.kinds.embeddings).to.deep.equal(expectedFigures(ofModel.filter((r) => r.kind === 'embeddings')));
    expect(embed.kinds.ingest).to.deep.equal(expectedFigures(ofModel.filter((r) => r.kind === 'ingest')));
  });

  it('takes dates and date-times for from (inclusive) and to (exclusive)', async () => {
    const day = utcDay(twoDaysAgo);
    const next = utcDay(new Date(twoDaysAgo.getTime() + DAY_MS));
    const response = await api(gw.app.baseUrl, `/v1/usage?group_by=kind&from=${day}&to=${next}`, { key: gw.key });
    expect(response.status).to.equal(200);
    expect(response.body.from).to.equal(`${day}T00:00:00.000Z`);
    expect(response.body.data.map((r: any) => [r.key, r.requests])).to.deep.equal([['chat', 1], ['ingest', 1]]);
    expect(response.body.total.credits.total).to.equal(0.02010007);

    const cut = await api(gw.app.baseUrl, `/v1/usage?group_by=kind&from=${day}T23:59:59Z&to=${next}T00:00:00%2B00:00`, { key: gw.key });
    expect(cut.body.data.map((r: any) => r.key)).to.deep.equal(['chat']);

    const old = await api(gw.app.baseUrl, `/v1/usage?group_by=kind&from=${utcDay(fortyDaysAgo)}`, { key: gw.key });
    expect(old.body.total.requests).to.equal(11);
  });

  it('answers an empty period with zero totals', async () => {
    const response = await api(gw.app.baseUrl, '/v1/usage?from=2001-01-01&to=2001-02-01', { key: gw.key });
    expect(response.status).to.equal(200);
    expect(response.body.data).to.deep.equal([]);
    expect(response.body.total).to.deep.equal({
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      total_tokens: 0,
      credits: { base: 0, services: 0, total: 0 },
    });
  });

  it('keeps the bounds it answers ISO 8601 dates at the ends of the calendar', async () => {
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    for (const query of ['from=9999-12-31', 'to=0000-01-15', 'from=9999-12-31T12:00:00Z']) {
      const response = await api(gw.app.baseUrl, `/v1/usage?${query}`, { key: gw.key });
      expect(response.status, query).to.equal(200);
      expect(response.body.from, query).to.match(iso);
      expect(response.body.to, query).to.match(iso);
      expect(response.body.total.requests).to.equal(0);
    }
  });

  it('refuses impossible dates, a reversed period and unknown groupings with 422', async () => {
    for (const [query, field] of [
      ['from=2025-02-30', 'from'],
      ['to=2025-01-01T25:00', 'to'],
      ['from=2025-02-01&to=2025-01-01', 'to'],
      ['from=yesterday', 'from'],
      ['group_by=week', 'group_by'],
    ] as const) {
      const response = await api(gw.app.baseUrl, `/v1/usage?${query}`, { key: gw.key });
      expect(response.status, query).to.equal(422);
      expect(response.body.errors, query).to.have.property(field);
    }
  });

  it('needs usage.read', async () => {
    const without = await gw.app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create', 'traces.read'] });
    const refused = await api(gw.app.baseUrl, '/v1/usage', { key: without.key });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('insufficient_scope');
    const reader = await gw.app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['usage.read'] });
    expect((await api(gw.app.baseUrl, '/v1/usage', { key: reader.key })).status).to.equal(200);
  });

  it("shows another workspace only its own usage", async () => {
    const other = await gw.app.key({ org: 'acme', workspace: 'other', kind: 'restricted', scopes: ['usage.read'] });
    const response = await api(gw.app.baseUrl, '/v1/usage?group_by=kind', { key: other.key });
    expect(response.body.data).to.deep.equal([{ key: 'chat', ...expectedFigures(await rowsOf(other.workspace_id)) }]);
    expect(response.body.total.credits.total).to.equal(5);
  });
});
