import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { GATEWAYS } from '../../src/gateways/registry';
import { expectError } from '../helper';
import { startWebhookHarness, type Merchant, type WebhookHarness } from '../helpers/webhook-e2e';
import { asaasEvent, asaasHeaders, stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';

// Issue 42 item 7: when a gateway is told its notification was taken. Asaas pauses an account's whole webhook queue
// after 15 failed deliveries, so it gets 200 once the event is in the outbox; Stripe keeps getting a non-2xx while
// the merchant backend is down (it retries, as the outbox does). Over real HTTP, the backend really stopped.

let h: WebhookHarness;
before(async () => {
  h = await startWebhookHarness();
});
after(() => h.close());

let seq = 0;
const uid = () => `${process.pid}${Date.now()}${++seq}`;

const asaasReceived = () => asaasEvent(`evt_${uid()}&1`, 'PAYMENT_RECEIVED', {
  object: 'payment', id: `pay_${uid()}`, value: 19.99, billingType: 'PIX', status: 'RECEIVED', paymentDate: '2030-01-01',
});
const sendAsaas = (m: Merchant, body: string) => m.post(m.path('asaas'), body, asaasHeaders(SANDBOX_CREDENTIALS.asaas.webhookSecret));

async function deliveryOf(m: Merchant, eventId: string): Promise<any> {
  return (await h.e2e.call('GET', `/api/v1/events/${eventId}`, { key: m.apiKey })).body.data.deliveries[0];
}

/** Waits for the background first attempt to be recorded on the delivery. */
async function attempted(m: Merchant, eventId: string, count: number): Promise<any> {
  const until = Date.now() + 10_000;
  for (;;) {
    const d = await deliveryOf(m, eventId);
    if (d && d.attempts.length >= count) return d;
    if (Date.now() > until) throw new Error(`delivery of ${eventId} has ${d?.attempts.length ?? 0} attempts, not ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('every gateway declares its acknowledgement: Asaas on store, the others after the backend took the event', () => {
  const acks = Object.fromEntries(GATEWAYS.map((g) => [g.id, g.webhookAck ?? 'after-forward']));
  assert.deepEqual(acks, { stripe: 'after-forward', pagarme: 'after-forward', asaas: 'on-store', mercadopago: 'after-forward', pagbank: 'after-forward' });
});

test('backend down: an Asaas event gets 200 once stored, waits in the outbox, and is delivered once when the backend is back', async () => {
  const m = await h.merchant();
  await h.backend.stop();
  try {
    const body = asaasReceived();
    const first = await sendAsaas(m, body);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.queued, true);
    assert.equal(first.body.data.forwarded, false);
    const eventId = first.body.data.eventId;
    const failed = await attempted(m, eventId, 1);
    assert.equal(failed.status, 'pending');
    assert.equal(failed.attempts[0].outcome, 'failed');

    // Asaas sends it again (it is at-least-once): 200 at once, still one event.
    const again = await sendAsaas(m, body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.duplicate, true);
    assert.equal(again.body.data.eventId, eventId);
    await attempted(m, eventId, 2);
    assert.equal((await m.events()).filter((e) => e.id === eventId).length, 1);
  } finally {
    await h.backend.start();
  }
  const [event] = await m.events();
  const before = h.backend.received.length;
  assert.equal(await h.e2e.sandbox.app.webhooks.worker.runDue(Date.now() + 10 * 60_000), 1);
  assert.equal(h.backend.received.length, before + 1);
  assert.equal(JSON.parse(h.backend.received.at(-1)!.body).id, event.id);
  assert.equal((await deliveryOf(m, event.id)).status, 'delivered');
  assert.equal(await h.e2e.sandbox.app.webhooks.worker.runDue(Date.now() + 60 * 60_000), 0, 'delivered once');
});

test('backend up: an Asaas event is still forwarded right away (the first attempt runs without the gateway waiting)', async () => {
  const m = await h.merchant();
  const before = h.backend.received.length;
  const res = await sendAsaas(m, asaasReceived());
  assert.equal(res.status, 200, res.text);
  await h.backend.waitFor(before + 1);
  // The backend has the event; the delivery's row says so once the attempt's answer is written.
  let delivery = await attempted(m, res.body.data.eventId, 1);
  for (const until = Date.now() + 10_000; delivery.status !== 'delivered' && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 50));
    delivery = await deliveryOf(m, res.body.data.eventId);
  }
  assert.equal(delivery.status, 'delivered');
});

test('backend down: a Stripe event gets 502 (Stripe retries it), and 200 once the backend took it', async () => {
  const m = await h.merchant();
  const secret = SANDBOX_CREDENTIALS.stripe.webhookSecret;
  const body = stripeEvent(`evt_ack_${uid()}`, 'payment_intent.succeeded', {
    id: `pi_ack_${uid()}`, object: 'payment_intent', amount: 1500, amount_received: 1500, currency: 'brl', status: 'succeeded', payment_method_types: ['card'], metadata: {},
  });
  const send = () => m.post(m.path('stripe'), body, stripeHeaders(body, secret));
  await h.backend.stop();
  try {
    expectError(await send(), 'WEBHOOK_NOT_DELIVERED', 502);
  } finally {
    await h.backend.start();
  }
  const again = await send();
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.forwarded, true);
  assert.equal(again.body.data.queued, undefined);
});
