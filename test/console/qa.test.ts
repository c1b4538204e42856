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

  it('met no script errors or CSP violations on the way', () => {
    expect(desktop.problems).to.deep.equal([]);
  });
});
