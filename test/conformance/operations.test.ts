import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';

// Scenarios across two named gateways, end to end against the emulators. The per-gateway matrix of charges and
// follow-ups (every registered gateway x method x operation) is charges.test.ts and capabilities.test.ts.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const pix = { paymentMethod: 'pix', amount: 1999, description: 'Pedido 2001', customer: CUSTOMER, pix: { expiresInSeconds: 3600 } };

describe('follow-up operations', () => {
  test('a pending pix can be cancelled where the gateway allows it (Stripe)', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: pix });
    assert.equal(created.body.data.status, 'pending', created.text);
    const res = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/cancel`, { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'cancelled');
    const again = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/cancel`, { key });
    expectError(again, 'VALIDATION_ERROR', 400);
  });

  test("a follow-up's last write releases the charge's lock and answers the charge as stored", async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', responseFormat: 'normalized' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });
    const id = created.body.data.id as string;
    const refunded = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 500 } });
    assert.equal(refunded.status, 201, refunded.text);
    assert.equal(refunded.body.data.refundedAmount, 500);
    // Released with the write itself: anyone may take the lock the moment the answer is out.
    assert.equal(await e2e.sandbox.app.store.charges.tryLock(id, 'probe', Date.now(), 60_000), true);
    await e2e.sandbox.app.store.charges.unlock(id, 'probe');
    const { refund: _refund, ...answered } = refunded.body.data;
    const { attempts: _attempts, ...stored } = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.deepEqual(answered, stored);
    assert.notEqual(stored.updatedAt, created.body.data.updatedAt);
  });

  test('a refund the gateway refuses is an error and leaves the stored amounts alone', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });
    await e2e.control.fault('pagarme', 'http429');
    const res = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/refunds`, { key, body: { amount: 500 } });
    expectError(res, 'GATEWAY_ERROR', 502);
    const stored = await e2e.call('GET', `/api/v1/charges/${created.body.data.id}`, { key });
    assert.equal(stored.body.data.refundedAmount, 0);
    assert.equal(stored.body.data.status, 'approved');
    assert.equal(stored.body.data.attempts[1].outcome, 'failed');
  });
});

describe('customers', () => {
  test('a customer created at Stripe is sent as customer by id; a fallback gateway gets the inline customer instead', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    const customer = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER } });
    assert.equal(customer.status, 201, customer.text);
    assert.equal(customer.body.data.gateway, 'stripe', 'the primary creates it when gateway is absent');
    const externalId = customer.body.data.externalId as string;
    assert.match(externalId, /^cus_/);

    const card = { paymentMethod: 'credit_card', amount: 2500, customerId: externalId, customer: CUSTOMER, creditCard: CARD };
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card });
    assert.equal(res.status, 201, res.text);
    const intent = (await e2e.control.requests('stripe')).filter((r) => r.path.startsWith('/v1/payment_intents')).pop()!;
    assert.equal((intent.body as Record<string, string>).customer, externalId);

    await e2e.control.fault('stripe', 'http429', { count: 5 });
    const fallback = await e2e.call('POST', '/api/v1/charges', { key, body: card });
    assert.equal(fallback.status, 201, fallback.text);
    assert.equal(fallback.body.data.gateway, 'pagarme');
    await e2e.control.clearFaults();
    const order = (await e2e.control.lastRequest('pagarme'))!.body as Record<string, unknown>;
    assert.equal(order.customer_id, undefined, 'a Stripe customer id never goes to Pagar.me');
    assert.equal((order.customer as Record<string, string>).document, CUSTOMER.document);
  });

  test('customer validation: document of 11 or 14 digits, e-mail format, name length', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const res = await e2e.call('POST', '/api/v1/customers', { key, body: { name: 'Al', email: 'not-an-email', document: '123' } });
    expectError(res, 'VALIDATION_ERROR', 400);
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['document', 'email', 'name']);
  });
});
