import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { NO_CHROMIUM, launchBrowser, newPage, shot, submit, signIn as signInAt, unexpected } from './helpers/browser';
import { SANDBOX_CREDENTIALS, demoSettings } from '../src/sandbox/demo-account';
import { defaultSettings } from '../src/store/accounts';
import { GATEWAYS } from '../src/gateways/registry';
import { maskSecret } from '../src/lib/mask';

// The whole account life cycle as a person does it, in headless Chromium (Debian's, driven by playwright-core):
// operator signs in and creates an account; its owner signs in, generates keys, stores credentials, sets routing,
// and follows a charge made through the API to its attempts and follow-ups. Screenshots go to test/artifacts/.
// (Events and coproducers: dashboard-browser-webhooks.test.ts.)

const ADMIN = { email: 'ops@browser.example.com', password: 'browser operator password' };
const OWNER = { name: 'Loja Navegador', email: 'owner@browser.example.com', password: 'browser owner password' };
// The gateway that takes the charge (F), the primary without credentials (P) and a fallback without them (G).
const demo = demoSettings(defaultSettings());
const F = demo.primaryGateway!;
const [P, G] = demo.gatewayFallbacks;
const nameOf = (id: string) => GATEWAYS.find((g) => g.id === id)!.name;

let e2e: E2E;
let browser: Browser;
const noChromium = NO_CHROMIUM();
before(async () => {
  if (noChromium) return;
  e2e = await startE2E({ ROUTEGATE_ADMIN_EMAIL: ADMIN.email, ROUTEGATE_ADMIN_PASSWORD: ADMIN.password });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await e2e?.close();
});

const signIn = (page: Page, email: string, password: string) => signInAt(page, e2e.sandbox.url, email, password);

const apiStatus = async (key: string) => {
  const res = await e2e.call('GET', '/api/v1/clients/me', { key });
  return { status: res.status, code: res.body?.error?.code, body: res.body };
};

test('operator creates an account; its owner generates keys, stores credentials, sets routing and follows a charge to its attempts and refund', { skip: noChromium }, async () => {
  const problems: string[] = [];
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const op = await newPage(desktop, problems);

  // Wrong password: an error next to the field and no session.
  await op.goto(`${e2e.sandbox.url}/dashboard/login`);
  await shot(op, 'login');
  await op.fill('#f-email', ADMIN.email);
  await op.fill('#f-password', 'not the password at all');
  await submit(op, 'button[type=submit]');
  assert.equal((await op.textContent('#f-password-error'))?.trim(), 'Wrong e-mail or password');
  await op.goto(`${e2e.sandbox.url}/dashboard/accounts`);
  assert.match(op.url(), /\/dashboard\/login$/, 'no session after a wrong password');

  // The operator signs in and creates the account with the owner's password.
  await signIn(op, ADMIN.email, ADMIN.password);
  await op.fill('#f-name', OWNER.name);
  await op.fill('#f-email', 'not-an-email');
  await submit(op, 'form[action="/dashboard/accounts"] button[type=submit]');
  assert.equal((await op.textContent('#f-email-error'))?.trim(), 'email must be an e-mail address', 'the error sits next to its field');
  await op.fill('#f-email', OWNER.email);
  await op.fill('#f-password', OWNER.password);
  await submit(op, 'form[action="/dashboard/accounts"] button[type=submit]');
  await op.waitForSelector('.alert.ok');
  assert.match((await op.textContent('.alert.ok'))!, /Account Loja Navegador created/);
  await op.fill('#q', 'navegador');
  await submit(op, 'form.search button');
  assert.equal(await op.locator('tbody tr[data-account]').count(), 1, 'search finds the one account');
  await shot(op, 'operator-accounts');
  const accountId = (await op.locator('tbody tr[data-account]').getAttribute('data-account'))!;

  // CSRF: the same form without its token is refused and creates nothing.
  await op.fill('#f-name', 'Sem Token');
  await op.fill('#f-email', 'notoken@browser.example.com');
  await op.evaluate(`document.querySelector('form[action="/dashboard/accounts"] input[name=_csrf]').remove()`);
  await submit(op, 'form[action="/dashboard/accounts"] button[type=submit]');
  assert.match((await op.textContent('main'))!, /not sent from a current dashboard page/);
  assert.ok(!(await e2e.sandbox.app.store.accounts.list()).some((a) => a.email === 'notoken@browser.example.com'), 'nothing was created');

  // The owner signs in (another browser) and generates a key: shown once, and it works against the API.
  const ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const owner = await newPage(ownerContext, problems);
  await signIn(owner, OWNER.email, OWNER.password);
  await submit(owner, 'nav >> text=API key');
  await submit(owner, 'button:has-text("Generate new key")');
  const first = (await owner.textContent('#new-key'))!.trim();
  assert.match(first, /^tk_[A-Za-z0-9]{40}$/);
  await owner.click('button.copy[data-copy="new-key"]');
  // The clipboard answers asynchronously: wait for the button to say it copied.
  await owner.waitForSelector('button.copy[data-copy="new-key"][data-copied="true"]', { timeout: 10_000 });
  await shot(owner, 'api-key');
  assert.equal((await apiStatus(first)).status, 200);
  await submit(owner, 'button:has-text("Generate new key")');
  const second = (await owner.textContent('#new-key'))!.trim();
  assert.notEqual(second, first);
  assert.deepEqual([(await apiStatus(first)).status, (await apiStatus(first)).code], [401, 'INVALID_API_KEY'], 'the first key is refused at once');
  assert.equal((await apiStatus(second)).status, 200);
  await owner.reload();
  assert.equal(await owner.locator('#new-key').count(), 0, 'the key is not shown again');

  // Credentials for one gateway: stored, shown masked, never in full.
  await submit(owner, 'nav >> text=Credentials');
  const card = owner.locator(`#gateway-${F}`);
  for (const [field, value] of Object.entries(SANDBOX_CREDENTIALS[F])) await card.locator(`input[name="${field}"]`).fill(value);
  await Promise.all([owner.waitForEvent('load'), card.locator('button[type=submit]').click()]);
  await owner.waitForSelector(`#gateway-${F} .badge.ok`);
  const text = (await owner.textContent('main'))!;
  for (const value of Object.values(SANDBOX_CREDENTIALS[F])) {
    assert.ok(!text.includes(value), 'a stored secret is never shown');
    assert.ok(text.includes(maskSecret(value)), `shown masked as ${maskSecret(value)}`);
  }
  assert.ok(!(await owner.content()).includes(SANDBOX_CREDENTIALS[F].secretKey ?? Object.values(SANDBOX_CREDENTIALS[F])[0]));
  await shot(owner, 'credentials');

  // Routing: primary P (no credentials), fallbacks G then F, ordered with the arrows.
  await submit(owner, 'nav >> text=Settings');
  await owner.selectOption('#f-primaryGateway', P);
  await owner.check(`li[data-gateway="${F}"] input[type=checkbox]`);
  await owner.check(`li[data-gateway="${G}"] input[type=checkbox]`);
  await submit(owner, 'button:has-text("Save settings")');
  await owner.waitForSelector('.alert.ok');
  const ticked = async () => owner.locator('ol.fallbacks li:has(input:checked)').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-gateway')));
  const before = await ticked();
  assert.deepEqual([...before].sort(), [F, G].sort());
  if (before[0] === F) await submit(owner, `button[value="down:${F}"]`);
  else {
    await submit(owner, `button[value="down:${G}"]`);
    assert.deepEqual(await ticked(), [F, G]);
    await submit(owner, `button[value="down:${F}"]`);
  }
  assert.deepEqual(await ticked(), [G, F], 'the arrows reorder the fallbacks');
  const me = (await apiStatus(second)).body.data.settings;
  assert.equal(me.primaryGateway, P);
  assert.deepEqual(me.gatewayFallbacks, [G, F]);
  await shot(owner, 'settings');

  // A charge made through the API: P and G skipped (why is shown), F took it as a fallback.
  const preauth = (amount: number) => e2e.call('POST', '/api/v1/charges', { key: second, body: { paymentMethod: 'credit_card', amount, capture: false, creditCard: CARD, customer: CUSTOMER, description: 'Pedido navegador' } });
  const made = await preauth(7500);
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.gateway, F);
  const chargeId = made.body.data.id as string;
  await submit(owner, 'nav >> text=Charges');
  await owner.selectOption('#f-gateway', F);
  await submit(owner, 'button:has-text("Filter")');
  assert.equal(await owner.locator(`tr[data-charge="${chargeId}"]`).count(), 1);
  await owner.selectOption('#f-gateway', P);
  await submit(owner, 'button:has-text("Filter")');
  assert.equal(await owner.locator(`tr[data-charge="${chargeId}"]`).count(), 0, 'the gateway filter applies');
  await owner.goto(`${e2e.sandbox.url}/dashboard/charges`);
  await submit(owner, `a:has-text("${chargeId}")`);
  const attempts = await owner.locator('table.attempts tbody tr').evaluateAll((rows) => rows.map((r) => ({
    gateway: r.getAttribute('data-gateway'), outcome: r.getAttribute('data-outcome'), reason: r.querySelector('td[data-label="Reason"]')!.textContent!.trim(),
  })));
  assert.deepEqual(attempts.map((a) => [a.gateway, a.outcome]), [[P, 'skipped'], [G, 'skipped'], [F, 'success']]);
  assert.match(attempts[1].reason, /^MISSING_CREDENTIALS/, 'the skip reason is visible');
  assert.ok(attempts[0].reason.length > 0);
  assert.match((await owner.textContent('main'))!, new RegExp(`fallback from ${nameOf(P)}`));
  await shot(owner, 'charge-detail');

  // Capture, then refund, with the buttons; the API agrees.
  await submit(owner, 'form[data-action="capture"] button');
  await owner.waitForSelector('.alert.ok');
  assert.match((await owner.textContent('.alert.ok'))!, /Captured/);
  // Money and time as a Brazilian merchant reads them: R$ with a decimal comma, São Paulo's clock.
  const fact = async (label: string) => (await owner.locator(`dl.facts dt:text-is("${label}") + dd`).textContent())!.replace(/\u00a0/g, ' ').trim();
  assert.equal(await fact('Amount'), 'R$ 75,00');
  const createdAt = made.body.data.createdAt as string;
  const saoPaulo = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
  assert.equal(await fact('Created'), saoPaulo.format(new Date(createdAt)).replace(/\u00a0/g, ' '));
  assert.match(await fact('Created'), /^\d\d\/\d\d\/\d{4}, \d\d:\d\d:\d\d BRT$/, 'dd/mm/yyyy in São Paulo, not UTC');
  // Refund amounts are typed in reais; 19,99 is 1999 cents exactly (19.99 * 100 is 1998.9999999999998 in floats).
  await owner.fill('form[data-action="refund"] input[name=amount]', '9999,99');
  await submit(owner, 'form[data-action="refund"] button');
  assert.match((await owner.textContent('form[data-action="refund"] .error'))!.replace(/\u00a0/g, ' '), /amount must be <= R\$ 75,00/, 'a refused refund says why, by the form, in reais');
  await owner.fill('form[data-action="refund"] input[name=amount]', '19.99');
  await submit(owner, 'form[data-action="refund"] button');
  assert.match((await owner.textContent('form[data-action="refund"] .error'))!, /must be in reais, like 50,00/, 'a dot is not a decimal separator in reais');
  await owner.fill('form[data-action="refund"] input[name=amount]', '19,99');
  await submit(owner, 'form[data-action="refund"] button');
  await owner.waitForSelector('.alert.ok');
  assert.equal((await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key: second })).body.data.refundedAmount, 1999);
  assert.equal(await fact('Amount'), 'R$ 75,00 · refunded R$ 19,99');
  await submit(owner, 'form[data-action="refund"] button');
  await owner.waitForSelector('.alert.ok');
  assert.equal((await owner.textContent('#charge-status'))?.trim(), 'refunded');
  const viaApi = (await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key: second })).body.data;
  assert.equal(viaApi.status, 'refunded');
  // And the gateway agrees: F captured the 7500 once and refunded all of it in the two refunds asked for (19,99, then
  // the rest), and no other gateway holds it.
  const held = (await e2e.control.ledger()).filter((e) => e.reference === chargeId || e.id === viaApi.externalId);
  assert.deepEqual(held.map((e) => [e.gateway, e.id, e.amount, e.paidAmount, e.refundedAmount, e.refunds]), [[F, viaApi.externalId, 7500, 7500, 7500, 2]]);
  assert.equal(viaApi.paidAmount, held[0].paidAmount);
  assert.equal(viaApi.refundedAmount, held[0].refundedAmount);

  // Cancel another pre-authorization.
  const other = await preauth(3000);
  await owner.goto(`${e2e.sandbox.url}/dashboard/charges/${other.body.data.id}`);
  await submit(owner, 'form[data-action="cancel"] button');
  await owner.waitForSelector('.alert.ok');
  assert.equal((await owner.textContent('#charge-status'))?.trim(), 'cancelled');
  // The authorization is released at the gateway: nothing captured, nothing left authorized.
  const voided = (await e2e.control.ledger(F)).filter((e) => e.id === other.body.data.externalId);
  assert.equal(voided.length, 1);
  assert.equal(voided[0].paidAmount, 0);
  assert.doesNotMatch(voided[0].status, /^(requires_capture|pending|authorized)$/i, `${F} still holds the authorization: ${voided[0].status}`);

  // The overview: webhook URL per gateway, and F's two charges in the 30-day chart.
  await submit(owner, 'nav >> text=Overview');
  const account = (await e2e.sandbox.app.store.accounts.get(accountId))!;
  for (const g of GATEWAYS) assert.equal((await owner.textContent(`#wh-${g.id}`))?.trim(), `${e2e.sandbox.app.config.publicUrl}/api/v1/webhooks/${g.id}/${account.webhookToken}`);
  assert.equal((await owner.textContent(`table.legend tr[data-gateway="${F}"] td:nth-child(2)`))?.trim(), '2');
  assert.equal(await owner.locator('.chart svg rect').count() >= 1, true);
  await shot(owner, 'overview');

  // Phone width: every owner page fits without sideways scrolling.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const mobile = await newPage(phone, problems);
  await signIn(mobile, OWNER.email, OWNER.password);
  for (const [name, p] of [['overview', '/dashboard/overview'], ['charges', '/dashboard/charges'], ['charge-detail', `/dashboard/charges/${chargeId}`], ['settings', '/dashboard/settings'], ['credentials', '/dashboard/credentials'], ['api-key', '/dashboard/api-key']]) {
    await mobile.goto(`${e2e.sandbox.url}${p}`);
    const [scroll, width] = await mobile.evaluate<number[]>('[document.documentElement.scrollWidth, window.innerWidth]');
    assert.ok(scroll <= width, `${p} overflows a phone screen: ${scroll} > ${width}`);
    await shot(mobile, `phone-${name}`);
  }

  // The operator deactivates the account: its key is refused (403) and its owner is signed out.
  await op.goto(`${e2e.sandbox.url}/dashboard/accounts`);
  await submit(op, `tr[data-account="${accountId}"] button:has-text("Deactivate")`);
  await op.waitForSelector(`tr[data-account="${accountId}"] .badge.off`);
  assert.deepEqual([(await apiStatus(second)).status, (await apiStatus(second)).code], [403, 'CLIENT_INACTIVE']);
  await owner.reload();
  assert.match(owner.url(), /\/dashboard\/login$/);
  await submit(op, `tr[data-account="${accountId}"] button:has-text("Activate")`);
  await op.waitForSelector(`tr[data-account="${accountId}"] .badge.ok`);
  assert.equal((await apiStatus(second)).status, 200);

  assert.deepEqual(unexpected(problems), [], 'no console errors (a CSP violation would be one)');
  await Promise.all([desktop.close(), ownerContext.close(), phone.close()]);
});

test('a page loads without one failing request or console error: the icon is served, not a 404', { skip: noChromium }, async () => {
  const problems: string[] = [];
  const context = await browser.newContext();
  const page = await newPage(context, problems);
  const failing: string[] = [];
  page.on('response', (r) => { if (r.status() >= 400) failing.push(`${r.status()} ${r.url()}`); });
  const icon = page.waitForResponse((r) => /favicon/.test(r.url()), { timeout: 10_000 });
  await page.goto(`${e2e.sandbox.url}/dashboard/login`);
  const answered = await icon;
  assert.equal(answered.status(), 200, answered.url());
  assert.equal(answered.headers()['content-type'], 'image/svg+xml');
  await page.waitForLoadState('networkidle');
  assert.deepEqual(failing, []);
  assert.deepEqual(problems, [], 'no console error at all, 4xx included');
  await context.close();
});
