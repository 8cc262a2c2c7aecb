import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../../src/lib/paths';
import { TEST_CHROMIUM, unlessAvailable } from './services';

// What the browser tests share: Debian's headless Chromium driven by playwright-core, pages that record console
// errors, form submission that waits for the next page, screenshots under test/artifacts/ (not committed).

export const ARTIFACTS = path.join(ROOT, 'test', 'artifacts');

/** For a browser test's `{ skip }`: why it cannot run here, or false (test/helpers/services.ts). */
export const NO_CHROMIUM = (): string | false => unlessAvailable('chromium');

export async function launchBrowser(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: TEST_CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A page that accepts confirm dialogs and records every console error (a CSP violation would be one). */
export async function newPage(context: BrowserContext, problems: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return page;
}

/** Click something that loads a new page (a link, a form's button) and wait until that page has loaded. */
export async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.click(selector)]);
}

export const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Signs in from the dashboard's front door (a signed-out visitor lands on the sign-in page). */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/dashboard`);
  assert.match(page.url(), /\/dashboard\/login$/, 'signed-out visitors land on the sign-in page');
  await page.fill('#f-email', email);
  await page.fill('#f-password', password);
  await Promise.all([page.waitForURL(/\/dashboard\/(accounts|overview)$/), page.click('button[type=submit]')]);
}

/** 4xx answers the tests provoke on purpose show up as console errors; anything else is a problem. */
export function unexpected(problems: string[]): string[] {
  return problems.filter((p) => !/status of 4\d\d/.test(p));
}
