import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { expectError } from '../helper';
import { startWebhookHarness, type Merchant, type WebhookHarness } from '../helpers/webhook-e2e';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';

// Issue 39, Tests: the forward timeout run to expiry, with a merchant backend that takes the event and answers late
// (after ROUTEGATE_WEBHOOK_TIMEOUT_MS) and one that takes it and never answers, not only with one that fails at
// once. The gateway has its answer once the timeout expires (not when the backend gets round to it), the attempt is
// recorded as failed, and the retry carries the same event id, so a backend that did process the late one can
// drop the copy.

const TIMEOUT_MS = 500;
let h: WebhookHarness;
before(async () => {
  h = await startWebhookHarness({ ROUTEGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
});
after(() => h.close());
afterEach(() => {
  h.backend.hang = false;
  h.backend.lateMs = undefined;
});

let seq = 0;
const secret = SANDBOX_CREDENTIALS.stripe.webhookSecret;
function succeeded(amount: number): string {
  seq += 1;
  return stripeEvent(`evt_fwd_timeout_${process.pid}_${seq}`, 'payment_intent.succeeded', {
    id: `pi_fwd_timeout_${seq}`, object: 'payment_intent', amount, amount_received: amount, currency: 'brl', status: 'succeeded', payment_method_types: ['card'], metadata: {},
  });
}
const send = (m: Merchant, body: string) => m.post(m.path('stripe'), body, stripeHeaders(body, secret, Math.floor(Date.now() / 1000)));

for (const mode of ['late', 'hang'] as const) {
  test(`a backend that ${mode === 'late' ? 'answers after the timeout' : 'never answers'}: the gateway's answer comes when the ${TIMEOUT_MS} ms timeout expires, the attempt fails, the retry is the same event`, async () => {
    const m = await h.merchant();
    if (mode === 'late') h.backend.lateMs = TIMEOUT_MS * 4;
    else h.backend.hang = true;
    const receivedBefore = h.backend.received.length;
    const hungBefore = h.backend.hung;
    const body = succeeded(4321);
    const started = Date.now();
    const first = await send(m, body);
    const elapsed = Date.now() - started;
    expectError(first, 'WEBHOOK_NOT_DELIVERED', 502);
    assert.ok(elapsed >= TIMEOUT_MS, `the timeout ran to expiry (${elapsed} ms)`);
    assert.ok(elapsed < TIMEOUT_MS * 4, `the gateway is not held until the backend answers (${elapsed} ms)`);
    // The backend did get it (and, late, processed it): RouteGate cannot know, so the delivery stays due.
    if (mode === 'late') assert.equal(h.backend.received.length, receivedBefore + 1);
    else assert.equal(h.backend.hung, hungBefore + 1);

    const [event] = await m.events();
    assert.equal(event.delivery, 'pending');
    const [delivery] = (await h.e2e.call('GET', `/api/v1/events/${event.id}`, { key: m.apiKey })).body.data.deliveries;
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0].outcome, 'failed');
    assert.ok(delivery.attempts[0].error, 'the attempt says why it failed');

    // The backend is fast again: the retry delivers the same event (the same id and webhook-id), once.
    h.backend.hang = false;
    h.backend.lateMs = undefined;
    const worker = h.e2e.sandbox.app.webhooks.worker;
    const before = h.backend.received.length;
    assert.equal(await worker.runDue(Date.now() + 5 * 60_000), 1);
    assert.equal(h.backend.received.length, before + 1);
    const retried = h.backend.received.at(-1)!;
    assert.equal(JSON.parse(retried.body).id, event.id);
    assert.equal(retried.headers['webhook-id'], event.id);
    if (mode === 'late') assert.equal(JSON.parse(h.backend.received[receivedBefore].body).id, event.id, 'the late copy and the retry are one event');
    const afterRetry = (await h.e2e.call('GET', `/api/v1/events/${event.id}`, { key: m.apiKey })).body.data.deliveries[0];
    assert.equal(afterRetry.status, 'delivered');
    assert.deepEqual(afterRetry.attempts.map((a: { outcome: string }) => a.outcome), ['failed', 'delivered']);
    assert.equal(await worker.runDue(Date.now() + 24 * 3600_000), 0, 'nothing is sent again');
  });
}
