import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { createCollection, ingest, prose, settled } from '../memory/documentsFixture.js';
import { startWebhookReceiver } from '../helpers/webhookReceiver.js';
import { Webhook } from 'standardwebhooks';
import { DESKTOP, launchChromium, openPage, PHONE, screenshot, type Watched, signIn as signInAt, visit } from './browser.js';

// The console in real headless Chromium, against a real app and worker on loopback, with data
// made through the public APIs the way Noor's app, Joost and Sofie would make it.

const EMAIL = 'jan.jansen@voorbeeld.nl';

describe('the console in a browser', function () {
  this.timeout(60_000);

  let gw: GatewayFixture;
  let browser: Browser;
  let desktop: Watched;
  let page: Page;
  let base: string;

  const v1 = (path: string, options: Parameters<typeof api>[2] = {}) => api(gw.app.baseUrl, `/v1${path}`, { key: gw.key, ...options });

  const signIn = (p: Page, key: string) => signInAt(p, base, key);


  before(async function () {
    this.timeout(60_000);
    [gw, browser] = await Promise.all([startGatewayFixture({ env: { WEBHOOKS_ALLOW_HTTP: '1' } }), launchChromium()]);
    await gw.app.startWorker();
    base = gw.app.baseUrl;

    // Noor's assistant and a back-office tool call the gateway; the last Helpdesk call carries personal data.
    const chats: [Record<string, unknown>, Record<string, string>][] = [
      [{ model: 'local/echo', thread: 'conv-1', user: 'cust-42', tags: ['billing'], messages: [{ role: 'user', content: 'Wat is mijn eigen risico?' }] }, { 'x-application-name': 'Helpdesk' }],
      [{ model: 'local/echo', thread: 'conv-2', messages: [{ role: 'user', content: 'Exporteer de polissen van vandaag' }] }, { 'x-application-name': 'Backoffice' }],
      [{ model: 'test/chat-a', messages: [{ role: 'user', content: 'Vat de voorwaarden samen' }] }, {}],
      [
        {
          model: 'local/echo',
          thread: 'conv-1',
          user: 'cust-42',
          tags: ['billing', 'vip'],
          messages: [{ role: 'user', content: `Stuur de polis naar ${EMAIL} alstublieft, <script>alert(1)</script>` }],
        },
        { 'x-application-name': 'Helpdesk' },
      ],
    ];
    for (const [body, headers] of chats) {
      const response = await postChat(gw, body, headers);
      expect(response.status, await response.clone().text()).to.equal(200);
    }
    expect((await v1('/embeddings', { method: 'POST', body: { model: 'local/embed-1024', input: ['polisvoorwaarden', 'eigen risico'] } })).status).to.equal(200);
    const collection = await createCollection(gw.app, gw.key, 'Polissen');
    const document = await ingest(gw.app, gw.key, { title: 'Voorwaarden inboedel 2025', text: prose(3000), collection });
    expect((await settled(gw.app, gw.key, document)).status).to.equal('ready');
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'cust-42', content: 'I live in Delft. I am a teacher.' } })).status).to.equal(202);
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'cust-7', content: 'I have a dog.' } })).status).to.equal(202);

    await waitFor(async () => ((await v1('/recall/facts?user_ref=cust-42')).body.data.length >= 2 ? true : undefined), { what: 'the facts of cust-42' });
    await waitFor(async () => ((await v1('/recall/facts?user_ref=cust-7')).body.data.length >= 1 ? true : undefined), { what: 'the facts of cust-7' });
    await waitFor(async () => ((await v1('/traces?limit=100')).body.data.length >= 4 ? true : undefined), { what: 'four traces' });
    await waitFor(
      async () => {
        const kinds = (await v1('/usage?group_by=kind')).body.data.map((row: { key: string }) => row.key);
        return ['chat', 'embeddings', 'ingest'].every((k) => kinds.includes(k)) ? true : undefined;
      },
      { what: 'usage of every kind' },
    );
    desktop = await openPage(browser, DESKTOP);
    page = desktop.page;
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('is served with a strict content security policy and only its own files', async () => {
    const shell = await fetch(`${base}/console`);
    expect(shell.status).to.equal(200);
    expect(shell.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(shell.headers.get('content-security-policy')).to.include("default-src 'self'").and.include("script-src 'self'").and.include("frame-ancestors 'none'");
    expect(shell.headers.get('content-security-policy')).to.not.include('unsafe-inline');
    expect(shell.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(shell.headers.get('cache-control')).to.equal('no-cache');
    const html = await shell.text();
    expect(html).to.match(/<script type="module" src="\/console\/app\.js"><\/script>/);
    expect(html).to.not.match(/<script>|<script type="module">|\son[a-z]+=/i);

    const script = await fetch(`${base}/console/app.js`);
    expect(script.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    const etag = script.headers.get('etag')!;
    expect((await fetch(`${base}/console/app.js`, { headers: { 'if-none-match': etag } })).status).to.equal(304);
    expect((await fetch(`${base}/console/console.css`)).headers.get('content-type')).to.equal('text/css; charset=utf-8');
    for (const path of ['/console/..%2Fpackage.json', '/console/%2e%2e%2fpackage.json', '/console/../package.json', '/console/nope.js', '/console/public/app.js']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).to.equal(404);
      expect(await response.text(), path).to.not.include('"name": "polder"');
    }
  });

  it('signs in with an API key kept in the session only', async () => {
    await page.goto(`${base}/console`);
    await page.getByRole('heading', { name: 'Sign in to the Polder console' }).waitFor();
    await screenshot(page, 'sign-in-1280');
    await page.getByLabel('API key').fill('pld_notarealkeynotarealkeynotarealkeynotareal');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That key was refused' }).first().waitFor();

    await page.getByLabel('API key').fill(gw.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    const stored = await page.evaluate(() => ({ session: Object.values(sessionStorage), local: localStorage.length, cookie: document.cookie }));
    expect(stored).to.deep.equal({ session: [gw.key], local: 0, cookie: '' });
  });

  it('shows a usage chart with data, stacked by kind, and a table per model', async () => {
    await page.locator('svg.chart rect.bar').first().waitFor();
    const kinds = await page.locator('svg.chart rect.bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-kind')));
    // Every kind the API reports is drawn: fact extraction too (the facts above were extracted).
    const reported = (await v1('/usage?group_by=kind')).body.data.filter((row: { credits: { total: number } }) => row.credits.total > 0).map((row: { key: string }) => row.key);
    expect(reported).to.include.members(['chat', 'embeddings', 'ingest', 'facts']);
    expect(new Set(kinds)).to.deep.equal(new Set(reported));
    const heights = await page.locator('svg.chart rect.bar').evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('height'))));
    expect(Math.max(...heights)).to.be.above(20);
    expect(await page.locator('svg.chart').getAttribute('role')).to.equal('img');
    expect(await page.locator('svg.chart desc').textContent()).to.match(/credits over the last 30 days \(Chat .*, Embeddings .*, Ingest .*, Fact extraction .*\)/);
    const models = await page.getByRole('region', { name: 'Usage per model table', exact: true }).locator('tbody tr td:first-child').allTextContents();
    expect(models).to.include.members(['local/echo', 'test/chat-a', 'local/embed-1024']);
    await screenshot(page, 'usage-1280');
  });

  it('filters traces by application name', async () => {
    await visit(page, '#/traces', 'Traces');
    await page.getByRole('region', { name: 'Traces table', exact: true }).locator('tbody tr').nth(3).waitFor();
    await page.getByLabel('Application', { exact: true }).fill('Helpdesk');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: '2 traces with application “Helpdesk”' }).first().waitFor();
    expect(await page.evaluate(() => location.hash)).to.equal('#/traces?application=Helpdesk');
    const apps = await page.locator('td.col-application').allTextContents();
    expect(apps).to.deep.equal(['Helpdesk', 'Helpdesk']);
    await screenshot(page, 'traces-1280');
  });

  it('shows a trace with attempts, timings and masked input, and records a score', async () => {
    const first = page.locator('a[data-trace-id]').first();
    const traceId = (await first.getAttribute('data-trace-id'))!;
    await first.click();
    await page.getByRole('heading', { level: 1, name: /^Trace/ }).waitFor();
    const attempts = page.getByRole('region', { name: 'Attempts table', exact: true });
    await attempts.locator('tbody tr').first().waitFor();
    expect(await attempts.locator('tbody tr td').nth(2).textContent()).to.equal('local');
    expect(await page.locator('svg.timing').count()).to.be.at.least(1);
    const input = (await page.locator('section', { has: page.getByRole('heading', { name: 'Input' }) }).textContent())!;
    expect(input).to.include('Stuur de polis naar');
    expect(input).to.not.include(EMAIL);
    // The caller's text is shown as text, never parsed as markup.
    expect(input).to.include('<script>alert(1)</script>');
    expect(await page.locator('main script').count()).to.equal(0);

    await page.getByLabel('Score name').fill('helpful');
    await page.getByLabel('Value', { exact: true }).fill('1');
    await page.getByLabel('Comment (optional)').fill('Clear answer');
    await page.getByRole('button', { name: 'Add score' }).click();
    await page.getByRole('region', { name: 'Scores table', exact: true }).locator('tbody tr td', { hasText: 'helpful' }).waitFor();
    const scores = await v1(`/scores?trace_id=${encodeURIComponent(traceId)}`);
    expect(scores.body.data).to.have.length(1);
    expect(scores.body.data[0]).to.include({ name: 'helpful', value: 1, comment: 'Clear answer' });
    // The raw trace shows it too, as the API now answers the trace.
    expect(JSON.parse((await page.locator('pre.raw').textContent())!).scores.map((s: { name: string }) => s.name)).to.deep.equal(['helpful']);
    await screenshot(page, 'trace-detail-1280');
  });

  it('records and withdraws the non-EU acceptance, and both show in the audit log', async () => {
    await visit(page, '#/settings', 'Router settings');
    const section = page.locator('section.acceptance');
    await section.waitFor();
    expect(await section.getAttribute('data-accepted')).to.equal('false');
    expect(await section.textContent()).to.include('Not accepted: nothing leaves the EU');

    // Escape cancels the confirmation and changes nothing.
    await page.getByRole('button', { name: 'Record acceptance…' }).click();
    await page.getByRole('dialog', { name: 'Record the non-EU acceptance?' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await v1('/settings/router')).body.non_eu_acceptance.accepted).to.equal(false);

    await page.getByRole('button', { name: 'Record acceptance…' }).click();
    const record = page.getByRole('dialog', { name: 'Record the non-EU acceptance?' });
    await record.getByLabel(/I have read what the acceptance allows/).check();
    await screenshot(page, 'settings-confirm-1280', { viewport: true });
    await record.getByRole('button', { name: 'Record acceptance' }).click();
    await page.locator('section.acceptance[data-accepted="true"]').waitFor();
    expect((await v1('/settings/router')).body.non_eu_acceptance.accepted).to.equal(true);
    expect(await page.locator('section.acceptance .statement').textContent()).to.match(/^Accepted on /);
    await screenshot(page, 'settings-1280');

    await page.getByRole('button', { name: 'Withdraw acceptance…' }).click();
    await page.getByRole('dialog', { name: 'Withdraw the non-EU acceptance?' }).getByRole('button', { name: 'Withdraw acceptance' }).click();
    await page.locator('section.acceptance[data-accepted="false"]').waitFor();
    expect((await v1('/settings/router')).body.non_eu_acceptance.accepted).to.equal(false);

    // Audit entries are written by a job: wait for them, then read them on the page.
    await waitFor(
      async () => {
        const actions = (await v1('/audit-log?limit=100')).body.data.map((e: { action: string }) => e.action);
        return actions.includes('non_eu_acceptance.recorded') && actions.includes('non_eu_acceptance.withdrawn') ? true : undefined;
      },
      { what: 'the acceptance audit entries' },
    );
    await visit(page, '#/audit', 'Audit log');
    await page.locator('code.audit-action').first().waitFor();
    const actions = await page.locator('code.audit-action').allTextContents();
    expect(actions).to.include.members(['non_eu_acceptance.recorded', 'non_eu_acceptance.withdrawn', 'chat.completion', 'score.created']);
    expect(actions.indexOf('non_eu_acceptance.withdrawn')).to.be.below(actions.indexOf('non_eu_acceptance.recorded'));
    await page.getByLabel('Action', { exact: true }).selectOption('non_eu_acceptance.recorded');
    await page.getByRole('status').filter({ hasText: '1 entry' }).first().waitFor();
    expect(await page.locator('code.audit-action').allTextContents()).to.deep.equal(['non_eu_acceptance.recorded']);
    await page.getByLabel('Action', { exact: true }).selectOption('');
    await page.getByRole('status').filter({ hasText: /entries/ }).first().waitFor();
    await screenshot(page, 'audit-1280');
  });

  it('lists collections and documents, and erases an end-user after a confirmation', async () => {
    await visit(page, '#/memory', 'Memory');
    await page.getByRole('region', { name: 'Collections table', exact: true }).getByRole('cell', { name: 'Polissen', exact: true }).waitFor();
    await page.getByRole('region', { name: 'Documents table', exact: true }).locator('[data-status="ready"]').waitFor();
    const held = (await v1('/recall/facts?user_ref=cust-42')).body.data.length as number;
    expect(held).to.be.at.least(2);
    await page.getByLabel('End-user reference (user_ref)').fill('cust-42');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator(`[data-fact-count="${held}"]`).waitFor();
    expect(await page.getByRole('region', { name: 'Facts about cust-42 table', exact: true }).locator('tbody tr').count()).to.equal(held);
    await screenshot(page, 'memory-1280');

    await page.getByRole('button', { name: 'Erase end-user…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase everything about “cust-42”?' });
    await dialog.waitFor();
    // Focus starts on Cancel: Enter alone never erases.
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Cancel');
    await screenshot(page, 'memory-confirm-1280', { viewport: true });
    await dialog.getByRole('button', { name: 'Erase end-user' }).click();
    await page.getByRole('status').filter({ hasText: 'Erased everything held about “cust-42”:' }).first().waitFor();
    expect(await page.locator('[data-erased] li[data-store="facts"]').textContent()).to.equal(`${held} facts`);
    await page.locator('[data-fact-count="0"]').waitFor();
    expect((await v1('/recall/facts?user_ref=cust-42')).body.data).to.deep.equal([]);
    await screenshot(page, 'memory-erased-1280');

    // One fact forgotten, after its own confirmation; the other end-user keeps the rest.
    const before = (await v1('/recall/facts?user_ref=cust-7')).body.data as { id: string; content: string }[];
    await page.getByLabel('End-user reference (user_ref)').fill('cust-7');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator(`[data-fact-count="${before.length}"]`).waitFor();
    await page.getByRole('button', { name: `Forget the fact: ${before[0]!.content}` }).click();
    await page.getByRole('dialog', { name: 'Forget this fact?' }).getByRole('button', { name: 'Forget fact' }).click();
    await page.locator(`[data-fact-count="${before.length - 1}"]`).waitFor();
    expect((await v1('/recall/facts?user_ref=cust-7')).body.data.map((f: { id: string }) => f.id)).to.not.include(before[0]!.id);
  });

  it('creates a key with its secret shown once, edits its rate limit and revokes it', async () => {
    await desktop.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await visit(page, '#/keys', 'API keys');
    const keys = page.getByRole('region', { name: 'API keys table', exact: true });
    await keys.locator('tbody tr').first().waitFor();
    await screenshot(page, 'keys-1280');

    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Name', { exact: true }).fill('Helpdesk bot');
    await form.getByLabel('Workspace', { exact: true }).fill('main');
    await form.getByLabel('Kind').selectOption('restricted');
    await form.getByLabel(/^chat\.create/).check();
    await form.getByLabel(/^memory\.read/).check();
    await form.getByLabel('Requests per minute').fill('60');
    await form.getByLabel('Credits per day (UTC)').fill('2.5');
    await form.getByRole('button', { name: 'Create key' }).click();

    const dialog = page.getByRole('dialog', { name: 'Copy the new key now' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('New API key').inputValue();
    expect(secret).to.match(/^pld_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(secret);
    await screenshot(page, 'keys-secret-1280', { viewport: true });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The key works at once, with exactly its scopes and limits; the secret is never shown again.
    // (With a cap on the answer: without one, the worst case reserved is local/echo's whole context, past 2.5 credits.)
    const chat = await postChat(gw, { model: 'local/echo', max_tokens: 64, messages: [{ role: 'user', content: 'Hallo' }] }, {}, secret);
    expect(chat.status, await chat.clone().text()).to.equal(200);
    const row = keys.locator('tr', { has: page.locator('.key-name', { hasText: 'Helpdesk bot' }) });
    await row.waitFor();
    expect(await page.content()).to.not.include(secret);
    expect(await row.locator('code').first().textContent()).to.equal(`${secret.slice(0, 10)}…${secret.slice(-4)}`);
    expect(await row.locator('[data-limit]').allTextContents()).to.deep.equal(['60 req/min', '2.5 credits/day']);
    expect(await row.locator('.tag').allTextContents()).to.deep.equal(['chat.create', 'memory.read']);
    const created = (await v1('/keys')).body.data.find((k: { name: string }) => k.name === 'Helpdesk bot');
    expect(created.limits).to.deep.equal({ requests_per_minute: 60, tokens_per_minute: null, credits_per_day: 2.5, credits_per_month: null });

    await row.getByRole('button', { name: 'Edit Helpdesk bot' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit “Helpdesk bot”' });
    await edit.getByLabel('Requests per minute').fill('1.5');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByRole('alert').filter({ hasText: 'Requests per minute: enter a whole number' }).waitFor();
    await edit.getByLabel('Requests per minute').fill('120');
    await screenshot(page, 'keys-edit-1280', { viewport: true });
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.locator('[data-limit="requests_per_minute"]', { hasText: '120 req/min' }).waitFor();
    expect((await v1(`/keys/${created.id}`)).body.data.limits.requests_per_minute).to.equal(120);

    await row.getByRole('button', { name: 'Revoke Helpdesk bot…' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke “Helpdesk bot”?' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Cancel');
    await revoke.getByRole('button', { name: 'Revoke key' }).click();
    await row.locator('[data-state="revoked"]').waitFor();
    expect(await row.getByRole('button', { name: 'Revoke Helpdesk bot…' }).count()).to.equal(0);
    expect((await api(base, '/v1/models', { key: secret })).status).to.equal(401);

    const actions = (await v1('/audit-log?limit=100')).body.data
      .filter((e: { target: string }) => e.target === created.id)
      .map((e: { action: string }) => e.action);
    expect(actions).to.deep.equal(['api_key.revoked', 'api_key.updated', 'api_key.created']);
  });

  it('adds a webhook endpoint with its secret shown once, sends a test event, shows the deliveries and re-sends one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      await visit(page, '#/webhooks', 'Webhooks');
      const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
      await form.getByLabel('URL', { exact: true }).fill(receiver.url);
      await form.getByLabel('Description (optional)').fill('CRM sync');
      await form.getByLabel(/^memory\.erased/).check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Copy the signing secret now' });
      await dialog.waitFor();
      const secret = await dialog.getByLabel('Signing secret').inputValue();
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
      await screenshot(page, 'webhooks-secret-1280', { viewport: true });
      await dialog.getByRole('button', { name: 'Done' }).click();
      await dialog.waitFor({ state: 'detached' });

      const endpoints = page.getByRole('region', { name: 'Webhook endpoints table', exact: true });
      const link = endpoints.getByRole('link', { name: receiver.url });
      await link.waitFor();
      expect(await page.content()).to.not.include(secret);
      const [created] = (await v1('/webhooks')).body.data;
      expect(created).to.include({ url: receiver.url, description: 'CRM sync' });
      expect(created.events).to.deep.equal(['document.ready', 'document.failed', 'memory.erased']);
      await screenshot(page, 'webhooks-1280');

      await link.click();
      await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
      receiver.script({ type: 'status', status: 500, body: 'not now' });
      await page.getByRole('button', { name: 'Send test event' }).click();
      const deliveries = page.getByRole('region', { name: 'Deliveries table', exact: true });
      const row = deliveries.locator('tbody tr').first();
      await row.locator('code', { hasText: 'webhook.test' }).waitFor();
      // The first attempt meets the 500; the worker retries after about 5 s. Refresh until the row says so.
      await waitFor(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await deliveries.waitFor();
          const state = await deliveries.locator('tbody tr').first().locator('[data-state]').getAttribute('data-state');
          return state === 'delivered' ? true : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 500, what: 'the test delivery to show delivered' },
      );
      const delivered = deliveries.locator('tbody tr').first();
      expect(await delivered.locator('td[data-label="Attempts"]').textContent()).to.equal('2');
      expect(await delivered.locator('td[data-label="Last answer"]').textContent()).to.equal('200');
      await screenshot(page, 'webhook-deliveries-1280');
      const event = new Webhook(secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers) as { type: string };
      expect(event.type).to.equal('webhook.test');

      await delivered.getByRole('button', { name: /^Re-send webhook\.test/ }).click();
      await page.getByRole('status').filter({ hasText: 'The delivery is sent again.' }).first().waitFor();
      await waitFor(async () => receiver.received.length === 3, { what: 'the re-sent delivery' });
      expect(receiver.received[2]!.headers['webhook-id']).to.equal(receiver.received[0]!.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  });

  it('sets the workspace’s limits in the Limits panel, shows the API’s 422 by its field, and the budget on the usage page', async () => {
    await visit(page, '#/settings', 'Router settings');
    const form = page.getByRole('form', { name: 'Limits' });
    const workspace = form.getByRole('group', { name: 'This workspace' });
    await workspace.waitFor();
    // An organization key sees (and may set) the organization's limits too.
    await form.getByRole('group', { name: 'The organization' }).waitFor();
    expect(await workspace.getByLabel('Requests per minute').inputValue()).to.equal('');
    expect(await workspace.locator('[data-use="requests_per_minute"]').textContent()).to.match(/^\d+ requests this minute, no limit$/);

    await workspace.getByLabel('Requests per minute').fill('120');
    await workspace.getByLabel('Credits per day (UTC)').fill('50');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('status').filter({ hasText: 'Limits saved.' }).first().waitFor();
    expect((await v1('/settings/limits')).body.workspace.limits).to.deep.equal({ requests_per_minute: 120, tokens_per_minute: null, credits_per_day: 50, credits_per_month: null });

    // Saved: a fresh load shows them, each with its use in the current window.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Router settings' }).waitFor();
    await workspace.waitFor();
    expect(await workspace.getByLabel('Requests per minute').inputValue()).to.equal('120');
    expect(await workspace.getByLabel('Credits per day (UTC)').inputValue()).to.equal('50');
    expect(await workspace.getByLabel('Tokens per minute').inputValue()).to.equal('');
    expect(await workspace.locator('[data-use="requests_per_minute"]').textContent()).to.match(/^\d+ of 120 requests this minute$/);
    expect(await workspace.locator('[data-use="credits_per_day"]').textContent()).to.match(/^[\d.,]+ of 50 credits today$/);

    // What is no number (or no whole number, for a rate) is caught here, and sent nowhere.
    await workspace.getByLabel('Tokens per minute').fill('lots');
    await workspace.getByLabel('Requests per minute').fill('1.5');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await form.locator('.field-error', { hasText: 'Enter a whole number, or leave it empty for no limit.' }).nth(1).waitFor();
    expect(await workspace.getByLabel('Tokens per minute').getAttribute('aria-invalid')).to.equal('true');
    await workspace.getByLabel('Tokens per minute').fill('');

    // Numbers the API refuses: its 422 field errors are shown by their fields, and nothing changes.
    await workspace.getByLabel('Requests per minute').fill('0');
    await workspace.getByLabel('Credits per day (UTC)').fill('0');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await form.getByRole('alert').filter({ hasText: 'The limits were not saved.' }).waitFor();
    const rpmError = workspace.locator('.field', { has: page.getByLabel('Requests per minute') }).locator('.field-error');
    const creditsError = workspace.locator('.field', { has: page.getByLabel('Credits per day (UTC)') }).locator('.field-error');
    expect(await rpmError.textContent()).to.equal('Requests per minute must be > 0');
    expect(await creditsError.textContent()).to.equal('Credits per day (UTC) must be > 0');
    expect(await workspace.getByLabel('Credits per day (UTC)').getAttribute('aria-invalid')).to.equal('true');
    expect(await workspace.getByLabel('Credits per day (UTC)').getAttribute('aria-describedby')).to.include((await creditsError.getAttribute('id'))!);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).to.equal('workspace.requests_per_minute');
    await screenshot(page, 'limits-422-1280');
    expect((await v1('/settings/limits')).body.workspace.limits).to.include({ requests_per_minute: 120, credits_per_day: 50 });

    // Some credits spent, the workspace's daily budget shows as a bar on the usage page.
    expect((await v1('/embeddings', { method: 'POST', body: { model: 'local/embed-1024', input: 'woord '.repeat(500) } })).status).to.equal(200);
    const budget = await waitFor(
      async () => {
        const found = (await v1('/usage')).body.budgets.find((b: { level: string; window: string }) => b.level === 'workspace' && b.window === 'day');
        return found?.used > 0 ? found : undefined;
      },
      { what: 'credits billed against the workspace budget' },
    );
    await visit(page, '#/usage', 'Usage');
    const bar = page.locator('li.budget[data-level="workspace"][data-window="day"]');
    await bar.waitFor();
    expect(await page.locator('li.budget').count()).to.equal(1);
    expect(await bar.locator('.budget-name').textContent()).to.equal('Workspace daily budget (UTC day)');
    expect(await bar.locator('.budget-figures').textContent()).to.match(/^[\d.,]+ of 50 credits \((<1|\d+) %\)$/);
    const meter = bar.getByRole('meter', { name: 'Workspace daily budget (UTC day)' });
    expect(Number(await meter.getAttribute('aria-valuenow'))).to.be.above(0);
    expect(await meter.getAttribute('aria-valuemax')).to.equal('50');
    expect(Number(await bar.locator('rect.fill').getAttribute('width'))).to.be.above(0);
    expect(await bar.locator('.budget-reset time').getAttribute('datetime')).to.equal(budget.resets_at);
    expect(await bar.locator('.budget-reset').textContent()).to.match(/^Resets .+ \(in (\d+ h( \d+ min)?|\d+ min|under a minute)\)\.$/);
    await screenshot(page, 'usage-budgets-1280');
  });

  it('shows a restricted key the workspace’s limits only, and a 403 clearly when it may no longer set them', async () => {
    const restricted = await gw.app.key({ kind: 'restricted', scopes: ['settings.write', 'usage.read'] });
    const watched = await openPage(browser, DESKTOP);
    try {
      await signIn(watched.page, restricted.key);
      await visit(watched.page, '#/settings', 'Router settings');
      const form = watched.page.getByRole('form', { name: 'Limits' });
      await form.getByRole('group', { name: 'This workspace' }).waitFor();
      expect(await form.getByRole('group', { name: 'The organization' }).count()).to.equal(0);
      expect(await form.textContent()).to.include('The organization’s limits are shown and set only with an organization key.');

      // The key loses settings.write while the page is open: saving says so.
      expect((await v1(`/keys/${restricted.key_id}`, { method: 'PATCH', body: { scopes: ['usage.read'] } })).status).to.equal(200);
      await form.getByLabel('Requests per minute').fill('130');
      await form.getByRole('button', { name: 'Save limits' }).click();
      const alert = form.getByRole('alert').filter({ hasText: 'The limits were not saved.' });
      await alert.waitFor();
      expect(await alert.textContent()).to.include('This key lacks the scope settings.write');
      expect((await v1('/settings/limits')).body.workspace.limits.requests_per_minute).to.equal(120);
      await screenshot(watched.page, 'limits-403-1280');
      expect(watched.problems).to.deep.equal([]);
    } finally {
      await watched.context.close();
    }
  });

  it('says which scope a restricted key lacks', async () => {
    const limited = await gw.app.key({ kind: 'restricted', scopes: ['chat.create', 'traces.read'] });
    const watched = await openPage(browser, DESKTOP);
    try {
      await signIn(watched.page, limited.key);
      await watched.page.getByRole('alert').filter({ hasText: 'This key lacks the scope usage.read' }).first().waitFor();
      await visit(watched.page, '#/settings', 'Router settings');
      await watched.page.getByRole('alert').filter({ hasText: 'This key lacks the scope settings.write' }).first().waitFor();
      await visit(watched.page, '#/keys', 'API keys');
      await watched.page.getByRole('alert').filter({ hasText: 'This key lacks the scope keys.write' }).first().waitFor();
      await visit(watched.page, '#/traces', 'Traces');
      await watched.page.locator('a[data-trace-id]').first().waitFor();

      // A key that stops working mid-session (here: replaced by a wrong one) leads back to sign-in.
      await watched.page.evaluate(() => sessionStorage.setItem('polder.console.key', 'pld_revokedrevokedrevokedrevokedrevokedrevok'));
      await visit(watched.page, '#/audit', 'Sign in to the Polder console');
      await watched.page.getByRole('alert').filter({ hasText: 'The service refused the key' }).first().waitFor();
      expect(await watched.page.evaluate(() => sessionStorage.length)).to.equal(0);

      // Signing out forgets the key.
      await signIn(watched.page, limited.key);
      await watched.page.getByRole('button', { name: 'Sign out' }).click();
      await watched.page.getByRole('heading', { name: 'Sign in to the Polder console' }).waitFor();
      expect(await watched.page.evaluate(() => sessionStorage.length)).to.equal(0);
      expect(watched.problems).to.deep.equal([]);
    } finally {
      await watched.context.close();
    }
  });

  it('works at 390×844: the menu collapses and nothing overflows the screen', async () => {
    const phone = await openPage(browser, PHONE);
    const p = phone.page;
    try {
      await p.goto(`${base}/console`);
      await p.getByLabel('API key').waitFor();
      await screenshot(p, 'sign-in-390');
      await signIn(p, gw.key);
      await p.locator('svg.chart rect.bar').first().waitFor();

      const nav = p.getByRole('navigation', { name: 'Console pages' });
      expect(await nav.isVisible()).to.equal(false);
      await p.getByRole('button', { name: 'Menu' }).click();
      expect(await p.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).to.equal('true');
      await screenshot(p, 'menu-390');
      await nav.getByRole('link', { name: 'Traces' }).click();
      await p.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
      expect(await nav.isVisible()).to.equal(false);

      const pages: [string, string | RegExp, string, string][] = [
        ['#/usage', 'Usage', 'li.budget', 'usage-390'],
        ['#/traces', 'Traces', 'a[data-trace-id]', 'traces-390'],
        ['#/settings', 'Router settings', 'section.limits-panel fieldset', 'settings-390'],
        ['#/memory?user=cust-42', 'Memory', '[data-fact-count]', 'memory-390'],
        ['#/keys', 'API keys', '[data-state]', 'keys-390'],
        ['#/webhooks', 'Webhooks', 'a.endpoint-url', 'webhooks-390'],
        ['#/audit', 'Audit log', 'code.audit-action', 'audit-390'],
      ];
      for (const [hash, heading, ready, name] of pages) {
        await visit(p, hash, heading);
        await p.locator(ready).first().waitFor();
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${hash} overflows by ${overflow}px`).to.equal(0);
        await screenshot(p, name);
      }
      const traceId = (await v1('/traces?application=Backoffice&limit=1')).body.data[0].id as string;
      await visit(p, `#/traces/${encodeURIComponent(traceId)}`, /^Trace/);
      await p.getByRole('region', { name: 'Attempts table', exact: true }).waitFor();
      expect(await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).to.equal(0);
      await screenshot(p, 'trace-detail-390');
      expect(phone.problems).to.deep.equal([]);
    } finally {
      await phone.context.close();
    }
  });

  it('met no script errors or CSP violations on the way', () => {
    expect(desktop.problems).to.deep.equal([]);
  });
});
