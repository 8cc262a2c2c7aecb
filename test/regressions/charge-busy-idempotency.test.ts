import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD } from '../helpers/e2e';
import { expectError } from '../helper';

// Issue 17, found by the three-process test: a follow-up refused with 409 CHARGE_BUSY (another operation held the
// charge past the wait) ran nothing, and the error says "retry". Kept under its Idempotency-Key, it was replayed to
// every retry with that key for 24 hours, so a client doing the right thing (retry with the same key) never got
// its refund applied. Now the key is released, as for IDEMPOTENCY_IN_PROGRESS, and the retry runs.

test('a refund answered 409 CHARGE_BUSY is applied by a retry with the same Idempotency-Key, once', { timeout: 60_000 }, async (t) => {
  // A short request deadline: the lock wait (min(deadline, 15 s)) gives up quickly.
  const e2e = await startE2E({ ROUTEGATE_REQUEST_DEADLINE_MS: '1500' });
  t.after(() => e2e.close());
  const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
  const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 5000, customer: CUSTOMER, creditCard: CARD } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const { store } = e2e.sandbox.app;

  // Someone else (another process) holds the charge for longer than this request may wait.
  assert.ok(await store.charges.tryLock(id, 'other-process', Date.now(), 60_000));
  const refund = () => e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 700 }, headers: { 'idempotency-key': 'refund-busy-1' } });
  const busy = await refund();
  expectError(busy, 'CHARGE_BUSY', 409);
  assert.equal(busy.headers['idempotent-replayed'], undefined);
  const refundsAtGateway = async () => (await e2e.control.requests('pagarme')).filter((r) => r.method === 'DELETE').length;
  assert.equal(await refundsAtGateway(), 0, 'nothing reached the gateway');

  await store.charges.unlock(id, 'other-process');
  const applied = await refund();
  assert.equal(applied.status, 201, `the retry runs the refund: ${applied.text}`);
  assert.equal(applied.headers['idempotent-replayed'], undefined);
  assert.equal(applied.body.data.refundedAmount, 700);

  // From then on the key replays the refund, and the gateway saw one.
  const replayed = await refund();
  assert.equal(replayed.status, 201);
  assert.equal(replayed.headers['idempotent-replayed'], 'true');
  assert.equal(replayed.text, applied.text);
  assert.equal(await refundsAtGateway(), 1);
  const charge = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
  assert.equal(charge.refundedAmount, 700);
});
