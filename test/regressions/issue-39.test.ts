import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { startWebhookHarness, PIX, type Merchant, type WebhookHarness } from '../helpers/webhook-e2e';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';
import { CARD, CUSTOMER } from '../helpers/e2e';
import type { GatewayId } from '../../src/gateways/registry-ids';

// Issue 39, the defects at its top reproduced as tests (the chaos suite, test/chaos.test.ts, covers the others:
// the double charge after a slow gateway, the refund twice after a crash, the refund answered 502, PagBank after
// SIGKILL). Every check is against the emulators' ledgers or the charge as the gateway holds it.

let h: WebhookHarness;
before(async () => {
  h = await startWebhookHarness({ ROUTEGATE_GATEWAY_TIMEOUT_MS: '300', ROUTEGATE_REQUEST_DEADLINE_MS: '3000' });
});
after(() => h.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
const uid = () => `${process.pid}_${Date.now()}_${++seq}`;

/** The charge as RouteGate stores it (the plain read, no refresh). */
const stored = async (m: Merchant, id: string) => (await h.e2e.call('GET', `/api/v1/charges/${id}`, { key: m.apiKey })).body.data;

/** Events forwarded to the merchant's backend about this charge that do not say they were unverified. */
const forwardedAsVerified = (chargeId: string) => h.backend.received.map((r) => JSON.parse(r.body))
  .filter((e) => JSON.stringify(e).includes(chargeId) && e.verified !== false);

// "Refund twice after a slow refund": the refund times out (504), the next request re-reads before the gateway has
// applied it, the attempt is marked reconciled, and the retry refunds again. An operation whose outcome is unknown
// must block the next one (409) until it is settled; the ledger holds one refund whatever the client does.
for (const gateway of ['asaas', 'pagarme'] as GatewayId[]) {
  test(`${gateway}: a refund held past the timeout, then retried at once by the client, is one refund at the gateway`, async () => {
    const m = await h.merchant({ settings: { primaryGateway: gateway, gatewayFallbacks: [] } });
    const charge = await m.charge(gateway, { paymentMethod: 'credit_card', amount: 6000, customer: CUSTOMER, creditCard: CARD });
    const method = gateway === 'pagarme' ? 'DELETE' : 'POST';
    // Twice: Pagar.me keeps keys, so RouteGate replays the refund under the same key at once; the replay is held too.
    await h.e2e.control.fault(gateway, 'latency', { count: 2, latencyMs: 1_200, method });
    const first = await h.e2e.call('POST', `/api/v1/charges/${charge.id}/refunds`, { key: m.apiKey, body: { amount: 1000 }, headers: { 'idempotency-key': `slow-${uid()}` } });
    assert.equal(first.status, 504, `the refund is unknown while the gateway holds it: ${first.text}`);
    // The client retries at once, as a client that got 504 would (a new request: the first one's key is still unknown).
    const retry = await h.e2e.call('POST', `/api/v1/charges/${charge.id}/refunds`, { key: m.apiKey, body: { amount: 1000 } });
    await h.e2e.control.clearFaults(gateway);
    await sleep(2_000); // the gateway applies the held refunds (one refund: the replay carries the same key)
    const held = (await h.e2e.control.ledger(gateway)).find((e) => e.id === charge.externalId)!;
    assert.equal(held.refunds, 1, `${gateway} refunded ${held.refunds} times (second answer ${retry.status} ${retry.text.slice(0, 200)})`);
    assert.equal(held.refundedAmount, 1000);
    assert.equal(retry.status, 409, `a refund whose outcome is unknown blocks the next one: ${retry.text}`);
  });
}

/** A pending pix at `gateway` for this merchant, and what the gateway holds for it. */
async function pendingPix(m: Merchant, gateway: GatewayId) {
  const charge = await m.charge(gateway, PIX);
  assert.equal(charge.status, 'pending');
  return charge;
}

/** The charge has not moved: still pending with nothing paid, stored and at its gateway. */
async function unchanged(m: Merchant, gateway: GatewayId, charge: { id: string; externalId: string }, when = 'a forged event') {
  const now = await stored(m, charge.id);
  assert.equal(now.status, 'pending', `${when} moved the charge: ${JSON.stringify(now)}`);
  assert.equal(now.paidAmount, 0);
  const held = (await h.e2e.control.ledger(gateway)).find((e) => e.id === charge.externalId || e.reference === charge.id);
  assert.equal(held?.paidAmount, 0, 'the gateway holds it unpaid');
  assert.deepEqual(forwardedAsVerified(charge.id), [], 'nothing reached the backend as a verified event');
}

const stripeSucceeded = (charge: { id: string; externalId: string }) => stripeEvent(`evt_forged_${uid()}`, 'payment_intent.succeeded', {
  id: charge.externalId, object: 'payment_intent', amount: 1999, amount_received: 1999, currency: 'brl', status: 'succeeded', payment_method_types: ['pix'], metadata: { rg_charge_id: charge.id },
});

test('forged: a Stripe payment_intent.succeeded with no webhookSecret stored never moves the charge nor reaches the backend as verified', async () => {
  const { webhookSecret: _omit, ...noSecret } = SANDBOX_CREDENTIALS.stripe;
  const m = await h.merchant({ credentials: { stripe: noSecret } });
  const charge = await pendingPix(m, 'stripe');
  const body = stripeSucceeded(charge);
  const res = await m.post(m.path('stripe'), body, { 'content-type': 'application/json' });
  assert.ok(res.status < 500, res.text);
  await unchanged(m, 'stripe', charge);
});

test('forged: a PagBank PAID with no webhookSecret stored (the API token only) never moves the charge nor reaches the backend as verified', async () => {
  const { webhookSecret: _omit, ...tokenOnly } = SANDBOX_CREDENTIALS.pagbank;
  const m = await h.merchant({ credentials: { pagbank: tokenOnly } });
  const charge = await pendingPix(m, 'pagbank');
  const body = JSON.stringify({
    id: charge.externalId, reference_id: charge.id,
    charges: [{ id: `CHAR_${uid()}`, reference_id: charge.id, status: 'PAID', amount: { value: 1999, currency: 'BRL', summary: { total: 1999, paid: 1999, refunded: 0 } }, payment_method: { type: 'PIX' } }],
  });
  const res = await m.post(m.path('pagbank'), body, { 'content-type': 'application/json' });
  assert.ok(res.status < 500, res.text);
  await unchanged(m, 'pagbank', charge);
});

test('forged: signed with a wrong secret, or after the credentials were deleted, an event never moves the charge', async () => {
  const m = await h.merchant();
  const charge = await pendingPix(m, 'stripe');
  const wrong = stripeSucceeded(charge);
  await m.post(m.path('stripe'), wrong, stripeHeaders(wrong, 'whsec_not_this_accounts'));
  await unchanged(m, 'stripe', charge, 'an event signed with a wrong secret');
  const deleted = await h.e2e.call('DELETE', '/api/v1/credentials/stripe', { key: m.apiKey });
  assert.ok(deleted.status < 300, deleted.text);
  // Signed with the secret the account had: with the credentials gone nothing verifies it any more.
  const after = stripeSucceeded(charge);
  const res = await m.post(m.path('stripe'), after, stripeHeaders(after, SANDBOX_CREDENTIALS.stripe.webhookSecret));
  assert.ok(res.status < 500, res.text);
  await unchanged(m, 'stripe', charge, 'an event arriving after the credentials were deleted');
});

test("forged: a tenant cannot plant another tenant's gateway id through its own webhook, and never receives the other's events", async () => {
  const victim = await h.merchant();
  const target = await pendingPix(victim, 'stripe');
  const attacker = await h.merchant({ credentials: { stripe: { ...SANDBOX_CREDENTIALS.stripe, webhookSecret: 'whsec_attacker_own_secret_0001' } } });
  const own = await pendingPix(attacker, 'stripe');
  // Its own URL, its own secret: an event naming the victim's PaymentIntent as its own charge's.
  const plant = stripeEvent(`evt_plant_${uid()}`, 'payment_intent.succeeded', {
    id: target.externalId, object: 'payment_intent', amount: 1999, amount_received: 1999, currency: 'brl', status: 'succeeded', payment_method_types: ['pix'], metadata: { rg_charge_id: own.id },
  });
  await attacker.post(attacker.path('stripe'), plant, stripeHeaders(plant, 'whsec_attacker_own_secret_0001'));
  assert.equal((await stored(attacker, own.id)).externalId, own.externalId, "a charge's gateway id comes only from the gateway's answer to RouteGate's call");
  // The victim's charge is paid at Stripe, and Stripe notifies the account-less URL: the victim gets it, the attacker does not.
  await h.e2e.control.pay('stripe', target.externalId);
  const genuine = stripeSucceeded(target);
  const res = await victim.post('/api/v1/webhooks/stripe', genuine, stripeHeaders(genuine, SANDBOX_CREDENTIALS.stripe.webhookSecret));
  assert.equal(res.status, 200, res.text);
  // The attacker's own planted event stays in its list, flagged (it names another PaymentIntent) and never applied.
  const seen = (await attacker.events()).filter((e) => e.chargeId === target.id || (!e.flag && JSON.stringify(e).includes(target.externalId)));
  assert.deepEqual(seen, [], "the attacker never sees the victim's event");
  assert.equal((await stored(attacker, own.id)).paidAmount, 0, "an event about another PaymentIntent (the victim's) never moves the attacker's charge");
});
