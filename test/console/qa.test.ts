import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';
import { DESKTOP, launchChromium, openPage, screenshot, type Watched } from './browser.js';

// What a QA sweep of the console found, each seen the way its user would see it, in real
// headless Chromium against a real app and worker.

describe('the console, as the QA sweep used it', function () {
  this.timeout(90_000);

  let gw: GatewayFixture;
  let browser: Browser;
  let desktop: Watched;
  let page: Page;
  let base: string;
  const receivers: WebhookReceiver[] = [];

  const v1 = (path: string, options: Parameters<typeof api>[2] = {}) => api(gw.app.baseUrl, `/v1${path}`, { key: gw.key, ...options });

  async function signIn(p: Page, key: string): Promise<void> {
    await p.goto(`${base}/console`);
    await p.getByLabel('API key').fill(key);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.locator('body:not(.signed-out)').waitFor();
  }

  async function visit(p: Page, hash: string, heading: string | RegExp): Promise<void> {
    await p.evaluate((h) => (location.hash = h), hash);
    await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  const chat = async (body: Record<string, unknown>, key?: string) => {
    const response = await postChat(gw, { model: 'local/echo', max_tokens: 64, ...body }, {}, key);
    return response;
  };

  before(async function () {
    this.timeout(90_000);
    [gw, browser] = await Promise.all([startGatewayFixture({ env: { WEBHOOKS_ALLOW_HTTP: '1' } }), launchChromium()]);
    await gw.app.startWorker();
    base = gw.app.baseUrl;
    desktop = await openPage(browser, DESKTOP);
    page = desktop.page;
    await signIn(page, gw.key);
  });

  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await browser?.close();
    await gw?.close();
  });

  it('withdrawing the acceptance with the firewall off says chats are refused, and offers to switch it back on', async () => {
    const ok = (r: { status: number }) => expect(r.status).to.equal(200);
    ok(await v1('/settings/router', { method: 'PUT', body: { non_eu_acceptance: 'record' } }));
    ok(await v1('/settings/router', { method: 'PUT', body: { firewall_default: false } }));
    await visit(page, '#/settings', 'Router settings');
    await page.getByRole('button', { name: 'Withdraw acceptance…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Withdraw the non-EU acceptance?' });
    await dialog.waitFor();
    const said = (await dialog.textContent())!;
    expect(said).to.not.include('with the firewall on');
    expect(said).to.include('Withdrawing does not switch it back on');
    const restore = dialog.getByLabel('Switch this workspace’s firewall back on at the same time');
    expect(await restore.isChecked()).to.equal(true);
    await screenshot(page, 'qa-withdraw-dialog-1280', { viewport: true });
    // Withdrawn without switching it back on: the page says chats are refused, and the checkbox agrees.
    await restore.uncheck();
    await dialog.getByRole('button', { name: 'Withdraw acceptance' }).click();
    const section = page.locator('section.acceptance[data-accepted="false"]');
    await section.waitFor();
    expect((await v1('/settings/router')).body.firewall_default).to.equal(false);
    expect(await section.locator('.acceptance-state').textContent()).to.not.include('firewall');
    const warning = section.getByRole('alert').filter({ hasText: 'Chats are refused.' });
    await warning.waitFor();
    expect(await warning.textContent()).to.include('refused (403 egress_refused) until the firewall is switched back on');
    expect(await page.getByLabel(/Mask personal data before it reaches a provider/).isChecked()).to.equal(false);
    expect((await chat({ messages: [{ role: 'user', content: 'hallo' }] })).status).to.equal(403);
    await screenshot(page, 'qa-withdrawn-firewall-off-1280');

    // One click switches it back on: chats are answered again, and the page says so.
    await warning.getByRole('button', { name: 'Switch the firewall back on' }).click();
    await page.getByRole('status').filter({ hasText: 'The firewall is on again' }).first().waitFor();
    expect((await v1('/settings/router')).body.firewall_default).to.equal(true);
    expect(await section.getByRole('alert').count()).to.equal(0);
    expect(await section.locator('.acceptance-state').textContent()).to.include('the firewall is on');
    expect(await page.getByLabel(/Mask personal data before it reaches a provider/).isChecked()).to.equal(true);
    expect((await chat({ messages: [{ role: 'user', content: 'hallo' }] })).status).to.equal(200);

    // Withdrawn with the box left ticked: one request withdraws and switches the firewall on.
    ok(await v1('/settings/router', { method: 'PUT', body: { non_eu_acceptance: 'record' } }));
    ok(await v1('/settings/router', { method: 'PUT', body: { firewall_default: false } }));
    await page.reload();
    await page.getByRole('button', { name: 'Withdraw acceptance…' }).click();
    await dialog.getByRole('button', { name: 'Withdraw acceptance' }).click();
    await section.waitFor();
    const after = (await v1('/settings/router')).body;
    expect(after.non_eu_acceptance.accepted).to.equal(false);
    expect(after.firewall_default).to.equal(true);
    expect(await section.getByRole('alert').count()).to.equal(0);
    expect((await chat({ messages: [{ role: 'user', content: 'hallo' }] })).status).to.equal(200);
  });

  it('keeps the end-user out of the address, shows what an erasure deleted per store, and forgets the end-user after it', async () => {
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'klant-42', content: 'I live in Utrecht. I have two cats.' } })).status).to.equal(202);
    expect((await chat({ user: 'klant-42', thread: 'klant-42-conv', messages: [{ role: 'user', content: 'Waar woon ik?' }] })).status).to.equal(200);
    await waitFor(async () => ((await v1('/recall/facts?user_ref=klant-42')).body.data.length >= 2 ? true : undefined), { what: 'the facts of klant-42' });
    await waitFor(async () => ((await v1('/traces?user=klant-42')).body.data.length >= 1 ? true : undefined), { what: 'the trace of klant-42' });

    await visit(page, '#/traces', 'Traces');
    const historyBefore = await page.evaluate(() => history.length);
    await page.getByLabel('End-user', { exact: true }).fill('klant-42');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: '1 trace with end-user “klant-42”' }).first().waitFor();
    expect(await page.evaluate(() => location.href)).to.not.include('klant-42');

    await visit(page, '#/memory', 'Memory');
    await page.getByLabel('End-user reference (user_ref)').fill('klant-42');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator('[data-fact-count="2"]').waitFor();
    expect(await page.evaluate(() => location.href)).to.not.include('klant-42');
    // No entry of browser history names them either (each visit above adds one without them).
    expect(await page.evaluate(() => history.length)).to.equal(historyBefore + 1);

    // An old link with ?user= still works, and the address is replaced without it.
    await visit(page, '#/memory?user=klant-42', 'Memory');
    await page.locator('[data-fact-count="2"]').waitFor();
    expect(await page.evaluate(() => location.hash)).to.equal('#/memory');

    await page.getByRole('button', { name: 'Erase end-user…' }).click();
    await page.getByRole('dialog', { name: 'Erase everything about “klant-42”?' }).getByRole('button', { name: 'Erase end-user' }).click();
    const done = page.locator('[data-erased]');
    await done.waitFor();
    const counts = Object.fromEntries(
      await done.locator('li[data-store]').evaluateAll((items) => items.map((li) => [li.getAttribute('data-store'), li.textContent])),
    );
    expect(Object.keys(counts)).to.deep.equal(['facts', 'threads', 'traces', 'replays', 'cache_entries', 'responses']);
    expect(counts).to.include({ facts: '2 facts', threads: '1 thread', responses: '0 stored responses' });
    expect(counts.traces).to.match(/^[1-9]\d* traces?$/);
    expect(counts.replays).to.match(/^\d+ kept answers? for replay$/);
    expect(counts.cache_entries).to.match(/^\d+ cache entr(y|ies)$/);
    expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-erased'))).to.equal(true);
    expect(await page.getByLabel('End-user reference (user_ref)').inputValue()).to.equal('');
    await screenshot(page, 'qa-erased-1280');

    // Nothing in the console keeps them after the erasure: not the traces filter, not the memory page.
    await visit(page, '#/traces', 'Traces');
    expect(await page.getByLabel('End-user', { exact: true }).inputValue()).to.equal('');
    await visit(page, '#/memory', 'Memory');
    await page.locator('[data-fact-count]').waitFor();
    expect(await page.getByLabel('End-user reference (user_ref)').inputValue()).to.equal('');
    expect(await page.locator('main').textContent()).to.not.include('klant-42');
  });

  it('after forgetting a fact, focus moves to the next fact’s Forget button', async () => {
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'klant-7', content: 'I have a dog. I play the piano. I drive a red car.' } })).status).to.equal(202);
    const facts = await waitFor(async () => {
      const list = (await v1('/recall/facts?user_ref=klant-7')).body.data as { content: string }[];
      return list.length >= 3 ? list : undefined;
    }, { what: 'the facts of klant-7' });
    await visit(page, '#/memory', 'Memory');
    await page.getByLabel('End-user reference (user_ref)').fill('klant-7');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator(`[data-fact-count="${facts.length}"]`).waitFor();
    await page.getByRole('button', { name: `Forget the fact: ${facts[0]!.content}` }).click();
    await page.getByRole('dialog', { name: 'Forget this fact?' }).getByRole('button', { name: 'Forget fact' }).click();
    await page.locator(`[data-fact-count="${facts.length - 1}"]`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).to.equal(`Forget the fact: ${facts[1]!.content}`);
  });

  it('stacks every kind of credits in the usage chart, fact extraction too', async () => {
    const kinds = await waitFor(
      async () => {
        const rows = (await v1('/usage?group_by=kind')).body.data as { key: string; credits: { total: number } }[];
        const found = rows.filter((row) => row.credits.total > 0).map((row) => row.key);
        return found.includes('facts') && found.includes('chat') ? found : undefined;
      },
      { what: 'usage of fact extraction' },
    );
    await visit(page, '#/usage', 'Usage');
    await page.locator('svg.chart rect.bar').first().waitFor();
    const drawn = await page.locator('svg.chart rect.bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-kind')));
    expect(new Set(drawn)).to.deep.equal(new Set(kinds));
    expect(await page.locator('.legend li').allTextContents()).to.include('Fact extraction');
    expect(await page.locator('svg.chart desc').textContent()).to.match(/Fact extraction [\d.]+/);
    const headers = await page.locator('.chart-figure thead th').allTextContents();
    expect(headers).to.deep.equal(['Day (UTC)', 'Chat', 'Embeddings', 'Ingest', 'Fact extraction', 'Total']);
  });

  it('shows the sources of a trace without a dangling colon, and refuses an infinite score in the form', async () => {
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'bron-1', content: 'I live in Leiden.' } })).status).to.equal(202);
    await waitFor(async () => ((await v1('/recall/facts?user_ref=bron-1')).body.data.length >= 1 ? true : undefined), { what: 'the fact of bron-1' });
    const response = await chat({ user: 'bron-1', messages: [{ role: 'user', content: 'Where do I live?' }] });
    expect(response.status).to.equal(200);
    const id = response.headers.get('x-request-id')!;
    const trace = await waitFor(async () => {
      const found = await v1(`/traces/${encodeURIComponent(id)}`);
      return found.status === 200 ? found.body : undefined;
    }, { what: 'the trace with sources' });
    expect(trace.sources.length).to.be.at.least(1);
    await visit(page, `#/traces/${encodeURIComponent(id)}`, /^Trace/);
    const sources = page.locator('section', { has: page.getByRole('heading', { name: 'Routing notes and sources' }) }).locator('ol li');
    await sources.first().waitFor();
    for (const text of await sources.allTextContents()) expect(text).to.match(/^fact.* · score \d\.\d{3}(: .+)?$/).and.not.match(/:\s*$/);

    for (const value of ['Infinity', '1e400', '-Infinity']) {
      await page.getByLabel('Score name').fill('quality');
      await page.getByLabel('Value', { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Add score' }).click();
      const alert = page.getByRole('form', { name: 'Add a score' }).getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).to.include('Value: enter a finite number');
      expect(await page.getByLabel('Value', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
    }
    expect((await v1(`/scores?trace_id=${encodeURIComponent(id)}`)).body.data).to.deep.equal([]);
    await page.getByLabel('Value', { exact: true }).fill('1e3');
    await page.getByRole('button', { name: 'Add score' }).click();
    await page.getByRole('region', { name: 'Scores table', exact: true }).locator('td', { hasText: '1000' }).waitFor();
  });

  it('lists every audit action the service writes in the filter, names background work, and shows nested changes alike', async () => {
    const key = await v1('/keys', { method: 'POST', body: { workspace: 'main', name: 'before', kind: 'restricted', scopes: ['usage.read'] } });
    expect((await v1(`/keys/${key.body.data.id}`, { method: 'PATCH', body: { name: 'after', limits: { requests_per_minute: 5 } } })).status).to.equal(200);
    await waitFor(
      async () => {
        const actions = (await v1('/audit-log?limit=100')).body.data.map((e: { action: string }) => e.action);
        return actions.includes('facts.extracted') && actions.includes('api_key.updated') ? true : undefined;
      },
      { what: 'the audit entries' },
    );
    await visit(page, '#/audit', 'Audit log');
    await page.locator('code.audit-action').first().waitFor();
    const options = await page.getByLabel('Action', { exact: true }).locator('option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    const written = [
      'chat.completion', 'embeddings.create', 'score.created',
      'document.ingested', 'document.deleted', 'collection.deleted', 'facts.extracted', 'fact.forgotten', 'thread.deleted', 'memory.erased',
      'settings.router.updated', 'non_eu_acceptance.recorded', 'non_eu_acceptance.withdrawn', 'limits.workspace.updated', 'limits.organization.updated', 'budget.threshold',
      'api_key.created', 'api_key.updated', 'api_key.revoked',
      'webhook.created', 'webhook.updated', 'webhook.secret_rotated', 'webhook.disabled', 'webhook.deleted',
    ];
    expect(options).to.include.members(written);
    const present = new Set((await v1('/audit-log?limit=100')).body.data.map((e: { action: string }) => e.action) as string[]);
    for (const action of present) expect(options, action).to.include(action);

    await page.getByLabel('Action', { exact: true }).selectOption('facts.extracted');
    await page.locator('code.audit-action', { hasText: 'facts.extracted' }).first().waitFor();
    const actor = (await page.getByRole('region', { name: 'Audit log entries table', exact: true }).locator('tbody tr').first().locator('td').nth(2).textContent())!;
    expect(actor).to.include('service (background work)').and.not.include('service key');

    await page.getByLabel('Action', { exact: true }).selectOption('api_key.updated');
    const row = page.getByRole('region', { name: 'Audit log entries table', exact: true }).locator('tbody tr').first();
    await row.locator('code.audit-action', { hasText: 'api_key.updated' }).waitFor();
    const lines = await row.locator('.details-cell .kv').allTextContents();
    expect(lines).to.include.members(['changes.name: before → after', 'changes.limits.requests_per_minute: none → 5']);
    for (const text of lines) expect(text).to.not.match(/[{}]/);
    await screenshot(page, 'qa-audit-1280');
  });

  it('met no script errors or CSP violations on the way', () => {
    expect(desktop.problems).to.deep.equal([]);
  });
});
