import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startE2E, eventually, CUSTOMER, type E2E } from './helpers/e2e';
import { NO_CHROMIUM, launchBrowser, newPage, shot, submit, signIn, unexpected } from './helpers/browser';
import { startReceiver, rgSignatureValid, type Receiver } from './helpers/webhook-receiver';
import { GATEWAYS } from '../src/gateways/registry';

// The owner's coproducers and events pages in headless Chromium, on the sandbox as `npm run sandbox` wires it
// (every emulator's webhooks reach the demo account's receiver): a coproducer added and edited with a bad
// recipient id refused next to its field, deleted; a pix paid through the emulator's control API shows up as an
// event, and "Redeliver" sends it to a local forward URL (a real HTTP server) with a new attempt on the page.

let e2e: E2E;
let browser: Browser;
const noChromium = NO_CHROMIUM();
let receiver: Receiver;
before(async () => {
  if (noChromium) return;
  e2e = await startE2E({}, undefined, { webhooks: true });
  browser = await launchBrowser();
  receiver = await startReceiver();
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await e2e?.close();
});

const RECIPIENT_GATEWAYS = GATEWAYS.filter((g) => g.splitRecipient);
// A valid recipient id for the first two gateways that check a format (stripe: acct_..., pagarme: rp_ + 16).
const VALID: Record<string, string> = { stripe: 'acct_1AnaCoprodutora', pagarme: 'rp_AnaCoprod1234567', asaas: '0b5f5a3c-1b8e-4c1a-9a53-6f0b8e3c1d2e', mercadopago: '123456789', pagbank: 'ACCO_0B5F5A3C-1B8E-4C1A-9A53-6F0B8E3C1D2E' };

test('the owner adds, edits and deletes coproducers (bad recipient ids refused next to the field), sees a paid pix as an event and redelivers it to a local forward URL', { skip: noChromium }, async () => {
  const { sandbox } = e2e;
  const key = sandbox.account.apiKey;
  const problems: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await newPage(context, problems);
  await signIn(page, sandbox.url, sandbox.logins.owner.email, sandbox.logins.owner.password);

  // A coproducer with a recipient id in the wrong format: the message sits under that gateway's field, nothing is stored.
  const [R1, R2] = RECIPIENT_GATEWAYS;
  await submit(page, 'nav >> text=Coproducers');
  await page.fill('#new-coproducer #f-email', 'ana@coprod.example.com');
  await page.fill('#new-coproducer #f-name', 'Ana Coprodutora');
  await page.fill(`#new-coproducer #f-recipients-${R1.id}`, 'not-a-recipient');
  await submit(page, '#new-coproducer button[type=submit]');
  assert.equal((await page.textContent(`#f-recipients-${R1.id}-error`))?.trim(), `${R1.id} must be ${R1.splitRecipient!.description}`);
  assert.equal(await page.inputValue('#new-coproducer #f-email'), 'ana@coprod.example.com', 'what was typed is kept');
  assert.equal((await e2e.call('GET', '/api/v1/coproducers', { key })).body.data.length, 0, 'nothing was created');
  await shot(page, 'coproducers-error');

  await page.fill(`#new-coproducer #f-recipients-${R1.id}`, VALID[R1.id]);
  await submit(page, '#new-coproducer button[type=submit]');
  assert.match((await page.textContent('.alert.ok'))!, /Coproducer ana@coprod\.example\.com added/);
  const listed = (await e2e.call('GET', '/api/v1/coproducers', { key })).body.data;
  assert.deepEqual(listed.map((c: any) => [c.email, c.name, c.recipients]), [['ana@coprod.example.com', 'Ana Coprodutora', { [R1.id]: VALID[R1.id] }]]);
  const anaId = listed[0].id as string;
  assert.equal((await page.textContent(`tr[data-coproducer="${anaId}"] .recipient[data-gateway="${R1.id}"] code`))?.trim(), VALID[R1.id]);

  // The same e-mail again: refused next to the e-mail field (the API's 409 COPRODUCER_EMAIL_TAKEN).
  await page.fill('#new-coproducer #f-email', 'ANA@coprod.example.com');
  await page.fill('#new-coproducer #f-name', 'Ana de novo');
  await submit(page, '#new-coproducer button[type=submit]');
  assert.match((await page.textContent('#new-coproducer #f-email-error'))!, new RegExp(`email is already used by coproducer ${anaId}`));

  // Edit one gateway's recipient: a bad one refused by its form, then a good one stored beside the first.
  await submit(page, `tr[data-coproducer="${anaId}"] a`);
  const form2 = `form[data-gateway="${R2.id}"]`;
  await page.fill(`${form2} input[name="recipients.${R2.id}"]`, 'nope');
  await submit(page, `${form2} button[type=submit]`);
  assert.equal((await page.textContent(`${form2} .error`))?.trim(), `${R2.id} must be ${R2.splitRecipient!.description}`);
  await page.fill(`${form2} input[name="recipients.${R2.id}"]`, VALID[R2.id]);
  await submit(page, `${form2} button[type=submit]`);
  assert.match((await page.textContent('.alert.ok'))!, new RegExp(`${R2.name} recipient saved`));
  assert.deepEqual((await e2e.call('GET', `/api/v1/coproducers/${anaId}`, { key })).body.data.recipients, { [R1.id]: VALID[R1.id], [R2.id]: VALID[R2.id] });
  await shot(page, 'coproducer-detail');

  // Delete one made through the API, from the list.
  const bia = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'bia@coprod.example.com', name: 'Bia' } });
  assert.equal(bia.status, 201, bia.text);
  await submit(page, 'nav >> text=Coproducers');
  await submit(page, `tr[data-coproducer="${bia.body.data.id}"] button:has-text("Delete")`);
  assert.match((await page.textContent('.alert.ok'))!, /Coproducer bia@coprod\.example\.com deleted/);
  assert.equal((await e2e.call('GET', `/api/v1/coproducers/${bia.body.data.id}`, { key })).status, 404);
  assert.equal(await page.locator(`tr[data-coproducer="${anaId}"]`).count(), 1, 'the other one stays');
  await shot(page, 'coproducers');

  // A pix charged through the API at the primary gateway, paid by the "payer" at the emulator: its webhook reaches
  // RouteGate's receiver and becomes an event. No forward URL yet, so it is stored, not forwarded.
  const charge = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 2590, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } } });
  assert.equal(charge.status, 201, charge.text);
  await e2e.control.pay(charge.body.data.gateway, charge.body.data.externalId);
  const event = await eventually(async () => (await e2e.call('GET', '/api/v1/events', { key })).body.data.find((e: any) => e.chargeId === charge.body.data.id));
  assert.equal(event.type, 'payment.approved');
  await submit(page, 'nav >> text=Events');
  const row = page.locator(`tr[data-event="${event.id}"]`);
  assert.equal(await row.getAttribute('data-delivery'), 'none');
  assert.equal((await row.locator('td[data-label="Event"] a').textContent())?.trim(), 'payment.approved');
  assert.equal((await row.locator('td[data-label="Charge"]').textContent())?.trim(), charge.body.data.id);
  assert.equal((await row.locator('td[data-label="Gateway"]').textContent())?.trim(), GATEWAYS.find((g) => g.id === charge.body.data.gateway)!.name);
  assert.equal((await row.locator('td[data-label="Signature"]').textContent())?.trim(), 'verified');
  await shot(page, 'events');

  // Redeliver without a forward URL: the service's refusal, next to the button.
  await submit(page, `tr[data-event="${event.id}"] td[data-label="Event"] a`);
  assert.match((await page.textContent('main'))!, /Never forwarded/);
  await submit(page, '#redeliver button');
  assert.match((await page.textContent('.alert.error'))!, /No webhookForwardUrl is set/);
  assert.equal(receiver.hits.length, 0);

  // The forward URL set in Settings (a local server), then "Redeliver now": a new delivery with its attempt.
  await submit(page, 'nav >> text=Settings');
  await page.fill('#f-webhookForwardUrl', receiver.url);
  await submit(page, 'button:has-text("Save settings")');
  await page.goto(`${sandbox.url}/dashboard/events/${event.id}`);
  await submit(page, '#redeliver button');
  assert.match((await page.textContent('.alert.ok'))!, /Redelivered: your backend answered 200/);
  const attempt = page.locator('table.deliveries tbody tr');
  assert.equal(await attempt.count(), 1);
  assert.equal(await attempt.getAttribute('data-outcome'), 'delivered');
  assert.equal((await attempt.locator('td[data-label="HTTP"]').textContent())?.trim(), '200');
  assert.match((await attempt.locator('td[data-label="Duration"]').textContent())!, /^\d+ ms$/);
  await shot(page, 'event-detail');

  // What the local server got: the event, signed with the demo account's secret (shown at start-up).
  assert.equal(receiver.hits.length, 1);
  const hit = receiver.hits[0];
  assert.equal(hit.body.id, event.id);
  assert.equal(hit.body.data.chargeId, charge.body.data.id);
  assert.ok(rgSignatureValid(hit.headers['x-rg-signature'], hit.raw, sandbox.account.webhookSigningSecret), 'X-RG-Signature verifies with the signing secret');
  // The same delivery through the API (one service behind both).
  const api = (await e2e.call('GET', `/api/v1/events/${event.id}`, { key })).body.data;
  assert.deepEqual(api.deliveries.map((d: any) => [d.status, d.attempts.map((a: any) => a.statusCode)]), [['delivered', [200]]]);
  await submit(page, 'nav >> text=Events');
  assert.equal(await page.locator(`tr[data-event="${event.id}"]`).getAttribute('data-delivery'), 'delivered');

  // Phone width: the new pages fit without sideways scrolling.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const mobile = await newPage(phone, problems);
  await signIn(mobile, sandbox.url, sandbox.logins.owner.email, sandbox.logins.owner.password);
  for (const [name, p] of [['events', '/dashboard/events'], ['event-detail', `/dashboard/events/${event.id}`], ['coproducers', '/dashboard/coproducers'], ['coproducer-detail', `/dashboard/coproducers/${anaId}`]]) {
    await mobile.goto(`${sandbox.url}${p}`);
    const [scroll, width] = await mobile.evaluate<number[]>('[document.documentElement.scrollWidth, window.innerWidth]');
    assert.ok(scroll <= width, `${p} overflows a phone screen: ${scroll} > ${width}`);
    await shot(mobile, `phone-${name}`);
  }

  assert.deepEqual(unexpected(problems), [], 'no console errors (a CSP violation would be one)');
  await Promise.all([context.close(), phone.close()]);
});
