import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';

let e2e: E2E;
before(async () => {
  e2e = await startE2E({ ROUTEGATE_GATEWAY_TIMEOUT_MS: '400' });
});
after(() => e2e.close());

const card = (extra: Record<string, unknown> = {}) => ({ paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, ...extra });

/**
 * What the gateways hold for a charge (/__control/ledger, every gateway, by the reference RouteGate sent): the one
 * gateway named, charged once for `amount`, and no other gateway holding anything; or, with `gateway` undefined,
 * nothing anywhere.
 */
async function expectHeld(chargeId: string, gateway: string | undefined, amount = 2500): Promise<void> {
  const held = (await e2e.control.ledger()).filter((e) => e.reference === chargeId);
  assert.deepEqual(held.map((e) => e.gateway), gateway ? [gateway] : [], `the gateways holding ${chargeId}: ${JSON.stringify(held)}`);
  if (gateway) assert.deepEqual([held[0].amount, held[0].paidAmount, held[0].refundedAmount], [amount, amount, 0], `${gateway} charged ${amount} once`);
}

describe('fallback', () => {
  test('falls back from stripe to pagarme after a 429 (the gateway refused the call)', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    await e2e.control.fault('stripe', 'http429');
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.equal(res.body.data.gatewayFallbackUsed, true);
    assert.equal(res.body.data.primaryGateway, 'stripe');
    assert.equal(res.headers['x-rg-fallback-used'], 'true');
    assert.equal(res.headers['x-rg-gateway'], 'pagarme');
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
    const attempts = stored.body.data.attempts;
    assert.deepEqual(attempts.map((a: { gateway: string; outcome: string }) => `${a.gateway}:${a.outcome}`), ['stripe:failed', 'pagarme:success']);
    assert.equal(attempts[0].errorCode, 'GATEWAY_ERROR');
    await expectHeld(res.body.data.id, 'pagarme');
    await e2e.control.clearFaults();
  });

  // An unknown outcome is settled at the same gateway (replay under the same Idempotency-Key), never by a fallback.
  for (const [fault, why] of [['http500', 'a 5xx'], ['reset', 'a dropped connection'], ['hang', 'a timeout']] as const) {
    test(`after ${why} stripe is asked again under the same key and pagarme is never charged`, async () => {
      const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
      const before = (await e2e.control.requests('pagarme')).length;
      await e2e.control.fault('stripe', fault, { method: 'POST', path: '/v1/payment_intents' });
      const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.gateway, 'stripe');
      assert.equal(res.headers['x-rg-fallback-used'], 'false');
      assert.equal((await e2e.control.requests('pagarme')).length, before, 'the fallback was never called');
      const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
      const attempts = stored.body.data.attempts;
      assert.deepEqual(attempts.map((a: { gateway: string; outcome: string }) => `${a.gateway}:${a.outcome}`), ['stripe:success']);
      assert.equal(attempts[0].ambiguous, true);
      assert.match(attempts[0].message, /settled by replay at stripe/);
      await expectHeld(res.body.data.id, 'stripe');
      await e2e.control.clearFaults();
    });
  }

  test('falls back when the primary rejects the credentials, and when it has none', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['mercadopago'] }, ['stripe', 'mercadopago'], {
      stripe: { secretKey: 'sk_test_invalid_000000', webhookSecret: 'whsec_invalid_00000' },
    });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'mercadopago');
    await expectHeld(res.body.data.id, 'mercadopago');
    const noCreds = await e2e.account({ primaryGateway: 'pagbank', gatewayFallbacks: ['pagarme'] }, ['pagarme']);
    const res2 = await e2e.call('POST', '/api/v1/charges', { key: noCreds, body: card() });
    assert.equal(res2.status, 201, res2.text);
    assert.equal(res2.body.data.gateway, 'pagarme');
    assert.equal(res2.body.data.primaryGateway, 'pagbank');
    await expectHeld(res2.body.data.id, 'pagarme');
  });

  test('never falls back after a decline', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    const before = (await e2e.control.requests('pagarme')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card({ creditCard: { ...CARD, number: '4000000000000002' } }) });
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.equal(res.headers['x-rg-fallback-used'], 'false');
    assert.equal((await e2e.control.requests('pagarme')).length, before, 'pagarme was never called');
    const declined = (await e2e.control.ledger()).filter((e) => e.reference === res.headers['x-rg-charge-id']);
    assert.deepEqual(declined.map((e) => [e.gateway, e.paidAmount]), [['stripe', 0]], 'the declined charge is at stripe alone, and took nothing');
  });

  test('a card token never leaves its gateway: CARD_TOKEN_NOT_PORTABLE is recorded and the fallback is skipped', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    await e2e.control.fault('stripe', 'http429');
    const before = (await e2e.control.requests('pagarme')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: { paymentMethodId: 'pm_card_visa' } } });
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.equal((await e2e.control.requests('pagarme')).length, before);
    const stored = await e2e.call('GET', `/api/v1/charges/${res.headers['x-rg-charge-id']}`, { key });
    assert.deepEqual(stored.body.data.attempts.map((a: { errorCode: string }) => a.errorCode), ['GATEWAY_ERROR', 'CARD_TOKEN_NOT_PORTABLE']);
  });

  test('a token whose native prefix names its issuer only goes there, whatever the primary', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
    const before = (await e2e.control.requests('pagarme')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: { paymentMethodId: 'pm_card_visa' } } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'stripe');
    assert.equal((await e2e.control.requests('pagarme')).length, before, 'a Stripe payment method never goes to Pagar.me');
    await expectHeld(res.body.data.id, 'stripe');
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
    assert.deepEqual(stored.body.data.attempts.map((a: { errorCode: string | null; outcome: string }) => a.errorCode ?? a.outcome), ['CARD_TOKEN_NOT_PORTABLE', 'success']);
    const alone = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const refused = await e2e.call('POST', '/api/v1/charges', { key: alone, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: { paymentMethodId: 'pm_card_visa' } } });
    expectError(refused, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(refused.body.error.message, /stripe/);
  });

  test('a gateway that needs the buyer inline is skipped without a call when the charge has none', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank', gatewayFallbacks: ['stripe'] });
    const before = (await e2e.control.requests('pagbank')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: CARD } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'stripe');
    assert.equal(res.body.data.gatewayFallbackUsed, true);
    assert.equal((await e2e.control.requests('pagbank')).length, before);
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
    assert.equal(stored.body.data.attempts[0].outcome, 'skipped');
    assert.match(stored.body.data.attempts[0].message, /needs the buyer/);
    await expectHeld(res.body.data.id, 'stripe');
  });

  test('when only non-portable fallbacks remain the answer says so with 422', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] }, ['pagarme']);
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: { token: 'tok_visa' } } });
    expectError(res, 'MISSING_CREDENTIALS', 400);
    assert.match(res.body.error.message, /pagarme \(CARD_TOKEN_NOT_PORTABLE\)/);
  });
});

describe('gateway failures without a fallback', () => {
  test('no connection is 502 GATEWAY_UNREACHABLE (nothing was sent, so nothing is settled)', async () => {
    const closed = await e2e.closedPortUrl();
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const res = await e2e.withGatewayUrl('pagarme', closed, () => e2e.call('POST', '/api/v1/charges', { key, body: card() }));
    expectError(res, 'GATEWAY_UNREACHABLE', 502);
    assert.equal(res.headers['x-rg-gateway'], 'pagarme');
    assert.match(String(res.headers['x-rg-charge-id']), /^chg_/);
    const stored = await e2e.call('GET', `/api/v1/charges/${res.headers['x-rg-charge-id']}`, { key });
    assert.equal(stored.body.data.status, 'failed');
    assert.equal(stored.body.data.attempts[0].ambiguous, false);
  });

  test('no answer within ROUTEGATE_GATEWAY_TIMEOUT_MS is 504 GATEWAY_TIMEOUT, promptly', async () => {
    const key = await e2e.account({ primaryGateway: 'mercadopago' });
    await e2e.control.fault('mercadopago', 'hang');
    const started = Date.now();
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    assert.equal(res.body.error.gateway, 'mercadopago');
    assert.ok(Date.now() - started < 5000, 'the request is not held past the timeout');
  });

  test('a gateway 500 on a read is 502 GATEWAY_ERROR naming the gateway', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(created.status, 201, created.text);
    await e2e.control.fault('pagbank', 'http500');
    const res = await e2e.call('GET', `/api/v1/charges/${created.body.data.id}?refresh=true`, { key });
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.equal(res.body.error.gateway, 'pagbank');
  });

  test('a create that keeps failing with 500 or a malformed body is 504 "being confirmed", never a second charge', async () => {
    for (const [gateway, fault] of [['pagbank', 'http500'], ['stripe', 'malformed']] as const) {
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: ['pagarme'] });
      const before = (await e2e.control.requests('pagarme')).length;
      await e2e.control.fault(gateway, fault, { count: 20, method: 'POST', path: gateway === 'stripe' ? '/v1/payment_intents' : '/orders' });
      const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
      await e2e.control.clearFaults();
      expectError(res, 'GATEWAY_TIMEOUT', 504);
      assert.equal(res.body.error.gateway, gateway);
      assert.match(res.body.error.message, /being confirmed/);
      assert.equal((await e2e.control.requests('pagarme')).length, before, 'no fallback after an unknown outcome');
      const stored = await e2e.call('GET', `/api/v1/charges/${res.headers['x-rg-charge-id']}`, { key });
      assert.equal(stored.body.data.status, 'processing');
      assert.equal(stored.body.data.attempts.at(-1).outcome, 'unknown');
      // The faults hit before the gateway acted: nothing is held anywhere, at the primary or the fallback.
      await expectHeld(res.headers['x-rg-charge-id'] as string, undefined);
    }
  });

  test('no credentials for the chosen gateway is 400 MISSING_CREDENTIALS', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas' }, []);
    expectError(await e2e.call('POST', '/api/v1/charges', { key, body: card({ customerId: 'cus_000000000001' }) }), 'MISSING_CREDENTIALS', 400);
  });

  test('neither gateway nor primaryGateway is 400 VALIDATION_ERROR saying so', async () => {
    const key = await e2e.account();
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.match(res.body.error.message, /primaryGateway/);
    assert.equal(res.headers['x-rg-charge-id'], undefined, 'no charge exists: no X-RG-Charge-Id, never "none"');
    assert.equal(res.headers['x-rg-fallback-used'], 'false');
  });
});

describe('charge validation', () => {
  test('schema failures name each field', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [card({ amount: 99 }), 'amount'],
      [card({ amount: 10.5 }), 'amount'],
      [card({ paymentMethod: 'cash' }), 'paymentMethod'],
      [card({ customer: { ...CUSTOMER, email: 'nope' } }), 'customer.email'],
      [card({ customer: { ...CUSTOMER, name: 'Al' } }), 'customer.name'],
      [card({ customer: { ...CUSTOMER, document: '123' } }), 'customer.document'],
      [{ paymentMethod: 'credit_card', amount: 1000 }, 'creditCard'],
      [{ paymentMethod: 'boleto', amount: 1000, boleto: { dueDate: '2030-01-01' } }, 'customerId'],
      [{ paymentMethod: 'boleto', amount: 1000, customer: CUSTOMER, boleto: { dueDate: '01/02/2030' } }, 'boleto.dueDate'],
      [card({ gateway: 'paypal' }), 'gateway'],
      [card({ surprise: true }), 'surprise'],
    ];
    for (const [body, field] of cases) {
      const res = await e2e.call('POST', '/api/v1/charges', { key, body });
      expectError(res, 'VALIDATION_ERROR', 400);
      const fields = res.body.error.details.errors.map((e: { field: string }) => e.field);
      assert.ok(fields.includes(field), `${field} expected in ${JSON.stringify(fields)}`);
      assert.ok(!res.text.includes(CARD.number), 'card data is never echoed');
    }
  });
});

describe('idempotency', () => {
  test('the same key and body replay the first answer without a second gateway call', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const before = (await e2e.control.requests('stripe')).length;
    const headers = { 'idempotency-key': 'order-1001' };
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    const calls = (await e2e.control.requests('stripe')).length - before;
    const second = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    assert.equal(second.status, first.status);
    assert.equal(second.text, first.text, 'the stored answer is the first answer\'s bytes, kept as they were sent');
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.headers['x-rg-charge-id'], first.headers['x-rg-charge-id']);
    assert.equal((await e2e.control.requests('stripe')).length - before, calls, 'no new gateway call');
  });

  test('a failure after the gateway charged is a 500 naming the charge, kept under the key: a retry never charges twice', async (t) => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    // On the class: PostgreSQL binds a repository instance to each transaction.
    const repo = Object.getPrototypeOf(e2e.sandbox.app.store.charges) as typeof e2e.sandbox.app.store.charges;
    // The create's write after the gateway call is settleOperation (one statement on PostgreSQL).
    const settleOperation = repo.settleOperation;
    t.after(() => {
      repo.settleOperation = settleOperation;
    });
    // The write that records the gateway's answer fails; the writes before the call went through.
    repo.settleOperation = async function (this: typeof repo, id, finished, patch, owner) {
      if (patch.status) throw new Error('disk I/O error (simulated)');
      return settleOperation.call(this, id, finished, patch, owner);
    };
    const before = (await e2e.control.requests('pagarme')).length;
    const headers = { 'idempotency-key': 'order-crash-1' };
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    expectError(first, 'INTERNAL_ERROR', 500);
    const chargeId = first.headers['x-rg-charge-id'] as string;
    assert.match(chargeId, /^chg_/);
    assert.match(first.body.error.message, new RegExp(`GET /api/v1/charges/${chargeId}`));
    assert.ok(!first.text.includes('disk I/O'), 'the internal cause is not shown');
    repo.settleOperation = settleOperation;

    const retry = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    assert.equal(retry.status, 500);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.headers['x-rg-charge-id'], chargeId);
    const creates = (await e2e.control.requests('pagarme')).slice(before).filter((r) => r.method === 'POST');
    assert.equal(creates.length, 1, 'one charge at the gateway, whatever the client retries');
    const stored = await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key });
    assert.equal(stored.body.data.status, 'processing', 'the charge row from before the call tells the operator to reconcile it');
  });

  test('the same key with another body is 409 IDEMPOTENCY_CONFLICT; another account may use the same key', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const headers = { 'idempotency-key': 'order-2002' };
    assert.equal((await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers })).status, 201);
    expectError(await e2e.call('POST', '/api/v1/charges', { key, body: card({ amount: 2600 }), headers }), 'IDEMPOTENCY_CONFLICT', 409);
    const other = await e2e.account({ primaryGateway: 'stripe' });
    assert.equal((await e2e.call('POST', '/api/v1/charges', { key: other, body: card({ amount: 2600 }), headers })).status, 201);
  });

  test('declines are replayed too, so a retry never charges twice', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const headers = { 'idempotency-key': 'order-3003' };
    const body = card({ creditCard: { ...CARD, number: '4000000000009995' } });
    const first = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    const second = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    expectError(second, 'GATEWAY_ERROR', 502);
    assert.equal(second.headers['x-rg-charge-id'], first.headers['x-rg-charge-id']);
  });

  test('entries expire after 24 hours', async () => {
    const { clock } = await import('../../src/lib/clock');
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const headers = { 'idempotency-key': 'order-4004' };
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card(), headers });
    const realNow = clock.now;
    clock.now = () => realNow() + 24 * 60 * 60 * 1000 + 1;
    try {
      const later = await e2e.call('POST', '/api/v1/charges', { key, body: card({ amount: 3000 }), headers });
      assert.equal(later.status, 201);
      assert.notEqual(later.headers['x-rg-charge-id'], first.headers['x-rg-charge-id']);
    } finally {
      clock.now = realNow;
    }
  });
});

describe('response formats and reads', () => {
  test('normalized drops gatewayResponse; raw answers the gateway body as received', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', responseFormat: 'normalized' });
    const norm = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(norm.status, 201);
    assert.equal(norm.body.data.gatewayResponse, undefined);
    assert.equal(norm.body.data.status, 'approved');
    await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { responseFormat: 'raw' } });
    const raw = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(raw.status, 201);
    assert.equal(raw.body.success, true);
    assert.equal(raw.body.data.object, 'payment_intent');
    assert.equal(raw.body.data.amount, 2500);
    assert.match(String(raw.headers['x-rg-charge-id']), /^chg_/);
  });

  test('charges list newest first with cursor pagination and filters; another account sees none of them', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await e2e.call('POST', '/api/v1/charges', { key, body: card({ amount: 1000 + i }) })).body.data.id);
    await e2e.call('POST', '/api/v1/charges', { key, body: card({ creditCard: { ...CARD, number: '4000000000000002' } }) });
    const page1 = await e2e.call('GET', '/api/v1/charges?limit=2&status=approved', { key });
    assert.equal(page1.status, 200, page1.text);
    assert.deepEqual(page1.body.data.map((c: { id: string }) => c.id), [ids[4], ids[3]]);
    const page2 = await e2e.call('GET', `/api/v1/charges?limit=2&status=approved&cursor=${page1.body.pagination.nextCursor}`, { key });
    assert.deepEqual(page2.body.data.map((c: { id: string }) => c.id), [ids[2], ids[1]]);
    const declined = await e2e.call('GET', '/api/v1/charges?status=declined&gateway=gateway_1', { key });
    assert.equal(declined.body.data.length, 1);
    const other = await e2e.account();
    assert.deepEqual((await e2e.call('GET', '/api/v1/charges', { key: other })).body.data, []);
    expectError(await e2e.call('GET', `/api/v1/charges/${ids[0]}`, { key: other }), 'NOT_FOUND', 404);
    expectError(await e2e.call('POST', `/api/v1/charges/${ids[0]}/refunds`, { key: other, body: {} }), 'NOT_FOUND', 404);
    expectError(await e2e.call('GET', '/api/v1/charges/chg_unknown', { key }), 'NOT_FOUND', 404);
    expectError(await e2e.call('GET', '/api/v1/charges?cursor=bogus', { key }), 'VALIDATION_ERROR', 400);
  });
});
