import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { AccountService } from '../../src/accounts/service';
import { clock } from '../../src/lib/clock';
import { retryDelayMs } from '../../src/webhooks/backoff';
import { expectError } from '../helper';
import { startWebhookHarness, type Merchant, type WebhookHarness } from '../helpers/webhook-e2e';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';
import type { Received } from '../helpers/merchant-backend';

// Issue 12 items 4 to 6: dedupe, the outbox (502 while the backend is down, retried with backoff until it is back),
// forwarded signatures both ways (the standardwebhooks library and a plain HMAC), rotation with a 24-hour overlap,
// and the merchant's events API.

let h: WebhookHarness;
before(async () => {
  h = await startWebhookHarness();
});
after(() => h.close());
const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
  h.backend.failWith = undefined;
});

let seq = 0;
const secret = SANDBOX_CREDENTIALS.stripe.webhookSecret;
function succeeded(amount = 15000): string {
  seq += 1;
  return stripeEvent(`evt_delivery_${process.pid}_${seq}`, 'payment_intent.succeeded', {
    id: `pi_delivery_${seq}`, object: 'payment_intent', amount, amount_received: amount, currency: 'brl', status: 'succeeded', payment_method_types: ['card'], metadata: {},
  });
}
const send = (m: Merchant, body: string) => m.post(m.path('stripe'), body, stripeHeaders(body, secret, Math.floor(clock.now() / 1000)));

/** X-RG-Signature checked as a merchant would with nothing but node:crypto. */
function plainHmacOk(r: Received, key: string): boolean {
  const header = String(r.headers['x-rg-signature']);
  const t = /(?:^|,)t=(\d+)/.exec(header)![1];
  const expected = createHmac('sha256', key).update(`${t}.${r.body}`).digest('hex');
  return [...header.matchAll(/v1=([0-9a-f]+)/g)].some((m) => m[1] === expected);
}

function standardOk(r: Received, key: string): boolean {
  try {
    new Webhook(key).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

test('forwarded events verify with the standardwebhooks library and with a plain HMAC of "t.body"; a wrong secret verifies with neither', async () => {
  const m = await h.merchant();
  assert.match(m.signingSecret, /^whsec_[A-Za-z0-9+/]+=*$/);
  const res = await send(m, succeeded());
  assert.equal(res.status, 200, res.text);
  const got = h.backend.received.at(-1)!;
  const event = JSON.parse(got.body);
  assert.equal(got.headers['webhook-id'], event.id);
  assert.match(String(got.headers['x-rg-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
  assert.ok(standardOk(got, m.signingSecret), 'standardwebhooks verifies');
  assert.ok(plainHmacOk(got, m.signingSecret), 'plain HMAC verifies');
  const other = (await new AccountService(h.e2e.sandbox.app.store, h.e2e.sandbox.app.config.masterKey).create('Outra', 'outra@example.com')).webhookSigningSecret!;
  assert.ok(!standardOk(got, other) && !plainHmacOk(got, other));
  assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'data', 'gateway', 'gatewayEvent', 'id', 'occurredAt', 'type', 'verified', 'verifiedBy']);
  assert.equal(event.verified, true, 'every forwarded event says whether it was verified');
  assert.equal(event.verifiedBy, 'signature');
  assert.equal(event.type, 'payment.approved');
  assert.equal(event.data.amount, 15000);
  assert.equal(event.gatewayEvent.type, 'payment_intent.succeeded');
});

test('the same gateway event twice, and three copies at once, are processed and forwarded once', async () => {
  const m = await h.merchant();
  const body = succeeded();
  const before = h.backend.received.length;
  assert.equal((await send(m, body)).status, 200);
  const again = await send(m, body);
  assert.equal(again.status, 200);
  assert.equal(again.body.data.duplicate, true);
  const burst = succeeded();
  const answers = await Promise.all([send(m, burst), send(m, burst), send(m, burst)]);
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
  assert.equal(h.backend.received.length, before + 2);
  assert.equal((await m.events()).length, 2);
});

test('backend down: the gateway gets 502 and the event waits in the outbox; retried with backoff, delivered once the backend is back', async () => {
  const m = await h.merchant();
  h.backend.failWith = 503;
  const body = succeeded(777);
  const first = await send(m, body);
  expectError(first, 'WEBHOOK_NOT_DELIVERED', 502);
  const [event] = await m.events();
  assert.equal(event.delivery, 'pending');
  const detail = (await h.e2e.call('GET', `/api/v1/events/${event.id}`, { key: m.apiKey })).body.data;
  const [delivery] = detail.deliveries;
  assert.equal(delivery.attempts[0].statusCode, 503);
  assert.match(delivery.attempts[0].error, /503/);
  // First retry about a minute later (jittered), not before.
  const due = Date.parse(delivery.nextAttemptAt) - Date.now();
  assert.ok(due > 40_000 && due < 80_000, `next attempt in ${due} ms`);
  const worker = h.e2e.sandbox.app.webhooks.worker;
  assert.equal(await worker.runDue(Date.now()), 0, 'nothing is due yet');

  // The gateway retries while the backend is still down: still 502, one more attempt.
  expectError(await send(m, body), 'WEBHOOK_NOT_DELIVERED', 502);
  h.backend.failWith = undefined;
  const before = h.backend.received.length;
  assert.equal(await worker.runDue(Date.now() + 5 * 60_000), 1);
  assert.equal(h.backend.received.length, before + 1);
  assert.equal(JSON.parse(h.backend.received.at(-1)!.body).id, event.id);
  const after = (await h.e2e.call('GET', `/api/v1/events/${event.id}`, { key: m.apiKey })).body.data.deliveries[0];
  assert.equal(after.status, 'delivered');
  assert.deepEqual(after.attempts.map((a: any) => a.outcome), ['failed', 'failed', 'delivered']);
  // A gateway redelivery of an event already forwarded gets 200 at once, and nothing is sent again.
  const redelivered = await send(m, body);
  assert.equal(redelivered.status, 200);
  assert.equal(h.backend.received.length, before + 1);
});

test('the backoff doubles from one minute to six hours with jitter; after three days a delivery is given up', async () => {
  for (let n = 1; n <= 12; n++) {
    const nominal = Math.min(60_000 * 2 ** (n - 1), 6 * 3600_000);
    assert.equal(retryDelayMs(n, 60_000, () => 0.5), nominal);
    assert.equal(retryDelayMs(n, 60_000, () => 0), Math.round(nominal * 0.8));
    assert.equal(retryDelayMs(n, 60_000, () => 1), Math.round(nominal * 1.2));
  }
  const m = await h.merchant();
  h.backend.failWith = 500;
  expectError(await send(m, succeeded()), 'WEBHOOK_NOT_DELIVERED', 502);
  const [event] = await m.events();
  const start = Date.now();
  clock.now = () => start + 3 * 24 * 3600_000 + 60_000;
  assert.equal(await h.e2e.sandbox.app.webhooks.worker.runDue(clock.now()), 1);
  const detail = (await h.e2e.call('GET', `/api/v1/events/${event.id}`, { key: m.apiKey })).body.data.deliveries[0];
  assert.equal(detail.status, 'failed');
  assert.equal(detail.nextAttemptAt, null);
  assert.equal(await h.e2e.sandbox.app.webhooks.worker.runDue(clock.now() + 86_400_000), 0, 'a given-up delivery is not retried');
});

test('rotate-secret: both secrets sign for 24 hours, then only the new one', async () => {
  const m = await h.merchant();
  const accounts = new AccountService(h.e2e.sandbox.app.store, h.e2e.sandbox.app.config.masterKey);
  const rotated = (await accounts.rotateSigningSecret(m.id))!;
  assert.notEqual(rotated.webhookSigningSecret, m.signingSecret);
  assert.ok(Math.abs(Date.parse(rotated.previousSecretsExpireAt!) - (Date.now() + 86_400_000)) < 5_000);
  assert.equal((await send(m, succeeded())).status, 200);
  let got = h.backend.received.at(-1)!;
  assert.equal([...String(got.headers['x-rg-signature']).matchAll(/v1=/g)].length, 2);
  for (const key of [m.signingSecret, rotated.webhookSigningSecret]) {
    assert.ok(standardOk(got, key) && plainHmacOk(got, key), 'both secrets verify during the overlap');
  }
  const start = Date.now();
  clock.now = () => start + 86_400_000 + 1_000;
  // standardwebhooks checks the timestamp against the real clock: verify this one by HMAC, and the library on the next.
  assert.equal((await send(m, succeeded())).status, 200);
  got = h.backend.received.at(-1)!;
  assert.ok(plainHmacOk(got, rotated.webhookSigningSecret));
  assert.ok(!plainHmacOk(got, m.signingSecret), 'the old secret no longer signs');
  assert.equal(String(got.headers['webhook-signature']).split(' ').length, 1);
});

test('events API: newest first with a cursor, one event with its attempts, redeliver; other accounts see nothing', async () => {
  const m = await h.merchant();
  for (let i = 0; i < 3; i++) assert.equal((await send(m, succeeded(1000 + i))).status, 200);
  const page1 = (await h.e2e.call('GET', '/api/v1/events?limit=2', { key: m.apiKey })).body;
  assert.equal(page1.data.length, 2);
  const page2 = (await h.e2e.call('GET', `/api/v1/events?limit=2&cursor=${page1.pagination.nextCursor}`, { key: m.apiKey })).body;
  assert.equal(page2.data.length, 1);
  assert.equal(page2.pagination.nextCursor, null);
  const all = [...page1.data, ...page2.data];
  const amounts = await Promise.all(all.map(async (e: any) => (await h.e2e.call('GET', `/api/v1/events/${e.id}`, { key: m.apiKey })).body.data.data.amount));
  assert.deepEqual(amounts, [1002, 1001, 1000], 'newest first');
  expectError(await h.e2e.call('GET', '/api/v1/events?cursor=bm9wZQ', { key: m.apiKey }), 'VALIDATION_ERROR', 400);

  const id = all[0].id;
  const before = h.backend.received.length;
  const re = await h.e2e.call('POST', `/api/v1/events/${id}/redeliver`, { key: m.apiKey });
  assert.equal(re.status, 200, re.text);
  assert.equal(re.body.data.delivery.status, 'delivered');
  assert.equal(re.body.data.delivery.attempts[0].statusCode, 200);
  assert.ok(Number.isInteger(re.body.data.delivery.attempts[0].durationMs));
  assert.equal(h.backend.received.length, before + 1);
  assert.equal(JSON.parse(h.backend.received.at(-1)!.body).id, id);
  const detail = (await h.e2e.call('GET', `/api/v1/events/${id}`, { key: m.apiKey })).body.data;
  assert.equal(detail.deliveries.length, 2);

  const stranger = await h.merchant({ settings: { webhookForwardUrl: null } });
  expectError(await h.e2e.call('GET', `/api/v1/events/${id}`, { key: stranger.apiKey }), 'NOT_FOUND', 404);
  expectError(await h.e2e.call('POST', `/api/v1/events/${id}/redeliver`, { key: stranger.apiKey }), 'NOT_FOUND', 404);
  // Without a forward URL the event is stored (200 to the gateway), and a redelivery says what is missing.
  assert.equal((await send(stranger, succeeded())).status, 200);
  const [own] = await stranger.events();
  assert.equal(own.delivery, null);
  expectError(await h.e2e.call('POST', `/api/v1/events/${own.id}/redeliver`, { key: stranger.apiKey }), 'VALIDATION_ERROR', 400);
});
