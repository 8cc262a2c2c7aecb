import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';

// A gateway that charges registered customers only (capability `needs: 'customerId'`: Asaas today) takes a charge that
// carries its payer inline: RouteGate registers the payer there when that attempt runs (or reuses the customer it
// registered before for the same account and document) and charges that customer. Real HTTP against the emulators.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());
beforeEach(() => e2e.control.reset());

const pix = (extra: Record<string, unknown> = {}) => ({ paymentMethod: 'pix', amount: 1999, currency: 'BRL', description: 'Pedido 1001', customer: CUSTOMER, ...extra });

async function asaasCalls() {
  return (await e2e.control.requests('asaas')).filter((r) => r.method === 'POST').map((r) => ({ path: r.path, body: r.body as Record<string, unknown> }));
}

describe('an inline payer at a gateway that charges registered customers only', () => {
  test('primary asaas: the payer is registered (POST /v3/customers), then charged as that customer', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: pix() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'asaas');
    const calls = await asaasCalls();
    assert.deepEqual(calls.map((c) => c.path), ['/v3/customers', '/v3/payments']);
    assert.equal(calls[0].body.cpfCnpj, '12345678909');
    assert.equal(calls[0].body.name, 'Maria Souza');
    const customerId = await registeredCustomer();
    assert.equal(res.body.data.customerId, customerId, 'the charge names the customer it was made with');
  });

  test('a second charge with the same document reuses the customer: no second customer create', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: pix() });
    assert.equal(first.status, 201, first.text);
    const second = await e2e.call('POST', '/api/v1/charges', { key, body: pix({ customer: { ...CUSTOMER, name: 'Maria S. Souza' } }) });
    assert.equal(second.status, 201, second.text);
    const calls = await asaasCalls();
    assert.deepEqual(calls.map((c) => c.path), ['/v3/customers', '/v3/payments', '/v3/payments']);
    assert.equal(calls[2].body.customer, calls[1].body.customer);
    assert.equal(second.body.data.customerId, first.body.data.customerId);
    // Another account never shares it: its customers are its own.
    const other = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    assert.equal((await e2e.call('POST', '/api/v1/charges', { key: other, body: pix() })).status, 201);
    assert.equal((await asaasCalls()).filter((c) => c.path === '/v3/customers').length, 2);
  });

  test('primary down: the fallback asaas registers the payer and charges it', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['asaas'] });
    await e2e.control.fault('pagarme', 'http429', { count: 20 });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: pix() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'asaas');
    assert.equal(res.headers['x-rg-fallback-used'], 'true');
    const calls = await asaasCalls();
    assert.deepEqual(calls.map((c) => c.path), ['/v3/customers', '/v3/payments']);
    assert.equal(res.body.data.customerId, await registeredCustomer());
    assert.equal((await e2e.control.ledger('pagarme')).length, 0);
  });

  test('the attempt that is never reached registers nothing', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['asaas'] });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: pix() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.deepEqual(await asaasCalls(), []);
  });

  test('registering the payer fails: that attempt failed, nothing charged there, and the fallback rule applies', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagarme'] });
    await e2e.control.fault('asaas', 'http429', { count: 20, method: 'POST', path: '/v3/customers' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: pix() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.ok(!(await asaasCalls()).some((c) => c.path === '/v3/payments'), 'no payment create reached asaas');
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
    const attempt = stored.body.data.attempts[0];
    assert.equal(attempt.gateway, 'asaas');
    assert.equal(attempt.outcome, 'failed');
    assert.match(attempt.message, /registering the payer as a customer at asaas failed, so nothing was charged there/);

    // A refusal that ends the charge (a validation error) answers with that reason.
    await e2e.control.clearFaults();
    const alone = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    await e2e.control.fault('asaas', 'http500', { count: 20, method: 'POST', path: '/v3/customers' });
    const failed = await e2e.call('POST', '/api/v1/charges', { key: alone, body: pix() });
    assert.ok(failed.status >= 500, failed.text);
    assert.match(failed.body.error.message, /registering the payer as a customer at asaas failed/);
    assert.ok(!(await asaasCalls()).some((c) => c.path === '/v3/payments'));
    await e2e.control.clearFaults();
  });

  test('an inline payer without a document still skips asaas with CUSTOMER_ID_REQUIRED, and nothing is registered', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const { document: _omitted, ...noDocument } = CUSTOMER;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: { ...pix({ customer: noDocument }), paymentMethod: 'credit_card', creditCard: CARD } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'GATEWAY_UNSUPPORTED_OPERATION');
    assert.match(res.body.error.message, /asaas needs a customer on every charge/);
    assert.deepEqual(await asaasCalls(), []);
  });
});

/**
 * The customer the (first) payment create named, checked at the emulator: Asaas holds it with the payer's document,
 * so it is the customer RouteGate registered, not some other id.
 */
async function registeredCustomer(): Promise<string> {
  const payment = (await e2e.control.requests('asaas')).find((r) => r.method === 'POST' && r.path === '/v3/payments');
  const id = String((payment?.body as { customer?: string } | undefined)?.customer);
  assert.match(id, /^cus_\d+$/);
  const res = await fetch(`${e2e.sandbox.app.config.gatewayUrls.asaas}/v3/customers/${id}`, { headers: { access_token: SANDBOX_CREDENTIALS.asaas.apiKey } });
  assert.equal(res.status, 200);
  const customer = await res.json() as { cpfCnpj: string; name: string };
  assert.equal(customer.cpfCnpj, '12345678909');
  return id;
}
