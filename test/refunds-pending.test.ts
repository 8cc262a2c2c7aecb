import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, eventually, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { expectError } from './helper';
import type { GatewayId } from '../src/gateways/registry-ids';

// Issue 42 item 6: refund outcomes that mean "not yet" are pending refunds, settled later, never failures that
// invite a second refund. Over real HTTP against the emulators, made to answer each gateway's own "not yet" through
// the control API (Mercado Pago in_process, PagBank 40008, Asaas balance); every money assertion reads the
// emulator's ledger (/__control/ledger), not RouteGate's figures.

type Refund = { refundId?: string; amount?: number; status?: string; gatewayStatus?: string };

async function cardCharge(e2e: E2E, gateway: GatewayId, key: string): Promise<{ id: string; externalId: string }> {
  const customerId = gateway === 'asaas' ? (await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId : undefined;
  const body = { gateway, paymentMethod: 'credit_card', amount: 10_000, customer: CUSTOMER, creditCard: CARD, ...(customerId ? { customerId } : {}) };
  const res = await e2e.call('POST', '/api/v1/charges', { key, body });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'approved', res.text);
  return { id: res.body.data.id, externalId: res.body.data.externalId };
}

async function atGateway(e2e: E2E, gateway: GatewayId, id: string) {
  const entries = (await e2e.control.ledger(gateway)).filter((c) => c.reference === id);
  assert.equal(entries.length, 1, `one ${gateway} charge for ${id}`);
  return entries[0];
}

const refund = (e2e: E2E, key: string, id: string, idempotencyKey: string, amount?: number) =>
  e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: amount === undefined ? {} : { amount }, headers: { 'idempotency-key': idempotencyKey } });

async function refundRows(e2e: E2E, key: string, id: string) {
  const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
  return (stored.body.data.attempts as Array<{ operation: string; outcome: string; externalId?: string; amount?: number }>).filter((a) => a.operation === 'refund');
}

const refundPosts = async (e2e: E2E, gateway: GatewayId, externalId: string) => (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && (
  gateway === 'mercadopago' ? r.path === `/v1/payments/${externalId}/refunds` : gateway === 'asaas' ? r.path === `/v3/payments/${externalId}/refund` : r.path.endsWith('/cancel')));

function assertPending(res: { status: number; text: string; body: any }, refundedAmount = 0): Refund {
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.data.refund.status, 'pending', res.text);
  assert.equal(res.body.data.refundedAmount, refundedAmount, 'a pending refund is not counted in refundedAmount');
  assert.equal(res.body.data.status, 'approved');
  return res.body.data.refund;
}

describe('settled by re-read (no notifications)', { timeout: 120_000 }, () => {
  let e2e: E2E;
  before(async () => {
    e2e = await startE2E({ ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0' });
  });
  after(() => e2e.close());

  test('mercadopago in_process: 202 pending with X-Render-In-Process-Refunds sent; retry of the key is the same pending refund; another refund is 409; ?refresh=true counts it once when MP approves', async () => {
    const key = await e2e.account({ primaryGateway: 'mercadopago', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge(e2e, 'mercadopago', key);
    await e2e.control.refundOutcome('mercadopago', 'in_process');
    const first = assertPending(await refund(e2e, key, id, 'mp-pending-1'));
    assert.equal(first.gatewayStatus, 'in_process');
    const [sent] = await refundPosts(e2e, 'mercadopago', externalId);
    assert.equal(sent.headers['x-render-in-process-refunds'], 'true');

    // The client retries: the same refund, still pending; nothing new at MP.
    const again = assertPending(await refund(e2e, key, id, 'mp-pending-1'));
    assert.equal(again.refundId, first.refundId);
    assert.equal((await refundPosts(e2e, 'mercadopago', externalId)).length, 1, 'no second refund call');
    // Another money operation while it is pending: 409, nothing sent.
    expectError(await refund(e2e, key, id, 'mp-pending-2', 500), 'OPERATION_UNSETTLED', 409);
    assert.equal((await refundPosts(e2e, 'mercadopago', externalId)).length, 1);
    const held = await atGateway(e2e, 'mercadopago', id);
    assert.deepEqual([held.refunds, held.refundedAmount], [1, 0]);

    // A re-read while MP still holds it: still pending.
    const still = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
    assert.equal(still.body.data.refundedAmount, 0);
    assert.deepEqual((await refundRows(e2e, key, id)).map((a) => a.outcome), ['pending']);

    assert.equal(await e2e.control.settleRefunds('mercadopago', externalId, 'approved'), 1);
    const read = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.refundedAmount, 10_000);
    assert.equal(read.body.data.status, 'refunded');
    const rows = await refundRows(e2e, key, id);
    assert.deepEqual(rows.map((a) => [a.outcome, a.externalId, a.amount]), [['success', first.refundId, 10_000]]);
    // The client's retry now answers the refund done; the gateway still holds one refund of 100.00.
    const done = await refund(e2e, key, id, 'mp-pending-1');
    assert.equal(done.status, 201, done.text);
    assert.equal(done.body.data.refund.refundId, first.refundId);
    const after = await atGateway(e2e, 'mercadopago', id);
    assert.deepEqual([after.refunds, after.refundedAmount], [1, 10_000]);
  });

  test('mercadopago in_process then rejected: the reconciler stores it failed and announces refund.failed; the charge is refundable again', async () => {
    const key = await e2e.account({ primaryGateway: 'mercadopago', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge(e2e, 'mercadopago', key);
    await e2e.control.refundOutcome('mercadopago', 'in_process');
    assertPending(await refund(e2e, key, id, 'mp-rejected-1', 4_000));
    assert.equal(await e2e.control.settleRefunds('mercadopago', externalId, 'rejected'), 1);
    await e2e.sandbox.app.reconciler.pass();
    const rows = await refundRows(e2e, key, id);
    assert.deepEqual(rows.map((a) => a.outcome), ['failed']);
    const events = (await e2e.call('GET', '/api/v1/events?limit=100', { key })).body.data as Array<{ id: string; type: string }>;
    assert.deepEqual(events.map((e) => e.type), ['refund.failed']);
    const announced = (await e2e.call('GET', `/api/v1/events/${events[0].id}`, { key })).body.data;
    assert.equal(JSON.stringify(announced).includes(id), true, 'the event names the charge');
    const stored = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.deepEqual([stored.status, stored.refundedAmount], ['approved', 0]);
    // The retry of the key answers the failure; a new refund runs.
    const retried = await refund(e2e, key, id, 'mp-rejected-1', 4_000);
    assert.equal(retried.status, 502, retried.text);
    const next = await refund(e2e, key, id, 'mp-rejected-2', 4_000);
    assert.equal(next.status, 201, next.text);
    const ledger = await atGateway(e2e, 'mercadopago', id);
    assert.deepEqual([ledger.refunds, ledger.refundedAmount], [1, 4_000]);
  });

  test('pagbank 40008: stored pending (nothing refunded at PagBank), the retry of the key sends it again under a new gateway key, the reconciler finishes it; one refund at PagBank', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge(e2e, 'pagbank', key);
    // Refused three times: the first send, the one the client's retry makes, the one another request makes.
    await e2e.control.refundOutcome('pagbank', 'transaction_not_found', 3);
    const first = assertPending(await refund(e2e, key, id, 'pb-pending-1'));
    assert.equal(first.gatewayStatus, 'refused_for_now');
    assert.equal((await atGateway(e2e, 'pagbank', id)).refunds, 0);
    // The retry sends it again (refused again: still pending).
    assertPending(await refund(e2e, key, id, 'pb-pending-1'));
    // Any other money operation first settles it (here: sends it again, refused again), then answers 409.
    expectError(await refund(e2e, key, id, 'pb-other', 100), 'OPERATION_UNSETTLED', 409);
    assert.equal((await atGateway(e2e, 'pagbank', id)).refunds, 0);
    await e2e.sandbox.app.reconciler.pass();
    const ledger = await atGateway(e2e, 'pagbank', id);
    assert.deepEqual([ledger.refunds, ledger.refundedAmount], [1, 10_000]);
    const keys = (await e2e.control.requests('pagbank')).filter((r) => r.path.endsWith('/cancel')).map((r) => String(r.headers['x-idempotency-key']));
    assert.equal(keys.length, 4);
    assert.equal(new Set(keys).size, 4, `a new gateway key for each send: ${keys.join(', ')}`);
    const done = await refund(e2e, key, id, 'pb-pending-1');
    assert.equal(done.status, 201, done.text);
    assert.equal(done.body.data.refundedAmount, 10_000);
    assert.equal((await atGateway(e2e, 'pagbank', id)).refunds, 1, 'the retry after it was done sends nothing');
    assert.equal((await refundPosts(e2e, 'pagbank', externalId)).length, 4);
  });

  test('asaas insufficient balance: stored pending, sent again by the reconciler once the balance is there; one refund at Asaas', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge(e2e, 'asaas', key);
    await e2e.control.refundOutcome('asaas', 'insufficient_balance');
    assertPending(await refund(e2e, key, id, 'as-pending-1', 2_500));
    assert.equal((await atGateway(e2e, 'asaas', id)).refunds, 0);
    const [row] = await refundRows(e2e, key, id);
    assert.equal(row.outcome, 'pending');
    await e2e.sandbox.app.reconciler.pass();
    const ledger = await atGateway(e2e, 'asaas', id);
    assert.deepEqual([ledger.refunds, ledger.refundedAmount], [1, 2_500]);
    const stored = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.deepEqual([stored.status, stored.refundedAmount], ['approved', 2_500]);
    assert.deepEqual((await refundRows(e2e, key, id)).map((a) => [a.outcome, a.amount]), [['success', 2_500]]);
    // The refund sent again carries its own operation key in its description (how Asaas finds it again).
    const sends = await refundPosts(e2e, 'asaas', externalId);
    assert.equal(sends.length, 2);
    assert.match(String((sends[1].body as { description?: string }).description), /-(partial_)?refund-\d+\.1\)/);
    const done = await refund(e2e, key, id, 'as-pending-1', 2_500);
    assert.equal(done.status, 201, done.text);
    assert.equal((await atGateway(e2e, 'asaas', id)).refunds, 1);
  });
});

describe('settled by the gateway\'s notification', { timeout: 120_000 }, () => {
  let e2e: E2E;
  before(async () => {
    e2e = await startE2E({ ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0' }, undefined, { webhooks: true });
  });
  after(() => e2e.close());

  test('mercadopago: the payment.updated MP sends when it approves the refund settles it, counted once', async () => {
    const key = e2e.sandbox.account.apiKey;
    const { id, externalId } = await cardCharge(e2e, 'mercadopago', key);
    await e2e.control.refundOutcome('mercadopago', 'in_process');
    const pending = assertPending(await refund(e2e, key, id, 'mp-webhook-1', 3_000));
    assert.equal(await e2e.control.settleRefunds('mercadopago', externalId, 'approved'), 1);
    const rows = await eventually(async () => {
      const r = await refundRows(e2e, key, id);
      return r[0]?.outcome === 'success' ? r : undefined;
    }, 15_000, 'the notification to settle the refund');
    assert.deepEqual(rows.map((a) => [a.externalId, a.amount]), [[pending.refundId, 3_000]]);
    const stored = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.deepEqual([stored.status, stored.refundedAmount], ['approved', 3_000]);
    // A re-read and a retry after it change nothing: counted once.
    const read = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
    assert.equal(read.body.data.refundedAmount, 3_000);
    const retry = await refund(e2e, key, id, 'mp-webhook-1', 3_000);
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.data.refundedAmount, 3_000);
    const ledger = await atGateway(e2e, 'mercadopago', id);
    assert.deepEqual([ledger.refunds, ledger.refundedAmount], [1, 3_000]);
  });
});
