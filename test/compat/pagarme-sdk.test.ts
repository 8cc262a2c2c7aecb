import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@pagarme/pagarme-nodejs-sdk';
import { startE2E, type E2E } from '../helpers/e2e';
import { pagarmeAddress, pagarmeCalls, pagarmeClient, pagarmeCustomer, type PagarmeClients } from '../helpers/sdk-clients';

// Issue 11: the official Pagar.me SDK (@pagarme/pagarme-nodejs-sdk), unchanged but for the key and its documented
// httpClientOptions.httpsAgent (test/helpers/sdk-clients.ts: the SDK's base URL https://api.pagar.me/core/v5 is fixed,
// the agent opens its connections to RouteGate's root), against RouteGate in compatibility mode pagarme. The SDK
// deserializes every 2xx answer against its schemas (ResponseValidationError on a mismatch), so each call returning
// normally proves the answer's shape, whichever gateway really holds the charge.

let e2e: E2E;
const clients: PagarmeClients[] = [];
before(async () => {
  e2e = await startE2E();
});
after(async () => {
  for (const c of clients) c.close();
  await e2e.close();
});

/** The transaction's fields beyond the base model (the SDK's result holds the subtype its transaction_type picks). */
const txOf = (tx: unknown) => tx as Record<string, unknown>;

async function sdk(settings: Record<string, unknown>): Promise<PagarmeClients> {
  const pg = pagarmeClient(e2e.sandbox.url, await e2e.account({ compatibilityMode: 'pagarme', ...settings }));
  clients.push(pg);
  return pg;
}

test('Pagar.me processes it: createOrder (card), getOrder, getCharge, then cancelCharge refunds part and the rest', async () => {
  const pg = await sdk({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
  const { result: order, headers } = await pagarmeCalls.createCardOrder(pg, { code: 'ord-sdk-1', amount: 1999, cardNumber: '4242424242424242' });
  assert.equal(headers['x-rg-gateway'], 'pagarme');
  assert.match(order.id!, /^or_/);
  assert.equal(order.status, 'paid');
  assert.equal(order.amount, 1999);
  const charge = order.charges![0];
  assert.match(charge.id!, /^ch_/);
  assert.equal(charge.paidAmount, 1999);
  assert.equal(charge.lastTransaction?.transactionType, 'credit_card');
  const ledger = (await e2e.control.ledger('pagarme')).find((l) => l.id === order.id);
  assert.equal(ledger?.amount, 1999, 'the Pagar.me emulator holds the order for 1999 cents');

  const read = (await pagarmeCalls.getOrder(pg, order.id!)).result;
  assert.deepEqual([read.id, read.status, read.charges![0].id], [order.id, 'paid', charge.id]);
  const readCharge = (await pagarmeCalls.getCharge(pg, charge.id!)).result;
  assert.deepEqual([readCharge.id, readCharge.amount, readCharge.status], [charge.id, 1999, 'paid']);

  const partial = (await pagarmeCalls.refundPartial(pg, charge.id!, 500, 'refund-ref-1')).result;
  assert.equal(partial.id, charge.id);
  assert.equal(partial.status, 'paid', 'a partial refund leaves the charge paid');
  assert.equal(partial.canceledAmount, 500);
  const full = (await pagarmeCalls.refundFull(pg, charge.id!)).result;
  assert.equal(full.status, 'canceled', 'a full refund cancels the charge');
  assert.equal(full.canceledAmount, 1999);
  assert.equal(full.lastTransaction?.amount, 1499, 'this call refunded what was left');
  const after = (await e2e.control.ledger('pagarme')).find((l) => l.id === order.id)!;
  assert.deepEqual([after.refundedAmount, after.refunds], [1999, 2]);
});

test('another gateway processes it (primary stripe): the SDK parses the order, its pix, and refunds by RouteGate\'s ids', async () => {
  const pg = await sdk({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
  const { result: order, headers } = await pagarmeCalls.createCardOrder(pg, { code: 'ord-sdk-2', amount: 1999, cardNumber: '4242424242424242' });
  assert.equal(headers['x-rg-gateway'], 'stripe');
  const chargeId = headers['x-rg-charge-id'];
  assert.equal(order.id, chargeId, 'RouteGate\'s id, which the native follow-ups answer');
  assert.equal(order.code, 'ord-sdk-2');
  assert.equal(order.status, 'paid');
  assert.equal(order.charges![0].id, chargeId);
  assert.equal(order.charges![0].lastTransaction?.status, 'captured');
  assert.equal(order.customer?.name, 'Maria Souza');
  assert.equal(order.customer?.metadata?.source, 'sdk-test');
  const stripeLedger = (await e2e.control.ledger('stripe')).find((l) => l.id === headers['x-rg-external-id'] || l.reference === chargeId);
  assert.equal(stripeLedger?.amount, 1999, 'Stripe charged 1999 cents');

  const read = (await pagarmeCalls.getOrder(pg, order.id!)).result;
  assert.deepEqual([read.id, read.code, read.charges![0].paidAmount], [order.id, 'ord-sdk-2', 1999]);
  const refund = (await pagarmeCalls.refundPartial(pg, order.charges![0].id!, 999, 'refund-ref-2')).result;
  assert.deepEqual([refund.id, refund.status, refund.canceledAmount, refund.lastTransaction?.amount], [chargeId, 'paid', 999, 999]);
  const refunded = (await e2e.control.ledger('stripe')).find((l) => l.id === stripeLedger!.id);
  assert.equal(refunded?.refundedAmount, 999);

  const pix = await pagarmeCalls.createPixOrder(pg, { code: 'ord-sdk-3', amount: 1999 });
  assert.equal(pix.headers['x-rg-gateway'], 'stripe');
  const tx = txOf(pix.result.charges![0].lastTransaction);
  assert.equal(pix.result.status, 'pending');
  assert.equal(tx.transactionType, 'pix');
  assert.match(String(tx.qrCode), /^000201/);
  assert.ok(tx.qrCodeUrl);
  const cancelled = (await pagarmeCalls.refundFull(pg, pix.result.charges![0].id!)).result;
  assert.equal(cancelled.status, 'canceled', 'DELETE on a pending pix cancels it');
});

test('createCustomer, then a boleto order naming it, on asaas (which needs a customer): Pagar.me\'s boleto transaction', async () => {
  const pg = await sdk({ primaryGateway: 'asaas', gatewayFallbacks: [] });
  const { result: customer } = await pagarmeCalls.createCustomer(pg);
  assert.match(customer.id!, /^cus_/);
  assert.deepEqual([customer.name, customer.document, customer.phones?.mobilePhone?.areaCode], ['Maria Souza', '12345678909', '11']);
  const read = (await pg.customers.getCustomer(customer.id!)).result;
  assert.equal(read.id, customer.id);
  const due = `${new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10)}T23:59:59Z`;
  const { result: order, headers } = await pg.orders.createOrder({
    code: 'ord-sdk-4', closed: true, customerId: customer.id, customer: pagarmeCustomer(),
    items: [{ amount: 1999, description: 'Pedido', quantity: 1, category: 'geral', code: 'SKU-1' }],
    payments: [{
      paymentMethod: 'boleto',
      boleto: { retries: 0, instructions: 'Nao receber apos vencimento', dueAt: due, billingAddress: pagarmeAddress(), documentNumber: '4', statementDescriptor: 'MINHALOJA' },
    }],
  });
  assert.equal(headers['x-rg-gateway'], 'asaas');
  const tx = txOf(order.charges![0].lastTransaction);
  assert.deepEqual([order.status, order.amount, tx.transactionType, tx.status], ['pending', 1999, 'boleto', 'generated']);
  assert.match(String(tx.line).replace(/\D/g, ''), /^\d{47}$/);
  assert.ok(tx.url);
  const asaas = (await e2e.control.ledger('asaas')).find((l) => l.reference === headers['x-rg-charge-id']);
  assert.equal(asaas?.amount, 1999, 'Asaas was charged 19.99 reais (its ledger in cents)');
});

test('a decline is HTTP 200 with the order failed and the transaction not_authorized: the SDK returns it normally', async () => {
  for (const primary of ['pagarme', 'stripe']) {
    const pg = await sdk({ primaryGateway: primary, gatewayFallbacks: [] });
    const { result: order, statusCode, headers } = await pagarmeCalls.createCardOrder(pg, { code: 'ord-sdk-5', amount: 1999, cardNumber: '4000000000009995' });
    assert.equal(statusCode, 200);
    assert.equal(headers['x-rg-error-code'], 'GATEWAY_ERROR', `${primary}: the RouteGate code travels in a header`);
    assert.equal(headers['x-rg-gateway'], primary);
    assert.equal(order.status, 'failed');
    const charge = order.charges![0];
    assert.equal(charge.status, 'failed');
    assert.equal(charge.lastTransaction?.status, 'not_authorized');
    assert.equal(charge.lastTransaction?.success, false);
    assert.equal(txOf(charge.lastTransaction).acquirerReturnCode, '1016', 'insufficient funds, ABECS');
  }
});

test('a wrong key and a validation error are the SDK\'s own errors (401, 422 with the native field)', async () => {
  const wrong = pagarmeClient(e2e.sandbox.url, 'tk_not_a_real_key_000000000000');
  clients.push(wrong);
  await assert.rejects(pagarmeCalls.getOrder(wrong, 'or_x'), (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.statusCode, 401);
    assert.equal(err.headers['x-rg-error-code'], 'INVALID_API_KEY');
    return true;
  });
  const pg = await sdk({ primaryGateway: 'pagarme' });
  await assert.rejects(pagarmeCalls.createCardOrder(pg, { code: 'ord-sdk-6', amount: 0, cardNumber: '4242424242424242' }), (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.statusCode, 422);
    assert.equal(err.headers['x-rg-error-code'], 'VALIDATION_ERROR');
    const result = (err as ApiError & { result?: { errors?: Record<string, string[]> } }).result;
    assert.ok(result?.errors?.['order.items[0].amount'], JSON.stringify(result));
    return true;
  });
});
