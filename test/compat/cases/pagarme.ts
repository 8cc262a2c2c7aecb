import assert from 'node:assert/strict';
import type { CompatCase } from '../pairs-types';

// Pagar.me-format clients (JSON orders at /core/v5, HTTP Basic with the key as user), charged on each target.
// The card is raw card data (payments[0].credit_card.card), the portable form: a Pagar.me card_token only ever goes
// to Pagar.me (test/compat/pagarme-native.test.ts). 19.99 reais is 1999 cents on Pagar.me's wire and in its answers.

const ITEMS = [{ amount: 1999, description: 'Pedido 1001', quantity: 1, code: 'SKU-1' }];
const BASE = { code: 'ord-1001', closed: true, items: ITEMS, metadata: { order_ref: 'cart-77' } };
// Stripe takes a boleto due at most 60 days ahead (expires_after_days): the due date is a week from the run, as a shop sets it.
const DUE_AT = `${new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10)}T23:59:59Z`;
const BILLING = { line_1: '100, Av Paulista, Bela Vista', zip_code: '01310100', city: 'Sao Paulo', state: 'SP', country: 'BR' };

export const pagarmeCase: CompatCase = {
  compat: 'pagarme',
  createPath: '/core/v5/orders',
  retrievePath: (id) => `/core/v5/orders/${id}`,
  headers: (key) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' }),
  encode: (body) => JSON.stringify(body),
  payloads: {
    card: {
      ...BASE,
      payments: [{
        payment_method: 'credit_card',
        credit_card: {
          installments: 1, statement_descriptor: 'MINHALOJA', operation_type: 'auth_and_capture',
          card: { number: '4242424242424242', holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123', billing_address: BILLING },
        },
      }],
    },
    pix: { ...BASE, payments: [{ payment_method: 'pix', pix: { expires_in: 3600 } }] },
    boleto: { ...BASE, payments: [{ payment_method: 'boleto', boleto: { due_at: DUE_AT, instructions: 'Nao receber apos vencimento' } }] },
  },
  customer: {
    path: '/core/v5/customers',
    body: {
      name: 'Maria Souza', email: 'maria.souza@example.com', document: '12345678909', document_type: 'CPF', type: 'individual', code: 'cust-1',
      address: { line_1: '100, Av Paulista, Bela Vista', line_2: 'conj 12', zip_code: '01310-100', city: 'Sao Paulo', state: 'SP', country: 'BR' },
      phones: { mobile_phone: { country_code: '55', area_code: '11', number: '987654321' } },
      metadata: { crm_id: 'c-1' },
    },
    attach: (payload, id) => ({ ...(payload as object), customer_id: id }),
  },
  createStatus: 200,
  idOf: (body) => (body as { id: string }).id,
  assertCreated(body, { method, target, chargeId }) {
    const order = body as Record<string, any>;
    const charge = order.charges?.[0];
    assert.ok(charge, 'the order carries its charge');
    // 19.99 reais: 1999 cents in, 1999 cents out (Pagar.me's unit is cents), whichever gateway charged it.
    assert.equal(order.amount, 1999);
    assert.equal(charge.amount, 1999);
    assert.equal(order.currency, 'BRL');
    assert.equal(order.metadata.order_ref, 'cart-77');
    for (const v of Object.values(order.metadata)) assert.equal(typeof v, 'string', 'metadata values are strings (the SDK refuses others)');
    assert.equal(charge.payment_method, method === 'card' ? 'credit_card' : method);
    assert.equal(charge.last_transaction.transaction_type, method === 'card' ? 'credit_card' : method);
    if (target === 'pagarme') {
      // Pagar.me's raw order: its code is RouteGate's reference there (how RouteGate finds an order after an unproven
      // outcome); the client's order code travels in metadata.code.
      assert.match(order.id, /^or_/);
      assert.match(charge.id, /^ch_/);
      assert.equal(order.code, chargeId);
      assert.equal(order.metadata.code, 'ord-1001');
    } else {
      assert.equal(order.code, 'ord-1001');
      assert.equal(order.id, chargeId, 'a charge held elsewhere is named by RouteGate\'s id');
      assert.equal(charge.id, chargeId);
    }
    if (method === 'card') {
      assert.equal(order.status, 'paid');
      assert.equal(charge.status, 'paid');
      assert.equal(charge.paid_amount, 1999);
      assert.equal(charge.last_transaction.status, 'captured');
      assert.equal(charge.last_transaction.success, true);
      assert.equal(charge.last_transaction.card.last_four_digits, '4242');
    } else if (method === 'pix') {
      assert.equal(order.status, 'pending');
      assert.equal(charge.status, 'pending');
      assert.equal(charge.last_transaction.status, 'waiting_payment');
      assert.match(charge.last_transaction.qr_code, /^000201/, 'qr_code is the EMV copy-and-paste text');
      assert.ok(charge.last_transaction.qr_code_url, 'qr_code_url is the image');
      assert.ok(!Number.isNaN(Date.parse(charge.last_transaction.expires_at)));
    } else {
      assert.equal(order.status, 'pending');
      assert.equal(charge.status, 'pending');
      assert.equal(charge.last_transaction.status, 'generated');
      assert.match(charge.last_transaction.line.replace(/\D/g, ''), /^\d{47}$/, 'the typeable line');
      assert.ok(charge.last_transaction.url, 'the boleto\'s URL');
    }
  },
  assertRetrieved(body, created) {
    const read = body as Record<string, any>;
    const made = created as Record<string, any>;
    assert.equal(read.id, made.id);
    assert.equal(read.amount, 1999);
    assert.equal(read.code, made.code, 'the order code the create answered');
    assert.equal(read.charges[0].id, made.charges[0].id);
    assert.equal(read.charges[0].amount, 1999);
  },
};
