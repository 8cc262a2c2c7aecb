import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';
import { ADAPTERS } from '../../src/gateways/registry';

// Follow-up operations and customers across gateways, end to end against the emulators.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const pix = { paymentMethod: 'pix', amount: 1999, description: 'Pedido 2001', customer: CUSTOMER, pix: { expiresInSeconds: 3600 } };

describe('follow-up operations', () => {
  test('a pending pix can be cancelled where the gateway allows it (Stripe)', async () => {
    const key = e2e.account({ primaryGateway: 'stripe' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: pix });
    assert.equal(created.body.data.status, 'pending', created.text);
    const res = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/cancel`, { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'cancelled');
    const again = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/cancel`, { key });
    expectError(again, 'VALIDATION_ERROR', 400);
  });

  test('a refund the gateway refuses is an error and leaves the stored amounts alone', async () => {
    const key = e2e.account({ primaryGateway: 'pagarme' });
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

describe('the payer pays (control API): every gateway, pix and boleto', () => {
  for (const gateway of GATEWAY_IDS) {
    for (const method of ['pix', 'boleto'] as const) {
      test(`${gateway} ${method}: pending, paid by the payer, approved on refresh, then refunded where ${gateway} refunds ${method}`, async () => {
        const key = e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
        const customerId = gateway === 'asaas'
          ? (await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId as string : undefined;
        const body = method === 'pix' ? { ...pix, customerId }
          : { ...pix, pix: undefined, customerId, paymentMethod: 'boleto', boleto: { dueDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10) } };
        const created = await e2e.call('POST', '/api/v1/charges', { key, body });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.data.status, 'pending');
        await e2e.control.pay(gateway, created.body.data.externalId);
        const stale = await e2e.call('GET', `/api/v1/charges/${created.body.data.id}`, { key });
        assert.equal(stale.body.data.status, 'pending', 'without refresh the stored state answers');
        const fresh = await e2e.call('GET', `/api/v1/charges/${created.body.data.id}?refresh=true`, { key });
        assert.equal(fresh.status, 200, fresh.text);
        assert.equal(fresh.body.data.status, 'approved', fresh.text);
        assert.equal(fresh.body.data.paidAmount, 1999);
        assert.equal(fresh.body.data.refundedAmount, 0);
        const stored = await e2e.call('GET', `/api/v1/charges/${created.body.data.id}`, { key });
        assert.equal(stored.body.data.status, 'approved');
        assert.deepEqual(stored.body.data.attempts.map((a: { operation: string }) => a.operation), ['charge', 'retrieve']);
        await assert.rejects(e2e.control.pay(gateway, created.body.data.externalId), /409/, 'a paid charge cannot be paid again');

        const refunds = ADAPTERS[gateway].capabilities[method];
        if (refunds.partial_refund !== 'supported') return;
        const id = created.body.data.id;
        const partial = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 500 } });
        assert.equal(partial.status, 201, partial.text);
        assert.equal(partial.body.data.status, 'approved');
        assert.equal(partial.body.data.refundedAmount, 500);
        const rest = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: {} });
        assert.equal(rest.status, 201, rest.text);
        assert.equal(rest.body.data.status, 'refunded');
        assert.equal(rest.body.data.refundedAmount, 1999);
      });
    }
  }
});

describe('customers', () => {
  test('a customer created at Stripe is sent as customer by id; a fallback gateway gets the inline customer instead', async () => {
    const key = e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
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
    const key = e2e.account({ primaryGateway: 'stripe' });
    const res = await e2e.call('POST', '/api/v1/customers', { key, body: { name: 'Al', email: 'not-an-email', document: '123' } });
    expectError(res, 'VALIDATION_ERROR', 400);
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['document', 'email', 'name']);
  });
});
