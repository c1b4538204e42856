import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';
import { createCollection, ingest, prose } from '../memory/documentsFixture.js';
import { DESKTOP, launchChromium, openPage, PHONE, screenshot, type Watched, signIn as signInAt, visit } from './browser.js';

// What a QA sweep of the console found, each seen the way its user would see it, in real
// headless Chromium against a real app and worker.

describe('the console pages: what each shows and offers, and to which key', function () {
  this.timeout(90_000);

  let gw: GatewayFixture;
  let browser: Browser;
  let desktop: Watched;
  let page: Page;
  let base: string;
  const receivers: WebhookReceiver[] = [];

  const v1 = (path: string, options: Parameters<typeof api>[2] = {}) => api(gw.app.baseUrl, `/v1${path}`, { key: gw.key, ...options });

  const signIn = (p: Page, key: string) => signInAt(p, base, key);

  /** The texts of the elements matching `selector` in `scope` that run over more than one line. */
  const brokenOverLines = (scope: Locator, selector: string) =>
    scope.locator(selector).evaluateAll((elements) =>
      elements
        .filter((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          return lines.size > 1;
        })
        .map((el) => el.textContent),
    );

  /** Waits until `describe(document.activeElement)` (run in the page) equals `expected`. */
  const focusOn = async (p: Page, expected: string, describe: string, what: string) => {
    let last: unknown;
    try {
      await waitFor(async () => ((last = await p.evaluate(`(() => { const el = document.activeElement; return ${describe}; })()`)) === expected ? true : undefined), {
        what,
        timeoutMs: 5_000,
      });
    } catch {
      expect(last, `${what}: focus is elsewhere (on ${await p.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))})`).to.equal(expected);
    }
  };


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

  it('withdrawing the acceptance with the firewall off says it is switched back on, and it is: chats go on, masked', async () => {
    const ok = (r: { status: number }) => expect(r.status).to.equal(200);
    ok(await v1('/settings/router', { method: 'PUT', body: { non_eu_acceptance: 'record' } }));
    ok(await v1('/settings/router', { method: 'PUT', body: { firewall_default: false } }));
    await visit(page, '#/settings', 'Router settings');
    await page.getByRole('button', { name: 'Withdraw acceptance…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Withdraw the non-EU acceptance?' });
    await dialog.waitFor();
    expect(await dialog.locator('[data-warning="firewall-switched-on"]').textContent()).to.include('withdrawing switches it back on');
    await screenshot(page, 'pages-withdraw-dialog-1280', { viewport: true });
    await dialog.getByRole('button', { name: 'Withdraw acceptance' }).click();
    const section = page.locator('section.acceptance[data-accepted="false"]');
    await section.waitFor();
    await page.getByRole('status').filter({ hasText: 'the firewall is on' }).first().waitFor();
    const after = (await v1('/settings/router')).body;
    expect(after.non_eu_acceptance.accepted).to.equal(false);
    expect(after.firewall_default).to.equal(true);
    expect(await section.getByRole('alert').count()).to.equal(0);
    expect(await section.locator('.acceptance-state').textContent()).to.include('the firewall is on');
    expect(await page.getByLabel(/Mask personal data before it reaches a provider/).isChecked()).to.equal(true);
    expect((await chat({ messages: [{ role: 'user', content: 'hallo' }] })).status).to.equal(200);
  });

  it('asks before switching the firewall default off, and leaves it on when that is cancelled', async () => {
    expect((await v1('/settings/router', { method: 'PUT', body: { non_eu_acceptance: 'record' } })).status).to.equal(200);
    try {
      await visit(page, '#/settings', 'Router settings');
      const firewall = page.getByLabel(/Mask personal data before it reaches a provider/);
      await firewall.uncheck();
      await page.getByRole('button', { name: 'Save settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send personal data unmasked?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await v1('/settings/router')).body.firewall_default).to.equal(true);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('dialog', { name: 'Send personal data unmasked?' }).getByRole('button', { name: 'Switch the firewall default off' }).click();
      await page.getByRole('status').filter({ hasText: 'Settings saved.' }).first().waitFor();
      expect((await v1('/settings/router')).body.firewall_default).to.equal(false);
    } finally {
      expect((await v1('/settings/router', { method: 'PUT', body: { non_eu_acceptance: 'withdraw' } })).status).to.equal(200);
    }
  });

  it('a workspace left with the firewall off and no acceptance (from before withdrawing switched it on) says chats are refused, and switches it back on in one click', async () => {
    // Such a state can only come from stored data: the API no longer leaves it.
    await gw.app.db.pool.query(
      "update workspace_settings set firewall_default = false where workspace_id = (select id from workspaces where name = 'main' and organization_id = (select id from organizations where name = 'acme'))",
    );
    await page.reload();
    const section = page.locator('section.acceptance[data-accepted="false"]');
    await section.waitFor();
    const warning = section.getByRole('alert').filter({ hasText: 'Chats are refused.' });
    await warning.waitFor();
    expect(await warning.textContent()).to.include('refused (403 egress_refused) until the firewall is switched back on');
    await warning.getByRole('button', { name: 'Switch the firewall back on' }).click();
    await page.getByRole('status').filter({ hasText: 'The firewall is on again' }).first().waitFor();
    expect((await v1('/settings/router')).body.firewall_default).to.equal(true);
    expect(await section.getByRole('alert').count()).to.equal(0);
    expect((await chat({ messages: [{ role: 'user', content: 'hallo' }] })).status).to.equal(200);
  });

  it('signs in with a message that says why the service refused the key, e.g. that it expired', async () => {
    const expiring = await v1('/keys', {
      method: 'POST',
      body: { workspace: 'main', name: 'Short-lived', kind: 'restricted', scopes: ['usage.read'], expires_at: new Date(Date.now() + 1500).toISOString() },
    });
    expect(expiring.status).to.equal(201);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const watched = await openPage(browser, DESKTOP);
    try {
      await watched.page.goto(`${base}/console`);
      await watched.page.getByLabel('API key').fill(expiring.body.data.key);
      await watched.page.getByRole('button', { name: 'Sign in' }).click();
      const alert = watched.page.getByRole('alert').filter({ hasText: 'That key was refused' });
      await alert.waitFor();
      expect(await alert.textContent()).to.include('this API key expired at').and.not.include('mistyped');
      await screenshot(watched.page, 'pages-sign-in-expired-1280');
    } finally {
      await watched.context.close();
    }
  });

  it('shows a 422’s field errors once each', async () => {
    await visit(page, '#/settings', 'Router settings');
    await page.getByLabel('Allowed providers').fill('bogus');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The settings were not saved.' });
    await alert.waitFor();
    const text = (await alert.textContent())!;
    expect(text.split('unknown provider "bogus"').length - 1, text).to.equal(1);
    expect(await alert.locator('li code').allTextContents()).to.deep.equal(['allowed_providers.0']);
    await page.getByLabel('Allowed providers').fill('');
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
    expect(Object.keys(counts)).to.deep.equal(['facts', 'submissions', 'threads', 'traces', 'replays', 'cache_entries', 'responses']);
    expect(counts.submissions).to.match(/^\d+ fact submissions?$/);
    expect(counts).to.include({ facts: '2 facts', threads: '1 thread', responses: '0 stored responses' });
    expect(counts.traces).to.match(/^[1-9]\d* traces?$/);
    expect(counts.replays).to.match(/^\d+ kept answers? for replay$/);
    expect(counts.cache_entries).to.match(/^\d+ cache entr(y|ies)$/);
    expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-erased'))).to.equal(true);
    expect(await page.getByLabel('End-user reference (user_ref)').inputValue()).to.equal('');
    // The section says what was done, and no longer names them or offers to erase them again.
    expect(await page.getByRole('button', { name: 'Erase end-user…' }).count()).to.equal(0);
    expect(await page.locator('[data-fact-count]').textContent()).to.not.include('klant-42');
    await screenshot(page, 'pages-erased-1280');

    // Nothing in the console keeps them after the erasure: not the traces filter, not the memory page.
    await visit(page, '#/traces', 'Traces');
    expect(await page.getByLabel('End-user', { exact: true }).inputValue()).to.equal('');
    await visit(page, '#/memory', 'Memory');
    await page.locator('[data-fact-count]').waitFor();
    expect(await page.getByLabel('End-user reference (user_ref)').inputValue()).to.equal('');
    expect(await page.locator('main').textContent()).to.not.include('klant-42');
  });

  it('pages through an end-user’s facts beyond the first hundred, and counts what it shows', async () => {
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'klant-many', content: 'I have a garden.' } })).status).to.equal(202);
    await waitFor(async () => ((await v1('/recall/facts?user_ref=klant-many')).body.data.length === 1 ? true : undefined), { what: 'the fact of klant-many' });
    // 104 more, as copies of it with other words (extraction would take a while for each).
    await gw.app.db.pool.query(
      `insert into facts (organization_id, workspace_id, user_ref, content, content_hash, model, embedding, ts_config)
       select f.organization_id, f.workspace_id, f.user_ref, 'I keep plant number ' || g, sha256(convert_to('plant ' || g, 'utf8')), f.model, f.embedding, f.ts_config
         from facts f cross join generate_series(1, 104) g where f.user_ref = 'klant-many'`,
    );
    await visit(page, '#/memory', 'Memory');
    await page.getByLabel('End-user reference (user_ref)').fill('klant-many');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator('[data-fact-count="100"]').waitFor();
    expect(await page.locator('[data-fact-count]').textContent()).to.match(/^100 facts about “klant-many”, and more held/);
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.locator('[data-fact-count="105"]').waitFor();
    expect(await page.getByRole('region', { name: 'Facts about klant-many table', exact: true }).locator('tbody tr').count()).to.equal(105);
    expect(await page.getByRole('button', { name: 'Load more' }).isHidden()).to.equal(true);
  });

  it('filters traces by name and by UTC days', async () => {
    expect((await chat({ name: 'naam-filter-1', messages: [{ role: 'user', content: 'Filter mij' }] })).status).to.equal(200);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await visit(page, '#/traces', 'Traces');
    await page.getByLabel('Name', { exact: true }).fill('naam-filter-1');
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: '1 trace with name “naam-filter-1”' }).first().waitFor();
    await page.getByLabel('From', { exact: true }).fill(tomorrow);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: `0 traces with name “naam-filter-1”, from “${tomorrow}”` }).first().waitFor();
  });

  it('shows every document, and says why, for a link to a collection deleted since', async () => {
    const created = await v1('/recall/collections', { method: 'POST', body: { name: 'Tijdelijk' } });
    expect(created.status).to.equal(201);
    expect((await v1(`/recall/collections/${created.body.data.slug}`, { method: 'DELETE' })).status).to.equal(200);
    await visit(page, `#/memory?collection=${created.body.data.slug}`, 'Memory');
    await page.locator('[data-collection-gone]').waitFor();
    expect(await page.locator('[data-collection-gone]').textContent()).to.include('“tijdelijk” no longer exists');
    await page.getByRole('region', { name: 'Collections table', exact: true }).waitFor();
    await page.getByRole('region', { name: 'Documents table', exact: true }).waitFor();
  });

  it('forgets on signing out the end-user the session typed into the traces filter and the memory page', async () => {
    await visit(page, '#/traces', 'Traces');
    await page.getByLabel('End-user', { exact: true }).fill('klant-signed-out');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: 'klant-signed-out' }).first().waitFor();
    await visit(page, '#/memory', 'Memory');
    await page.getByLabel('End-user reference (user_ref)').fill('klant-signed-out');
    await page.getByRole('button', { name: 'Show facts' }).click();
    await page.locator('[data-fact-count="0"]').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the Polder console' }).waitFor();
    await signIn(page, gw.key);
    await visit(page, '#/traces', 'Traces');
    expect(await page.getByLabel('End-user', { exact: true }).inputValue()).to.equal('');
    await visit(page, '#/memory', 'Memory');
    await page.locator('[data-fact-count]').waitFor();
    expect(await page.getByLabel('End-user reference (user_ref)').inputValue()).to.equal('');
    expect(await page.locator('main').textContent()).to.not.include('klant-signed-out');
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

  it('fits the Keys and Traces tables at desktop widths, with Status and the actions in view', async () => {
    const many = await v1('/keys', {
      method: 'POST',
      body: {
        workspace: 'main',
        name: 'Helpdesk assistant for the claims department (production)',
        kind: 'restricted',
        scopes: ['chat.create', 'embeddings.create', 'memory.read', 'memory.write', 'traces.read', 'scores.write', 'audit.read', 'usage.read', 'settings.write', 'webhooks.read', 'webhooks.write'],
        limits: { requests_per_minute: 600, tokens_per_minute: 1000000, credits_per_day: 250.5, credits_per_month: 5000 },
        expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString(),
      },
    });
    expect(many.status).to.equal(201);
    await chat({ messages: [{ role: 'user', content: 'Hallo' }], tags: [`campaign-${'x'.repeat(50)}`] }, many.body.data.key);
    for (const width of [1280, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [hash, heading, region] of [
        ['#/keys', 'API keys', 'API keys table'],
        ['#/traces', 'Traces', 'Traces table'],
      ] as const) {
        await visit(page, hash, heading);
        const wrap = page.getByRole('region', { name: region, exact: true });
        await wrap.locator('tbody tr').first().waitFor();
        const fit = await wrap.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const last = [...el.querySelectorAll('thead th')].at(-1)!.getBoundingClientRect();
          return { overflow: el.scrollWidth - el.clientWidth, lastRight: last.right, right: box.right };
        });
        expect(fit.overflow, `${hash} at ${width}px overflows by ${fit.overflow}px`).to.be.at.most(0);
        expect(fit.lastRight, `${hash} at ${width}px: the last column is out of view`).to.be.at.most(fit.right + 0.5);
        if (hash === '#/keys') {
          const row = wrap.locator('tr', { has: page.locator('.key-name', { hasText: 'Helpdesk assistant' }) });
          for (const name of ['Status', 'Actions']) expect(await row.locator('td').nth(name === 'Status' ? 5 : 6).isVisible()).to.equal(true);
          const revoke = await row.getByRole('button', { name: /^Revoke / }).boundingBox();
          expect(revoke!.x + revoke!.width).to.be.at.most(fit.right);
        }
        if (width === 1280) await screenshot(page, `pages-${heading === 'API keys' ? 'keys' : 'traces'}-1280`);
      }
    }
    await page.setViewportSize(DESKTOP);
    // What is still wider than its box (a phone's trace detail, a very long table) scrolls with a visible bar.
    expect(await page.locator('.table-wrap').first().evaluate((el) => getComputedStyle(el).scrollbarWidth)).to.equal('thin');
  });

  it('offers a key without memory.write no Forget or Erase, and says why', async () => {
    // QA: a reader was offered both, and the erasure failed after its confirmation with a 403.
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'klant-read', content: 'I have a boat.' } })).status).to.equal(202);
    await waitFor(async () => ((await v1('/recall/facts?user_ref=klant-read')).body.data.length === 1 ? true : undefined), { what: 'the fact of klant-read' });
    const reader = await gw.app.key({ kind: 'restricted', scopes: ['memory.read', 'traces.read'] });
    const watched = await openPage(browser, DESKTOP);
    try {
      await signIn(watched.page, reader.key);
      await visit(watched.page, '#/memory', 'Memory');
      await watched.page.getByLabel('End-user reference (user_ref)').fill('klant-read');
      await watched.page.getByRole('button', { name: 'Show facts' }).click();
      await watched.page.locator('[data-fact-count="1"]').waitFor();
      expect(await watched.page.getByText('I have a boat.').count()).to.equal(1);
      expect(await watched.page.getByRole('button', { name: /^Forget/ }).count()).to.equal(0);
      expect(await watched.page.getByRole('button', { name: /^Erase/ }).count()).to.equal(0);
      expect(await watched.page.locator('[data-read-only]').textContent()).to.include('memory.write');
      expect(watched.problems).to.deep.equal([]);
    } finally {
      await watched.context.close();
    }
  });

  it('gives focus back to the form after the one-time secret of a new key is closed', async () => {
    // QA: focus was left on the page's body (the Create button was disabled as the dialog opened).
    await visit(page, '#/keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('focus-check');
    await page.getByLabel('Workspace').fill('main');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy the new key now' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitFor(async () => ((await page.evaluate(() => document.activeElement?.textContent)) === 'Create key' ? true : undefined), {
      what: 'focus on the Create key button',
      timeoutMs: 5_000,
    });
    expect(await page.locator('.alert.error').count()).to.equal(0);
    expect(await page.getByRole('region', { name: 'API keys table', exact: true }).getByText('focus-check').count()).to.equal(1);
  });

  it('marks the key the console is signed in with, warns before revoking it, and signs out after', async () => {
    const own = await gw.app.key({ kind: 'organization' });
    const watched = await openPage(browser, DESKTOP);
    try {
      await signIn(watched.page, own.key);
      await visit(watched.page, '#/keys', 'API keys');
      const keys = watched.page.getByRole('region', { name: 'API keys table', exact: true });
      const marked = keys.locator('tr', { has: watched.page.locator('[data-this-key]') });
      await marked.waitFor();
      expect(await marked.count()).to.equal(1);
      expect(await marked.getAttribute('data-key-id')).to.equal(own.key_id);
      expect(await marked.locator('[data-this-key]').textContent()).to.equal('this key');

      await marked.getByRole('button', { name: /^Revoke / }).click();
      const dialog = watched.page.getByRole('dialog', { name: /^Revoke / });
      await dialog.waitFor();
      expect(await dialog.textContent()).to.include('This is the key this console is signed in with.');
      await screenshot(watched.page, 'pages-revoke-own-key-1280', { viewport: true });
      await dialog.getByRole('button', { name: 'Revoke this key and sign out' }).click();
      await watched.page.getByRole('heading', { name: 'Sign in to the Polder console' }).waitFor();
      const info = watched.page.locator('.alert.info');
      expect(await info.textContent()).to.include('the key this console was signed in with, so you are signed out');
      expect(await watched.page.evaluate(() => sessionStorage.length)).to.equal(0);
      expect((await api(base, '/v1/models', { key: own.key })).status).to.equal(401);
      expect(watched.problems).to.deep.equal([]);
    } finally {
      await watched.context.close();
    }
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
    await screenshot(page, 'pages-audit-1280');
  });

  describe('webhooks', () => {
    let failing: string;
    let busy: string;

    before(async function () {
      this.timeout(60_000);
      const [a, b] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
      receivers.push(a, b);
      const create = async (url: string, description: string) => {
        const created = await v1('/webhooks', { method: 'POST', body: { url, events: ['document.ready'], description } });
        expect(created.status).to.equal(201);
        return created.body.data.id as string;
      };
      [failing, busy] = await Promise.all([create(a.url, 'CRM sync for the claims team'), create(b.url, 'Busy endpoint')]);
      const deliveries = async (id: string) => (await v1(`/webhooks/${id}/deliveries?limit=100`)).body.data as { status: string; last_status_code: number | null }[];
      // One delivered, then one the receiver keeps answering 500.
      expect((await v1(`/webhooks/${failing}/test`, { method: 'POST' })).status).to.be.oneOf([200, 201, 202]);
      await waitFor(async () => ((await deliveries(failing))[0]?.status === 'delivered' ? true : undefined), { what: 'the first delivery' });
      a.script(...Array.from({ length: 50 }, () => ({ type: 'status' as const, status: 500, body: 'not now, the CRM is down for maintenance until 18:00 — please retry later' })));
      await v1(`/webhooks/${failing}/test`, { method: 'POST' });
      await waitFor(async () => ((await deliveries(failing))[0]?.last_status_code === 500 ? true : undefined), { what: 'the failed delivery' });
      await waitFor(async () => ((await v1(`/webhooks/${failing}`)).body.data.failing_since ? true : undefined), { what: 'failing_since' });
      for (let i = 0; i < 21; i++) await v1(`/webhooks/${busy}/test`, { method: 'POST' });
      await waitFor(async () => ((await deliveries(busy)).length === 21 ? true : undefined), { what: '21 deliveries' });
    });

    it('shows an endpoint’s description, since when it fails, the receiver’s answers, when each was delivered, and loads more deliveries', async () => {
      await visit(page, `#/webhooks/${failing}`, 'Webhook endpoint');
      const summary = page.locator('section', { has: page.locator('#endpoint-h') });
      await summary.getByText('CRM sync for the claims team').waitFor();
      expect(await summary.locator('[data-failing-since]').textContent()).to.match(/^Failing since \d/);
      const deliveries = page.getByRole('region', { name: 'Deliveries table', exact: true });
      const [newest, oldest] = [deliveries.locator('tbody tr').first(), deliveries.locator('tbody tr').nth(1)];
      await newest.waitFor();
      expect(await newest.locator('td[data-label="Last response"]').textContent()).to.include('not now, the CRM is down');
      expect(await newest.locator('td[data-label="Delivered"]').textContent()).to.equal('—');
      expect(await oldest.locator('td[data-label="Last response"]').textContent()).to.equal('ok');
      expect(await oldest.locator('td[data-label="Delivered"] time').count()).to.equal(1);
      await screenshot(page, 'pages-webhook-endpoint-1280');

      await visit(page, `#/webhooks/${busy}`, 'Webhook endpoint');
      const busyRows = page.getByRole('region', { name: 'Deliveries table', exact: true }).locator('tbody tr');
      await page.getByRole('status').filter({ hasText: '20 most recent deliveries (more available).' }).first().waitFor();
      expect(await busyRows.count()).to.equal(20);
      await page.getByRole('button', { name: 'Load more' }).click();
      await page.getByRole('status').filter({ hasText: '21 most recent deliveries.' }).first().waitFor();
      expect(await busyRows.count()).to.equal(21);
      expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).to.equal(false);
    });

    it('keeps focus on the control pressed on an endpoint’s page, drawn anew after a test event, Disable, Enable and Re-send', async () => {
      // QA: focus fell to <body> after each.
      const receiver = await startWebhookReceiver();
      receivers.push(receiver);
      const created = await v1('/webhooks', { method: 'POST', body: { url: receiver.url, events: ['document.ready'], description: 'Focus check' } });
      expect(created.status).to.equal(201);
      await visit(page, `#/webhooks/${created.body.data.id}`, 'Webhook endpoint');
      const label = 'el.textContent';
      await page.getByRole('button', { name: 'Send test event' }).click();
      const deliveries = page.getByRole('region', { name: 'Deliveries table', exact: true });
      await deliveries.locator('tr[data-delivery-id]').first().waitFor();
      await focusOn(page, 'Send test event', label, 'focus on Send test event');

      const delivery = (await deliveries.locator('tr[data-delivery-id]').first().getAttribute('data-delivery-id'))!;
      await deliveries.locator(`tr[data-delivery-id="${delivery}"]`).getByRole('button', { name: /^Re-send/ }).click();
      await page.getByRole('status').filter({ hasText: 'The delivery is sent again.' }).first().waitFor();
      await focusOn(page, `Re-send|${delivery}`, "`${el.textContent}|${el.closest('tr')?.dataset.deliveryId}`", 'focus on the delivery’s Re-send button');

      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      await page.locator('[data-state="disabled"]').first().waitFor();
      await focusOn(page, 'Enable', label, 'focus on Enable, where Disable was');
      await page.getByRole('button', { name: 'Enable', exact: true }).click();
      await page.locator('section [data-state="enabled"]').first().waitFor();
      await focusOn(page, 'Disable', label, 'focus on Disable, where Enable was');
    });

    it('offers a key only the controls it may use: no acceptance for a restricted key, no changes without webhooks.write', async () => {
      const reader = await gw.app.key({ kind: 'restricted', scopes: ['settings.write', 'webhooks.read'] });
      const watched = await openPage(browser, DESKTOP);
      const p = watched.page;
      try {
        await signIn(p, reader.key);
        await visit(p, '#/settings', 'Router settings');
        const section = p.locator('section.acceptance');
        await section.waitFor();
        expect(await section.getByRole('button').count()).to.equal(0);
        expect(await section.textContent()).to.include('this console is signed in with a restricted key');

        await visit(p, '#/webhooks', 'Webhooks');
        await p.getByRole('region', { name: 'Webhook endpoints table', exact: true }).getByRole('link').first().waitFor();
        expect(await p.getByRole('form', { name: 'Add a webhook endpoint' }).count()).to.equal(0);
        await p.locator('[data-read-only]').waitFor();

        await visit(p, `#/webhooks/${failing}`, 'Webhook endpoint');
        await p.getByRole('region', { name: 'Deliveries table', exact: true }).locator('tbody tr').first().waitFor();
        for (const name of ['Send test event', 'Disable', 'Rotate secret…', 'Delete…']) expect(await p.getByRole('button', { name }).count(), name).to.equal(0);
        expect(await p.getByRole('button', { name: /^Re-send/ }).count()).to.equal(0);
        await p.locator('[data-read-only]').waitFor();
        await screenshot(p, 'pages-webhook-read-only-1280');

        // A key that may change them still gets every control.
        const writer = await gw.app.key({ kind: 'restricted', scopes: ['webhooks.read', 'webhooks.write'] });
        await p.getByRole('button', { name: 'Sign out' }).click();
        await signIn(p, writer.key);
        await visit(p, `#/webhooks/${failing}`, 'Webhook endpoint');
        await p.getByRole('button', { name: 'Send test event' }).waitFor();
        // (403s for the scopes it lacks elsewhere are expected answers, not script errors.)
        expect(watched.problems).to.deep.equal([]);
      } finally {
        await watched.context.close();
      }
    });
  });

  it('shows a refused save inside the open Edit-key dialog, and moves focus to it, on a phone and at 1280', async () => {
    // QA: at 390×844 the refusal was drawn below the dialog's visible area, at 1280 its reason was
    // cut off, and focus fell to <body> (the disabled Save button lost it) while the dialog stayed open.
    const created = await v1('/keys', { method: 'POST', body: { workspace: 'main', name: 'expiry-check', kind: 'restricted', scopes: ['usage.read'] } });
    expect(created.status).to.equal(201);
    try {
      for (const [viewport, submitBy] of [[PHONE, 'click'], [DESKTOP, 'click'], [DESKTOP, 'Enter']] as const) {
        await page.setViewportSize(viewport);
        await visit(page, '#/keys', 'API keys');
        const row = page.getByRole('region', { name: 'API keys table', exact: true }).locator(`tr[data-key-id="${created.body.data.id}"]`);
        await row.getByRole('button', { name: 'Edit expiry-check' }).click();
        const dialog = page.getByRole('dialog', { name: 'Edit “expiry-check”' });
        await dialog.waitFor();
        await dialog.getByLabel('Expires').fill('2020-01-01T10:00');
        if (submitBy === 'click') await dialog.getByRole('button', { name: 'Save changes' }).click();
        else await dialog.getByLabel('Name', { exact: true }).press('Enter');
        const alert = dialog.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).to.include('The key was not changed.').and.include('expires_at');
        const seen = await alert.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const shown = el.closest('dialog')!.getBoundingClientRect();
          return { top: box.top, bottom: box.bottom, shownTop: shown.top, shownBottom: shown.bottom, focused: el.contains(document.activeElement) };
        });
        const where = `${viewport.width}px, ${submitBy}`;
        expect(seen.top, `${where}: the alert starts above the dialog's visible area`).to.be.at.least(seen.shownTop - 0.5);
        expect(seen.bottom, `${where}: the alert ends below the dialog's visible area`).to.be.at.most(seen.shownBottom + 0.5);
        expect(seen.focused, `${where}: focus is not on the alert`).to.equal(true);
        if (viewport === PHONE) await screenshot(page, 'pages-edit-key-refused-390', { viewport: true });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });

  it('gives focus back to the key’s row after an edit is saved or a key is revoked (the page is drawn anew)', async () => {
    // QA: focus fell to <body> after both.
    const make = async (name: string) => {
      const created = await v1('/keys', { method: 'POST', body: { workspace: 'main', name, kind: 'restricted', scopes: ['usage.read'] } });
      expect(created.status).to.equal(201);
      return created.body.data.id as string;
    };
    const [edited, revoked] = [await make('focus-edit'), await make('focus-revoke')];
    await visit(page, '#/keys', 'API keys');
    // Drawn anew with the keys just made (the page may have been on #/keys already).
    await page.reload();
    const keys = page.getByRole('region', { name: 'API keys table', exact: true });
    await keys.getByRole('button', { name: 'Edit focus-edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “focus-edit”' });
    await dialog.getByLabel('Name', { exact: true }).fill('focus-edited');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await keys.getByRole('button', { name: 'Edit focus-edited' }).waitFor();
    await focusOn(page, `Edit focus-edited|${edited}`, "`${el.getAttribute('aria-label')}|${el.closest('tr')?.dataset.keyId}`", 'focus on the edited key’s Edit button');

    await keys.getByRole('button', { name: 'Revoke focus-revoke…' }).click();
    await page.getByRole('dialog', { name: 'Revoke “focus-revoke”?' }).getByRole('button', { name: 'Revoke key' }).click();
    await keys.locator(`tr[data-key-id="${revoked}"] [data-state="revoked"]`).waitFor();
    await focusOn(page, revoked, 'el.closest("tr")?.dataset.keyId', 'focus on the revoked key’s row');
  });

  it('offers a key without scores.write no Add-a-score form on a trace, and says why', async () => {
    // QA: a key with only traces.read was offered the form, and it failed only after submitting.
    const traced = await chat({ messages: [{ role: 'user', content: 'Score me' }] });
    expect(traced.status).to.equal(200);
    const id = traced.headers.get('x-request-id')!;
    await waitFor(async () => ((await v1(`/traces/${encodeURIComponent(id)}`)).status === 200 ? true : undefined), { what: 'the trace to score' });
    const reader = await gw.app.key({ kind: 'restricted', scopes: ['traces.read'] });
    const watched = await openPage(browser, DESKTOP);
    try {
      await signIn(watched.page, reader.key);
      await visit(watched.page, `#/traces/${encodeURIComponent(id)}`, /^Trace/);
      const scores = watched.page.locator('section', { has: watched.page.locator('#trace-scores-h') });
      await scores.locator('[data-read-only]').waitFor();
      expect(await scores.locator('[data-read-only]').textContent()).to.include('scores.write');
      expect(await watched.page.getByRole('form', { name: 'Add a score' }).count()).to.equal(0);
      expect(await watched.page.getByRole('button', { name: 'Add score' }).count()).to.equal(0);
      expect(watched.problems).to.deep.equal([]);
    } finally {
      await watched.context.close();
    }
  });

  it('shows each key’s id on the Keys page, short as the audit log’s Actor names it and whole on hover', async () => {
    // QA: the audit log and Router settings name keys by id, which the Keys page never showed.
    const created = await v1('/keys', { method: 'POST', body: { workspace: 'main', name: 'id-check', kind: 'restricted', scopes: ['usage.read'] } });
    expect(created.status).to.equal(201);
    await visit(page, '#/audit', 'Audit log');
    await page.getByLabel('Action', { exact: true }).selectOption('api_key.created');
    const entry = page.getByRole('region', { name: 'Audit log entries table', exact: true }).locator('tbody tr').first();
    await entry.locator('code.audit-action', { hasText: 'api_key.created' }).waitFor();
    const actor = (await entry.locator('td').nth(2).locator('code').textContent())!;

    await visit(page, '#/keys', 'API keys');
    await page.reload();
    const keys = page.getByRole('region', { name: 'API keys table', exact: true });
    const row = keys.locator(`tr[data-key-id="${created.body.data.id}"]`);
    const id = row.locator('code.key-id');
    await id.waitFor();
    expect(await id.textContent()).to.equal(created.body.data.id.slice(0, 8));
    expect(await id.getAttribute('title')).to.equal(created.body.data.id);
    // The actor of that entry, this console's key, is found on the Keys page by what the audit log shows.
    const actorRow = keys.locator('tr', { has: page.locator('code.key-id', { hasText: actor }) });
    expect(await actorRow.count()).to.equal(1);
    expect(await actorRow.getAttribute('data-key-id')).to.equal((await v1('/key')).body.data.id);
  });

  it('fits the Documents table at 1280 when a collection’s slug is long: the slug wraps', async () => {
    // QA: the Collection column's slug did not wrap, and the table took 898 px of a 664 px box.
    const slug = await createCollection(gw.app, gw.key, 'Claims department knowledge base for the helpdesk assistant in production');
    await ingest(gw.app, gw.key, { title: 'Voorwaarden', text: prose(400), collection: slug });
    await visit(page, '#/memory', 'Memory');
    await page.reload();
    const documents = page.getByRole('region', { name: 'Documents table', exact: true });
    await documents.locator('code', { hasText: slug }).waitFor();
    const overflow = await documents.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow, `the Documents table overflows its box by ${overflow}px`).to.be.at.most(0);
  });

  it('keeps buttons and tags whole beside long text at 1280, and a key card’s dates inside the card at 390', async () => {
    // QA: at 1280 “Forg/et”, “restricte/d”, “chat.cre/ate” and “Re-/send” broke mid-word; at 390
    // a key card’s “Last used …” ran past the card’s right edge.
    const created = await v1('/keys', {
      method: 'POST',
      body: {
        workspace: 'main',
        name: 'Claims helpdesk assistant for the damage department, production, second line',
        kind: 'restricted',
        scopes: ['chat.create', 'embeddings.create', 'memory.read', 'memory.write', 'traces.read', 'scores.write', 'audit.read', 'usage.read', 'webhooks.read', 'webhooks.write'],
        limits: { requests_per_minute: 600, tokens_per_minute: 1000000, credits_per_day: 250.5, credits_per_month: 5000 },
      },
    });
    expect(created.status).to.equal(201);
    expect((await chat({ messages: [{ role: 'user', content: 'Hallo' }] }, created.body.data.key)).status).to.equal(200);
    const longFact = `I keep my insurance papers at https://voorbeeld.nl/${'documenten/'.repeat(10)}polis.pdf and read them every Sunday before breakfast`;
    expect((await v1('/recall/facts', { method: 'POST', body: { user_ref: 'klant-lang', content: longFact } })).status).to.equal(202);
    await waitFor(async () => ((await v1('/recall/facts?user_ref=klant-lang')).body.data.length >= 1 ? true : undefined), { what: 'the long fact' });
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    receiver.script({ type: 'status', status: 500, body: `the receiving system refused this event: ${'maintenance window '.repeat(10)}` });
    const endpoint = (await v1('/webhooks', { method: 'POST', body: { url: receiver.url, events: ['document.ready'], description: 'Line breaks' } })).body.data.id as string;
    expect((await v1(`/webhooks/${endpoint}/test`, { method: 'POST' })).status).to.be.oneOf([200, 201, 202]);
    await waitFor(async () => ((await v1(`/webhooks/${endpoint}/deliveries`)).body.data[0]?.last_status_code === 500 ? true : undefined), { what: 'the refused delivery' });

    try {
      await visit(page, '#/keys', 'API keys');
      await page.reload();
      const keys = page.getByRole('region', { name: 'API keys table', exact: true });
      await keys.locator(`tr[data-key-id="${created.body.data.id}"]`).waitFor();
      expect(await brokenOverLines(keys, 'button, .tag, .badge, .key-kind'), 'keys table').to.deep.equal([]);

      await visit(page, '#/memory', 'Memory');
      await page.getByLabel('End-user reference (user_ref)').fill('klant-lang');
      await page.getByRole('button', { name: 'Show facts' }).click();
      await page.locator('[data-fact-count="1"]').waitFor();
      expect(await brokenOverLines(page.getByRole('region', { name: 'Facts about klant-lang table', exact: true }), 'button'), 'facts table').to.deep.equal([]);

      await visit(page, `#/webhooks/${endpoint}`, 'Webhook endpoint');
      const deliveries = page.getByRole('region', { name: 'Deliveries table', exact: true });
      await deliveries.locator('tr[data-delivery-id]').first().waitFor();
      expect(await brokenOverLines(deliveries, 'button, .badge, .tag'), 'deliveries table').to.deep.equal([]);

      await page.setViewportSize(PHONE);
      await visit(page, '#/keys', 'API keys');
      await page.reload();
      await keys.locator(`tr[data-key-id="${created.body.data.id}"]`).waitFor();
      const outside = await keys.locator('tbody tr').evaluateAll((rows) =>
        rows.flatMap((tr) => {
          const right = tr.getBoundingClientRect().right;
          return [...tr.querySelectorAll('td *')].filter((el) => el.getBoundingClientRect().right > right + 0.5).map((el) => el.textContent);
        }),
      );
      expect(outside, 'text past a key card’s right edge at 390').to.deep.equal([]);
      expect(await keys.evaluate((el) => el.scrollWidth - el.clientWidth), 'the keys table overflows at 390').to.be.at.most(0);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });

  it('tells a restricted key, with keys.write or without, that managing keys needs an organization key, and offers no keys.write to a new key', async () => {
    // QA: a restricted key without keys.write was told to sign in with a key that has keys.write,
    // which is refused too; and the create form offered keys.write, which a restricted key can never use.
    for (const scopes of [['usage.read'], ['usage.read', 'keys.write']] as const) {
      const restricted = await gw.app.key({ kind: 'restricted', scopes: [...scopes] });
      const watched = await openPage(browser, DESKTOP);
      try {
        await signIn(watched.page, restricted.key);
        await visit(watched.page, '#/keys', 'API keys');
        const note = watched.page.locator('[data-needs-organization-key]');
        await note.waitFor();
        const text = (await note.textContent())!;
        expect(text, scopes.join(',')).to.include('needs an organization key').and.not.match(/key that has (the scope )?keys\.write/);
        expect(await watched.page.getByRole('form', { name: 'Create an API key' }).count()).to.equal(0);
        expect(watched.problems).to.deep.equal([]);
      } finally {
        await watched.context.close();
      }
    }

    const holder = await v1('/keys', { method: 'POST', body: { workspace: 'main', name: 'holds-keys-write', kind: 'restricted', scopes: ['usage.read', 'keys.write'] } });
    expect(holder.status).to.equal(201);
    await visit(page, '#/keys', 'API keys');
    await page.reload();
    const create = page.getByRole('form', { name: 'Create an API key' });
    await create.getByRole('checkbox').first().waitFor();
    const offered = await create.locator('input[name="scopes"]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value));
    expect(offered).to.include('usage.read').and.not.include('keys.write');
    // A key that already holds it keeps it shown, saying it does nothing, so it can be taken away.
    await page.getByRole('button', { name: 'Edit holds-keys-write' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “holds-keys-write”' });
    const held = dialog.locator('label.check', { has: page.locator('input[value="keys.write"]') });
    expect(await held.locator('input').isChecked()).to.equal(true);
    expect(await held.textContent()).to.include('no effect');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('says in words that a date in the traces address is no date, not with the pattern it failed', async () => {
    // QA: #/traces?from=notadate read 'from must match pattern "^[0-9]{4}-…"'.
    await visit(page, '#/traces?from=notadate', 'Traces');
    const alert = page.getByRole('alert').filter({ hasText: 'The traces could not be loaded.' });
    await alert.waitFor();
    const text = (await alert.textContent())!;
    expect(text, text).to.match(/from\s*must be a date, such as \d{4}-\d{2}-\d{2}/).and.not.include('pattern').and.not.include('[0-9]');
    await visit(page, '#/traces', 'Traces');
  });

  it('met no script errors or CSP violations on the way', () => {
    expect(desktop.problems).to.deep.equal([]);
  });
});
