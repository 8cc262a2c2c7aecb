import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { expectError } from './helper';
import { GATEWAY_IDS, type GatewayId } from '../src/gateways/registry-ids';
import { CREATE_PATH } from './helpers/charge-inputs';

// Issue 8: never charge twice, never lose a refund, settle every unknown outcome. Over real HTTP: RouteGate and
// the five emulators, with the emulators' fault injection standing in for a gateway that took the charge but
// never answered (`late`, `lose`), never saw it (`reset`), or hangs.

let e2e: E2E;
before(async () => {
  e2e = await startE2E({ ROUTEGATE_GATEWAY_TIMEOUT_MS: '400', ROUTEGATE_REQUEST_DEADLINE_MS: '3000', ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0' });
});
after(() => e2e.close());
beforeEach(() => e2e.control.reset());

const card = (extra: Record<string, unknown> = {}) => ({ paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, ...extra });

/** Every charge any emulator holds, whatever gateway: the buyer's view of how often they were charged. */
async function chargesEverywhere(reference: string) {
  const all = await e2e.control.ledger();
  return all.filter((entry) => entry.reference === reference);
}

describe('a gateway that does not answer is settled at that gateway before any fallback', () => {
  for (const [gateway, fault] of [['pagarme', 'late'], ['pagarme', 'lose'], ['mercadopago', 'late'], ['pagbank', 'lose']] as const) {
    test(`${gateway} took the charge but the answer was ${fault === 'late' ? 'too late' : 'lost'}: no fallback, one paid charge in total`, async () => {
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: ['stripe'] });
      // Aimed at the create itself (Mercado Pago tokenizes the card with an earlier call).
      await e2e.control.fault(gateway, fault, { latencyMs: 1500, method: 'POST', path: CREATE_PATH[gateway] });
      const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.gateway, gateway);
      assert.equal(res.body.data.status, 'approved');
      assert.equal(res.headers['x-rg-fallback-used'], 'false');
      const everywhere = await chargesEverywhere(res.body.data.id);
      assert.deepEqual(everywhere.map((c) => c.gateway), [gateway], 'exactly one charge, at the gateway that took it');
      assert.equal((await e2e.control.ledger('stripe')).length, 0, 'the fallback never charged');
    });
  }

  test('stripe (the answer to the PaymentIntent lost): replayed under the same key, one PaymentIntent', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    await e2e.control.fault('stripe', 'lose', { method: 'POST', path: '/v1/payment_intents' }); // the PaymentMethod call passes
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual((await chargesEverywhere(res.body.data.id)).map((c) => c.gateway), ['stripe']);
  });

  test('the gateway never saw the request (connection dropped unseen): exactly one charge, by the replay', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
    await e2e.control.fault('pagarme', 'reset');
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual((await chargesEverywhere(res.body.data.id)).map((c) => c.gateway), ['pagarme']);
  });

  test('asaas keeps no idempotency keys: a lookup by externalReference finds the charge it took', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagarme'] });
    const customer = await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER });
    await e2e.control.fault('asaas', 'lose');
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card({ customerId: customer.body.data.externalId }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'asaas');
    assert.deepEqual((await chargesEverywhere(res.body.data.id)).map((c) => c.gateway), ['asaas']);
  });

  // The connection dropped after the request was written: asaas may still act on it, and its lookup answering "none"
  // now proves nothing before the settle horizon (docs/charges.md, "Proof of absence"). This test once expected a
  // fallback here, the rule that charged buyers twice when asaas was merely slow (issue 39).
  test('asaas dropped the connection: its lookup answering none before the settle horizon proves nothing: 504, processing, no fallback', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagarme'] });
    const customer = await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER });
    await e2e.control.fault('asaas', 'reset');
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card({ customerId: customer.body.data.externalId }) });
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    const id = res.headers['x-rg-charge-id'] as string;
    assert.equal((await e2e.control.ledger('pagarme')).length, 0, 'no fallback');
    const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.status, 'processing');
    assert.match(stored.body.data.attempts[0].message, /proves nothing until/);
  });

  test('asaas refused the connection (nothing was sent): the fallback charges at once', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagarme'] });
    const customer = await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER });
    const res = await e2e.withGatewayUrl('asaas', await e2e.closedPortUrl(), () =>
      e2e.call('POST', '/api/v1/charges', { key, body: card({ customerId: customer.body.data.externalId }) }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.deepEqual((await chargesEverywhere(res.body.data.id)).map((c) => c.gateway), ['pagarme']);
  });

  test('lookup failing too: 504 processing, settled by the reconciler later, and the Idempotency-Key retry answers the settled charge', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
    const headers = { 'idempotency-key': 'order-unknown-1' };
    await e2e.control.fault('pagarme', 'late', { latencyMs: 1000 });
    await e2e.control.fault('pagarme', 'http500', { count: 10 }); // the replay and the lookup fail
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    expectError(first, 'GATEWAY_TIMEOUT', 504);
    assert.match(first.body.error.message, /being confirmed/);
    const chargeId = first.headers['x-rg-charge-id'] as string;
    assert.match(chargeId, /^chg_/);
    const listed = await e2e.call('GET', '/api/v1/charges?status=processing', { key });
    assert.deepEqual(listed.body.data.map((c: { id: string }) => c.id), [chargeId], 'visible to the operator');
    assert.equal((await e2e.control.ledger('stripe')).length, 0, 'no fallback after an unknown outcome');

    // Still down: the retry answers "being confirmed" again, never "still processing" for 24 hours.
    const retryDown = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    expectError(retryDown, 'GATEWAY_TIMEOUT', 504);
    assert.equal(retryDown.headers['x-rg-charge-id'], chargeId);

    await e2e.control.clearFaults();
    const report = await e2e.sandbox.app.reconciler.pass();
    assert.equal(report.settled, 1);
    const stored = await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key });
    assert.equal(stored.body.data.status, 'approved');
    assert.match(stored.body.data.externalId, /^or_/);

    const retry = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body.data.id, chargeId);
    assert.equal(retry.body.data.status, 'approved');
    assert.equal((await chargesEverywhere(chargeId)).length, 1, 'one charge in total');
  });

  test('a processing charge is reconciled first by ?refresh=true and by cancel', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    await e2e.control.fault('pagarme', 'late', { latencyMs: 1000 });
    await e2e.control.fault('pagarme', 'http500', { count: 10 });
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card({ capture: false }) });
    expectError(first, 'GATEWAY_TIMEOUT', 504);
    const chargeId = first.headers['x-rg-charge-id'] as string;
    await e2e.control.clearFaults();
    const refreshed = await e2e.call('GET', `/api/v1/charges/${chargeId}?refresh=true`, { key });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'approved');
    assert.equal(refreshed.body.data.captured, false);
    const cancelled = await e2e.call('POST', `/api/v1/charges/${chargeId}/cancel`, { key });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'cancelled');
  });
});

describe('the request deadline', () => {
  test('a hung gateway with a 30 s response timeout: the client has its answer by the 1.5 s deadline and the charge stays processing', async (t) => {
    const slow = await startE2E({ ROUTEGATE_REQUEST_DEADLINE_MS: '1500', ROUTEGATE_RECONCILE_INTERVAL_MS: '0' });
    t.after(() => slow.close());
    const key = await slow.account({ primaryGateway: 'pagbank', gatewayFallbacks: ['pagarme'] });
    await slow.control.fault('pagbank', 'hang', { count: 5 });
    const started = Date.now();
    const res = await slow.call('POST', '/api/v1/charges', { key, body: card() });
    const took = Date.now() - started;
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    // Near the 1.5 s deadline, far from the 30 s response timeout; the upper bound leaves a busy machine room.
    assert.ok(took >= 1400 && took < 10_000, `answered after ${took} ms`);
    assert.match(res.body.error.message, /tried pagbank/);
    const stored = await slow.call('GET', `/api/v1/charges/${res.headers['x-rg-charge-id']}`, { key });
    assert.equal(stored.body.data.status, 'processing', 'an abandoned create is unknown, never failed');
    assert.equal((await slow.control.ledger('pagarme')).length, 0, 'no new attempt after the deadline, no fallback after an unknown outcome');
  });
});

describe('a busy charge', () => {
  test('a refund waits for the lock only while its gateway call keeps a full timeout: then 409, nothing sent or recorded', async (t) => {
    const tight = await startE2E({ ROUTEGATE_GATEWAY_TIMEOUT_MS: '3000', ROUTEGATE_REQUEST_DEADLINE_MS: '6000', ROUTEGATE_RECONCILE_INTERVAL_MS: '0' });
    t.after(() => tight.close());
    const key = await tight.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const created = await tight.call('POST', '/api/v1/charges', { key, body: card({ amount: 10_000 }) });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    // Another operation holds the charge until 4.5 s into the refund's 6 s: past the 3 s its wait may last, with
    // 1.5 s left, which a refund taking the lock then would have spent on its gateway call. 1.5 s either side, so a
    // request reaching the service late on a busy machine still tests the same thing.
    const charges = tight.sandbox.app.store.charges;
    assert.ok(await charges.tryLock(id, 'another-operation', Date.now(), 60_000));
    const released = new Promise((resolve) => setTimeout(resolve, 4_500)).then(() => charges.unlock(id, 'another-operation'));
    const started = Date.now();
    const refund = await tight.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 100 } });
    const waited = Date.now() - started;
    await released;
    expectError(refund, 'CHARGE_BUSY', 409);
    assert.ok(waited >= 2_900, `it waited for the lock (${waited} ms)`);
    const [atGateway] = (await tight.control.ledger('pagarme')).filter((c) => c.reference === id);
    assert.equal(atGateway.refunds, 0, 'nothing reached the gateway');
    const stored = await tight.call('GET', `/api/v1/charges/${id}`, { key });
    assert.deepEqual(stored.body.data.attempts.map((a: { operation: string }) => a.operation), ['charge'], 'no refund attempt recorded');
    const retried = await tight.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 100 } });
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.body.data.refundedAmount, 100);
  });
});

describe('currency', () => {
  test('USD on a BRL-only gateway is skipped with a recorded reason; with no gateway left it is 422 naming the currency', async () => {
    const onlyBrl = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['mercadopago'] });
    const refused = await e2e.call('POST', '/api/v1/charges', { key: onlyBrl, body: card({ currency: 'USD' }) });
    expectError(refused, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(refused.body.error.message, /USD/);
    assert.equal((await e2e.control.ledger()).length, 0, 'no gateway was called');

    const withStripe = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
    const res = await e2e.call('POST', '/api/v1/charges', { key: withStripe, body: card({ currency: 'USD' }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'stripe');
    assert.equal(res.body.data.currency, 'USD');
    const intent = (await e2e.control.requests('stripe')).find((r) => r.path.startsWith('/v1/payment_intents'))!;
    assert.equal((intent.body as Record<string, string>).currency, 'usd');
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key: withStripe });
    assert.equal(stored.body.data.attempts[0].errorCode, 'CURRENCY_NOT_SUPPORTED');
    assert.match(stored.body.data.attempts[0].message, /pagarme cannot charge credit card in USD/);

    const pixUsd = await e2e.call('POST', '/api/v1/charges', { key: withStripe, body: { paymentMethod: 'pix', amount: 2500, currency: 'USD', customer: CUSTOMER } });
    expectError(pixUsd, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
  });
});

/** A card charge that each gateway can refund partly, with what that gateway needs on every charge. */
async function refundableCharge(gateway: GatewayId, key: string, at: E2E = e2e): Promise<string> {
  const customerId = gateway === 'asaas' ? (await at.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId : undefined;
  const res = await at.call('POST', '/api/v1/charges', { key, body: card({ amount: 10_000, customerId }) });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

describe('follow-ups are serialized per charge', () => {
  // Twenty refunds queue on one charge's lock. With the suite's 3 s deadline and 400 ms gateway timeout, a refund
  // that got the lock on a loaded machine could see its deadline pass before its gateway call (504, nothing sent),
  // which is the deadline's business, not this test's: here each request gets room to wait its turn.
  let roomy: E2E;
  before(async () => {
    roomy = await startE2E({ ROUTEGATE_GATEWAY_TIMEOUT_MS: '2000', ROUTEGATE_REQUEST_DEADLINE_MS: '20000', ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0' });
  });
  after(() => roomy.close());

  for (const gateway of GATEWAY_IDS) {
    test(`${gateway}: 20 concurrent partial refunds are each applied exactly once and refundedAmount equals the gateway's figure`, async () => {
      const e2e = roomy;
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
      const id = await refundableCharge(gateway, key, e2e);
      // A refund still waiting for the charge's lock when its request deadline passes is refused with 409
      // CHARGE_BUSY, having done nothing (a loaded machine, or a slower store): as documented, the client retries.
      const refund = async () => {
        for (;;) {
          const a = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 100 } });
          if (a.status !== 409 || a.body.error?.code !== 'CHARGE_BUSY') return a;
        }
      };
      const answers = await Promise.all(Array.from({ length: 20 }, refund));
      for (const a of answers) assert.equal(a.status, 201, a.text);
      const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      const [atGateway] = (await e2e.control.ledger(gateway)).filter((c) => c.reference === id);
      assert.equal(atGateway.refunds, 20, 'twenty refunds at the gateway, none replayed away');
      assert.equal(atGateway.refundedAmount, 2000);
      assert.equal(stored.body.data.refundedAmount, 2000, 'RouteGate agrees with the gateway');
      const keys = stored.body.data.attempts.filter((a: { operation: string }) => a.operation === 'refund').map((a: { seq: number }) => a.seq);
      assert.equal(new Set(keys).size, 20, 'each refund had its own operation number (its own gateway idempotency key)');
    });
  }

  test('a refund above what remains is a 400 before any gateway call', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const id = await refundableCharge('pagarme', key);
    await e2e.control.clearRequests();
    const res = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 10_001 } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.equal((await e2e.control.requests('pagarme')).length, 0);
  });

  test('a refund whose answer is lost is replayed under the same key: applied once', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const id = await refundableCharge('pagarme', key);
    await e2e.control.fault('pagarme', 'lose');
    const res = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 700 } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.refundedAmount, 700);
    const [atGateway] = (await e2e.control.ledger('pagarme')).filter((c) => c.reference === id);
    assert.equal(atGateway.refundedAmount, 700);
  });

  // Issue 39: this refund used to answer 502 and be marked `reconciled` from a re-read of the totals; a re-read made
  // before a slow gateway applies a refund shows none, and the retry refunded again. It is now found by its identity.
  test('asaas keeps no keys: a refund whose answer is lost is not sent again; it is found at Asaas by its operation key, so a retry cannot refund twice', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const id = await refundableCharge('asaas', key);
    await e2e.control.fault('asaas', 'lose', { method: 'POST' });
    const lost = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, {  key, body: {} });
    assert.equal(lost.status, 201, lost.text);
    assert.equal(lost.body.data.refund.amount, 10_000);
    const [atGateway] = (await e2e.control.ledger('asaas')).filter((c) => c.reference === id);
    assert.equal(atGateway.refundedAmount, 10_000, 'asaas refunded it');
    const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.refundedAmount, 10_000, 'RouteGate read it back');
    assert.equal(stored.body.data.status, 'refunded');
    assert.equal(stored.body.data.attempts.find((a: { operation: string }) => a.operation === 'refund').outcome, 'success');
    const retry = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: {} });
    expectError(retry, 'VALIDATION_ERROR', 400);
    assert.equal((await e2e.control.ledger('asaas')).find((c) => c.reference === id)!.refunds, 1);
  });
});
