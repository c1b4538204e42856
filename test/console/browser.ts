import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { fromRoot } from '../../src/paths.js';

// Real headless Chromium (Debian's package) driven by playwright-core, for the console tests.

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = fromRoot('test-artifacts', 'console');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Launches chromium, or fails with what to do: the console tests never skip. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the console tests need Debian's chromium. Run \`bash scripts/ensure-chromium.sh\` ` +
        '(as root it installs the package; otherwise `sudo apt-get install -y chromium`).',
    );
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Script errors, CSP violations and console errors seen so far (failed resource loads aside). */
  problems: string[];
}

/** A fresh context and page at the given viewport, watched for script errors and CSP reports. */
export async function openPage(browser: Browser, viewport: { width: number; height: number }): Promise<Watched> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    // A refused key is an expected 401: Chromium logs every failed response as a console error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  return { context, page, problems };
}

/** The whole page from the top; `viewport` for what is on screen (a modal dialog's backdrop covers only that). */
export async function screenshot(page: Page, name: string, { viewport = false } = {}): Promise<void> {
  if (viewport) {
    await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
    return;
  }
  // From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/** Signs in at `base`/console with `key` and waits for the signed-in page. */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('body:not(.signed-out)').waitFor();
}

/** Goes to a console page by its hash and waits for its heading. */
export async function visit(page: Page, hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}
