import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { ADAPTERS } from '../src/gateways/registry';
import { GatewayHttp } from '../src/gateways/http-client';
import { loadMappings } from '../src/mapping/loader';
import type { CallContext } from '../src/gateways/types';
import type { GatewayId } from '../src/gateways/registry-ids';
import { expectError } from './helper';
import { createAccountWithOwner } from '../src/accounts/onboarding';
import { DashboardClient } from './helpers/dashboard-client';
import { startWebhookHarness, PIX, type Merchant, type WebhookHarness } from './helpers/webhook-e2e';
import { mercadopagoNotification, pagbankHeaders, stripeEvent, stripeHeaders } from './helpers/gateway-webhooks';

// Issue 39 item 5: only verified events move money. Over real HTTP, against the emulators, each forged notification
// (no secret stored, a wrong secret, credentials deleted, another tenant's gateway id on the account-less URL)
// changes no charge and reaches the merchant backend as nothing verified; an event RouteGate could not verify is
// replaced by what the gateway says when RouteGate reads the charge itself; a PagBank event signed with the API token
// applies; a verified event that disagrees with its charge is flagged, not applied; every forwarded event says
// whether it was verified.

let h: WebhookHarness;
const http = new GatewayHttp();
const mappings = loadMappings();
before(async () => {
  h = await startWebhookHarness();
});
after(async () => {
  await http.close();
  await h.close();
});

let n = 0;
const uid = (p: string) => `${p}${process.pid}_${Date.now()}_${++n}`;
const JSON_ONLY = { 'content-type': 'application/json' };
const NOW_ISO = new Date().toISOString();

function without(gateway: GatewayId, ...keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(SANDBOX_CREDENTIALS[gateway]).filter(([k]) => !keys.includes(k)));
}

async function stored(m: Merchant, chargeId: string) {
  return (await h.e2e.call('GET', `/api/v1/charges/${chargeId}`, { key: m.apiKey })).body.data;
}

/** What the merchant backend received about a gateway id (the backend is shared by every account of the suite). */
function forwardedAbout(id: string): any[] {
  return h.backend.received.filter((r) => r.body.includes(id)).map((r) => JSON.parse(r.body));
}

/** A PaymentIntent succeeded event naming a charge, written by hand (nobody at Stripe made it). */
function forgedStripe(charge: any, object: Record<string, unknown> = {}): string {
  return stripeEvent(uid('evt_'), 'payment_intent.succeeded', {
    id: charge.externalId, object: 'payment_intent', amount: charge.amount, amount_received: charge.amount, currency: 'brl', status: 'succeeded',
    payment_method_types: ['pix'], metadata: { rg_charge_id: charge.id }, ...object,
  });
}

/** A PagBank order PAID, written by hand. */
function forgedPagbank(orderId: string, chargeId: string, amount: number): string {
  return JSON.stringify({
    id: orderId, reference_id: chargeId,
    charges: [{ id: uid('CHAR_'), reference_id: chargeId, status: 'PAID', amount: { value: amount, currency: 'BRL', summary: { total: amount, paid: amount, refunded: 0 } }, payment_method: { type: 'PIX' } }],
  });
}

/** The order as PagBank holds it (read straight from the emulator: RouteGate's row is untouched). */
async function pagbankOrder(charge: any): Promise<Record<string, unknown>> {
  const ctx: CallContext = {
    gateway: 'pagbank', baseUrl: h.e2e.sandbox.emulators.gatewayUrl('pagbank'), credentials: { ...SANDBOX_CREDENTIALS.pagbank }, http, mappings: mappings.get('pagbank')!,
    idempotencyKey: uid('read-'), chargeId: charge.id, timeoutMs: 5000, wire: h.e2e.sandbox.app.config.wire,
  };
  return (await ADAPTERS.pagbank.retrieveCharge(ctx, { externalId: charge.externalId, paymentMethod: 'pix', amount: charge.amount, refs: charge.refs })).raw as Record<string, unknown>;
}

test('stripe, no webhookSecret stored: a hand-written payment_intent.succeeded changes nothing and reaches no backend; once paid at Stripe the notification brings the gateway\'s answer, marked verified by that read', async () => {
  const m = await h.merchant({ credentials: { stripe: without('stripe', 'webhookSecret') } });
  const charge = await m.charge('stripe', PIX);
  assert.equal(charge.status, 'pending');

  for (const path of [m.path('stripe'), '/api/v1/webhooks/stripe']) {
    const res = await m.post(path, forgedStripe(charge), JSON_ONLY);
    assert.equal(res.status, 200, res.text);
    const row = await stored(m, charge.id);
    assert.equal(row.status, 'pending', `${path}: the charge did not move`);
    assert.equal(row.paidAmount, 0);
  }
  assert.deepEqual(forwardedAbout(charge.externalId), [], 'nothing reached the backend');
  const events = await m.events();
  assert.equal(events.length, 2, 'both notifications are stored for the record');
  for (const e of events) {
    assert.equal(e.verified, false);
    assert.equal(e.chargeId, null, 'attached to no charge');
    assert.equal(e.delivery, null, 'never forwarded');
  }
  // The merchant can still ask for one: it goes out saying it was never verified.
  const redelivered = await h.e2e.call('POST', `/api/v1/events/${events[0].id}/redeliver`, { key: m.apiKey });
  assert.equal(redelivered.status, 200, redelivered.text);
  const asked = forwardedAbout(charge.externalId);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].verified, false);
  assert.equal(asked[0].verifiedBy, null);
  assert.equal(asked[0].data.chargeId, null);

  // Paid at Stripe: the same unsigned notification makes RouteGate read the PaymentIntent, and what Stripe says applies.
  await h.e2e.control.pay('stripe', charge.externalId);
  const res = await m.post(m.path('stripe'), forgedStripe(charge, { amount_received: 1 }), JSON_ONLY);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.forwarded, true);
  const row = await stored(m, charge.id);
  assert.equal(row.status, 'approved');
  assert.equal(row.paidAmount, charge.amount, "the gateway's amount, not the notification's");
  const forwarded = forwardedAbout(charge.externalId).at(-1);
  assert.equal(forwarded.type, 'payment.approved');
  assert.equal(forwarded.verified, true);
  assert.equal(forwarded.verifiedBy, 'gateway_read');
  assert.equal(forwarded.data.chargeId, charge.id);
  assert.equal(forwarded.data.paidAmount, charge.amount);
  // The same state again (a retry, or one more forgery): one event per state the gateway showed.
  const again = await m.post(m.path('stripe'), forgedStripe(charge), JSON_ONLY);
  assert.equal(again.body.data.duplicate, true, again.text);
});

test('stripe, a wrong secret: 401, the charge does not move, nothing is stored or forwarded', async () => {
  const m = await h.merchant();
  const charge = await m.charge('stripe', PIX);
  const body = forgedStripe(charge);
  for (const path of [m.path('stripe'), '/api/v1/webhooks/stripe']) {
    expectError(await m.post(path, body, stripeHeaders(body, 'whsec_not_the_secret')), 'WEBHOOK_SIGNATURE_INVALID', 401);
  }
  assert.equal((await stored(m, charge.id)).status, 'pending');
  assert.deepEqual(await m.events(), []);
  assert.deepEqual(forwardedAbout(charge.externalId), []);
});

test('credentials deleted: forged Stripe, PagBank and Mercado Pago notifications are stored unverified, move no charge and are not forwarded', async () => {
  const m = await h.merchant();
  const atStripe = await m.charge('stripe', PIX);
  const atPagbank = await m.charge('pagbank', PIX);
  const atMp = await m.charge('mercadopago', PIX);
  for (const g of ['stripe', 'pagbank', 'mercadopago']) {
    const res = await h.e2e.call('DELETE', `/api/v1/credentials/${g}`, { key: m.apiKey });
    assert.equal(res.status, 200, res.text);
  }
  const posts = [
    [m.path('stripe'), forgedStripe(atStripe)], ['/api/v1/webhooks/stripe', forgedStripe(atStripe)],
    [m.path('pagbank'), forgedPagbank(atPagbank.externalId, atPagbank.id, atPagbank.amount)],
    ['/api/v1/webhooks/pagbank', forgedPagbank(atPagbank.externalId, atPagbank.id, atPagbank.amount)],
    [`${m.path('mercadopago')}?data.id=${atMp.externalId}&type=payment`, mercadopagoNotification(atMp.externalId)],
  ] as const;
  for (const [path, body] of posts) {
    const res = await m.post(path, body, JSON_ONLY);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
  }
  for (const c of [atStripe, atPagbank, atMp]) {
    const row = await stored(m, c.id);
    assert.equal(row.status, 'pending', `${c.gateway}: the charge did not move`);
    assert.equal(row.paidAmount, 0);
    assert.deepEqual(forwardedAbout(c.externalId), [], `${c.gateway}: nothing forwarded`);
  }
  const events = await m.events();
  assert.ok(events.length >= 4, JSON.stringify(events));
  assert.ok(events.every((e) => e.verified === false && e.chargeId === null && e.delivery === null), JSON.stringify(events));
});

test('pagbank with only the API token stored: an unsigned PAID does not move the charge; a wrong x-authenticity-token is refused; the genuine one, signed with the token, applies and is forwarded verified', async () => {
  const m = await h.merchant({ credentials: { pagbank: without('pagbank', 'webhookSecret') } });
  const charge = await m.charge('pagbank', PIX);
  const forged = forgedPagbank(charge.externalId, charge.id, charge.amount);
  const unsigned = await m.post(m.path('pagbank'), forged, JSON_ONLY);
  assert.equal(unsigned.status, 200, unsigned.text);
  assert.equal((await stored(m, charge.id)).status, 'pending', 'RouteGate read the order: PagBank says it is not paid');
  expectError(await m.post(m.path('pagbank'), forged, pagbankHeaders(forged, 'not-the-token')), 'WEBHOOK_SIGNATURE_INVALID', 401);
  expectError(await m.post('/api/v1/webhooks/pagbank', forged, pagbankHeaders(forged, 'not-the-token')), 'WEBHOOK_SIGNATURE_INVALID', 401);
  assert.equal((await stored(m, charge.id)).status, 'pending');
  assert.deepEqual(forwardedAbout(charge.externalId), []);

  await h.e2e.control.pay('pagbank', charge.externalId);
  const body = JSON.stringify(await pagbankOrder(charge));
  const res = await m.post(m.path('pagbank'), body, pagbankHeaders(body, SANDBOX_CREDENTIALS.pagbank.token));
  assert.equal(res.status, 200, res.text);
  const row = await stored(m, charge.id);
  assert.equal(row.status, 'approved');
  assert.equal(row.paidAmount, charge.amount);
  const forwarded = forwardedAbout(charge.externalId);
  assert.equal(forwarded.length, 1);
  assert.equal(forwarded[0].verified, true);
  assert.equal(forwarded[0].verifiedBy, 'signature');
  assert.equal(forwarded[0].data.chargeId, charge.id);
});

test("the account-less URL with another tenant's gateway id: a tenant cannot plant it on its own charge, and the victim's events stay the victim's", async () => {
  // The victim: Stripe with its webhookSecret, a pix waiting to be paid.
  const victim = await h.merchant();
  const target = await victim.charge('stripe', PIX);
  // The attacker: Stripe without a webhookSecret, in Stripe compatibility mode (its charges' gateway ids are indexed
  // for native calls), and a charge whose create never reached Stripe (no gateway id of its own).
  const attacker = await h.merchant({ credentials: { stripe: without('stripe', 'webhookSecret') }, settings: { primaryGateway: 'stripe', gatewayFallbacks: [] } });
  await h.e2e.control.fault('stripe', 'http500', { count: 20, method: 'POST', path: '/v1/payment_intents' });
  const failed = await h.e2e.call('POST', '/api/v1/charges', { key: attacker.apiKey, body: { gateway: 'stripe', ...PIX } });
  await h.e2e.control.clearFaults();
  assert.notEqual(failed.status, 201, failed.text);
  const own = (await h.e2e.call('GET', '/api/v1/charges?limit=1', { key: attacker.apiKey })).body.data[0];
  assert.ok(own && !own.externalId, JSON.stringify(own));
  const mode = await h.e2e.call('PATCH', '/api/v1/clients/settings', { key: attacker.apiKey, body: { compatibilityMode: 'stripe' } });
  assert.equal(mode.status, 200, mode.text);

  // Its own webhook names its own charge (metadata) with the victim's PaymentIntent id.
  const plant = forgedStripe({ ...own, externalId: target.externalId });
  assert.equal((await attacker.post(attacker.path('stripe'), plant, JSON_ONLY)).status, 200);
  const after = await stored(attacker, own.id);
  assert.notEqual(after.externalId, target.externalId, 'no gateway id from a webhook');
  assert.notEqual(after.status, 'approved');

  // The victim's genuine event, on the account-less URL: the victim's, applied, and nothing for the attacker.
  await h.e2e.control.pay('stripe', target.externalId);
  const genuine = forgedStripe(target);
  const res = await victim.post('/api/v1/webhooks/stripe', genuine, stripeHeaders(genuine, SANDBOX_CREDENTIALS.stripe.webhookSecret));
  assert.equal(res.status, 200, res.text);
  assert.equal((await stored(victim, target.id)).status, 'approved');
  assert.ok((await victim.events()).some((e) => e.chargeId === target.id && e.verified === true));
  const attackerEvents = await attacker.events();
  assert.ok(attackerEvents.every((e) => e.verified === false && e.chargeId === null), JSON.stringify(attackerEvents));
});

test('a verified event above the charge\'s amount, or in another currency, is stored and flagged: not applied, not forwarded, shown to the operator', async () => {
  const m = await h.merchant();
  const charge = await m.charge('stripe', PIX);
  const cases = [
    { object: { amount: charge.amount * 100, amount_received: charge.amount * 100 }, flag: /paidAmount \d+ exceeds the charge's amount/ },
    { object: { currency: 'usd' }, flag: /currency USD is not the charge's BRL/ },
  ];
  for (const c of cases) {
    const body = forgedStripe(charge, c.object);
    const res = await m.post(m.path('stripe'), body, stripeHeaders(body, SANDBOX_CREDENTIALS.stripe.webhookSecret));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.forwarded, false);
    const detail = (await h.e2e.call('GET', `/api/v1/events/${res.body.data.eventId}`, { key: m.apiKey })).body.data;
    assert.equal(detail.verified, true);
    assert.match(detail.flag, c.flag);
    assert.deepEqual(detail.deliveries, []);
  }
  const row = await stored(m, charge.id);
  assert.equal(row.status, 'pending');
  assert.equal(row.paidAmount, 0);
  assert.deepEqual(forwardedAbout(charge.externalId), []);
  const listed = await m.events();
  assert.equal(listed.length, 2);
  assert.ok(listed.every((e) => typeof e.flag === 'string'));

  // The same event within the charge's amount applies, and is forwarded saying it was verified by its signature.
  const good = forgedStripe(charge);
  const res = await m.post(m.path('stripe'), good, stripeHeaders(good, SANDBOX_CREDENTIALS.stripe.webhookSecret));
  assert.equal(res.status, 200, res.text);
  assert.equal((await stored(m, charge.id)).status, 'approved');
  const forwarded = forwardedAbout(charge.externalId);
  assert.equal(forwarded.length, 1);
  assert.equal(forwarded[0].verified, true);
  assert.equal(forwarded[0].verifiedBy, 'signature');
});

test('mercado pago without a webhookSecret: the payment read with the access token applies, forwarded as verified by that read', async () => {
  const m = await h.merchant({ credentials: { mercadopago: without('mercadopago', 'webhookSecret') } });
  const charge = await m.charge('mercadopago', PIX);
  await h.e2e.control.pay('mercadopago', charge.externalId);
  const res = await m.post(`${m.path('mercadopago')}?data.id=${charge.externalId}&type=payment`, mercadopagoNotification(charge.externalId), JSON_ONLY);
  assert.equal(res.status, 200, res.text);
  assert.equal((await stored(m, charge.id)).status, 'approved');
  const forwarded = forwardedAbout(charge.externalId).at(-1);
  assert.equal(forwarded.verified, true);
  assert.equal(forwarded.verifiedBy, 'gateway_read');
});

test('an event stored before events said whether they were verified is redelivered saying it, from its row', async () => {
  const m = await h.merchant();
  const { store } = h.e2e.sandbox.app;
  for (const verified of [true, false, null]) {
    const id = uid('evt_legacy');
    // As RouteGate stored events before: no verified/verifiedBy in the payload.
    const payload = JSON.stringify({ id, type: 'payment.approved', gateway: 'stripe', createdAt: NOW_ISO, data: { chargeId: null, externalId: id }, gatewayEvent: { type: 'payment_intent.succeeded', id: uid('evt_'), payload: {} } });
    await store.webhookEvents.insert({ id, accountId: m.id, gateway: 'stripe', gatewayEventId: uid('ge_'), type: 'payment.approved', chargeId: null, payload, createdAt: NOW_ISO, verified });
    const res = await h.e2e.call('POST', `/api/v1/events/${id}/redeliver`, { key: m.apiKey });
    assert.equal(res.status, 200, res.text);
    const [sent] = forwardedAbout(id);
    assert.equal(sent.verified, verified === true);
    assert.equal(sent.verifiedBy, verified === true ? 'signature' : null);
    assert.deepEqual(Object.keys(sent), ['id', 'type', 'gateway', 'createdAt', 'verified', 'verifiedBy', 'data', 'gatewayEvent']);
  }
});

test("the dashboard's Events pages show a flagged event to the account's owner: flagged, not applied, and why", async () => {
  const { app } = h.e2e.sandbox;
  const email = `${uid('owner')}@flags.example.com`;
  const { id, apiKey } = await createAccountWithOwner(app.store, app.logins, { name: 'Loja Flags', email, password: 'flags password 1' });
  await app.vault.save(id, 'stripe', SANDBOX_CREDENTIALS.stripe);
  const token = (await app.store.accounts.get(id))!.webhookToken;
  const created = await h.e2e.call('POST', '/api/v1/charges', { key: apiKey, body: { gateway: 'stripe', ...PIX } });
  assert.equal(created.status, 201, created.text);
  const charge = created.body.data;
  const body = forgedStripe(charge, { currency: 'usd' });
  const res = await h.e2e.call('POST', `/api/v1/webhooks/stripe/${token}`, { rawBody: body, headers: stripeHeaders(body, SANDBOX_CREDENTIALS.stripe.webhookSecret) });
  assert.equal(res.status, 200, res.text);

  const client = new DashboardClient(h.e2e.sandbox.url);
  assert.equal((await client.login(email, 'flags password 1')).location, '/dashboard');
  const list = await client.get('/dashboard/events');
  assert.equal(list.status, 200);
  assert.match(list.text, /flagged: not applied/);
  const detail = await client.get(`/dashboard/events/${res.body.data.eventId}`);
  assert.match(detail.text, /id="event-flag">currency USD is not the charge(&#39;|&#x27;|')s BRL: neither applied to the charge nor forwarded/);
});
