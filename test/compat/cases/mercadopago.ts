import assert from 'node:assert/strict';
import type { CompatCase } from '../pairs-types';

// Mercado Pago-format clients (JSON POST /v1/payments, amounts in reais, as the mercadopago SDK sends them), charged
// on each target. An MP card is always an MP card token (its create-payment never carries card data), so cards go to
// Mercado Pago only; pix and boleto are portable.

const PAYER = {
  email: 'maria.souza@example.com', first_name: 'Maria', last_name: 'Souza',
  identification: { type: 'CPF', number: '12345678909' },
};
const ADDRESS = { zip_code: '01310-100', street_name: 'Av Paulista', street_number: '100', neighborhood: 'Bela Vista', city: 'Sao Paulo', federal_unit: 'SP' };
const BASE = { transaction_amount: 19.99, description: 'Pedido 1001', external_reference: 'order-1001', metadata: { order_id: '1001' } };
/** A card token as POST /v1/card_tokens returns it (32 hex); the emulator charges one it did not issue as APRO. */
const CARD_TOKEN = 'ff8080814c11e237014c1ff593b57b4d';

export const mercadopagoCase: CompatCase = {
  compat: 'mercadopago',
  createPath: '/v1/payments',
  retrievePath: (id) => `/v1/payments/${id}`,
  headers: (key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-idempotency-key': crypto.randomUUID() }),
  encode: (body) => JSON.stringify(body),
  payloads: {
    card: { ...BASE, token: CARD_TOKEN, installments: 1, payment_method_id: 'visa', payer: PAYER },
    pix: { ...BASE, payment_method_id: 'pix', payer: PAYER },
    boleto: { ...BASE, payment_method_id: 'bolbradesco', payer: { ...PAYER, address: ADDRESS } },
  },
  customer: {
    path: '/v1/customers',
    body: {
      email: 'maria.souza@example.com', first_name: 'Maria', last_name: 'Souza', phone: { area_code: '11', number: '987654321' },
      identification: { type: 'CPF', number: '12345678909' }, address: { zip_code: '01310100', street_name: 'Av Paulista', street_number: 100 },
    },
    attach: (payload, id) => ({ ...(payload as object), payer: { ...(payload as { payer: object }).payer, type: 'customer', id } }),
  },
  createStatus: 201,
  idOf: (body) => String((body as { id: string | number }).id),
  assertCreated(body, { method, target, chargeId }) {
    const p = body as Record<string, any>;
    // 19.99 reais: 1999 cents inside RouteGate, 19.99 (reais) out, whichever gateway charged it.
    assert.equal(p.transaction_amount, 19.99);
    assert.equal(p.transaction_amount_refunded, 0);
    assert.equal(p.transaction_details.total_paid_amount, 19.99);
    assert.equal(p.currency_id, 'BRL');
    assert.equal(p.external_reference, 'order-1001', 'the client\'s own reference, not RouteGate\'s');
    assert.equal(p.metadata.order_id, '1001');
    assert.equal(p.payer.email, 'maria.souza@example.com');
    if (target === 'mercadopago') assert.equal(typeof p.id, 'number', 'Mercado Pago\'s own numeric payment id');
    else {
      // MP's description and SDK type `id` as a number: a charge held elsewhere has RouteGate's numeric id (migration 022).
      assert.equal(typeof p.id, 'number', `a charge held at ${target} (${chargeId}) has a numeric id`);
      assert.ok(Number.isSafeInteger(p.id) && p.id > 5e15, String(p.id));
    }
    if (method === 'card') {
      assert.deepEqual([p.status, p.status_detail, p.captured], ['approved', 'accredited', true]);
      assert.deepEqual([p.payment_method_id, p.payment_type_id, p.installments], ['visa', 'credit_card', 1]);
    } else if (method === 'pix') {
      assert.deepEqual([p.status, p.status_detail], ['pending', 'pending_waiting_transfer']);
      assert.deepEqual([p.payment_method_id, p.payment_type_id], ['pix', 'bank_transfer']);
      assert.equal(p.point_of_interaction.type, 'PIX');
      assert.match(p.point_of_interaction.transaction_data.qr_code, /^000201/, 'the EMV copy-and-paste text');
      assert.ok(p.point_of_interaction.transaction_data.qr_code_base64 || p.point_of_interaction.transaction_data.ticket_url, 'a QR image or page');
      assert.match(p.date_of_expiration, /-03:00$/);
    } else {
      assert.deepEqual([p.status, p.status_detail], ['pending', 'pending_waiting_payment']);
      assert.deepEqual([p.payment_method_id, p.payment_type_id], ['bolbradesco', 'ticket']);
      assert.match(p.transaction_details.digitable_line, /^\d{47}$/, 'the typeable line');
      assert.ok(p.transaction_details.external_resource_url, 'the printable boleto');
      assert.match(p.date_of_expiration, /^\d{4}-\d{2}-\d{2}T[\d:.]+-03:00$/, 'the due date in Mercado Pago\'s form');
    }
  },
  assertRetrieved(body, created) {
    const p = body as Record<string, any>;
    assert.equal(p.id, (created as { id: unknown }).id);
    assert.equal(p.transaction_amount, 19.99);
    assert.equal(p.status, (created as { status: string }).status);
    assert.equal(p.external_reference, 'order-1001');
  },
  assertRefused(body, { method, target, status }) {
    const e = body as Record<string, any>;
    assert.equal(method, 'card');
    // Mercado Pago's error shape; 400 as MP refuses what it cannot charge, naming whose token it is.
    assert.equal(status, 400);
    assert.deepEqual([e.status, e.error], [400, 'bad_request']);
    assert.match(e.message, new RegExp(`card token belongs to mercadopago and cannot be charged on ${target}`));
    assert.ok(Array.isArray(e.cause));
  },
};
