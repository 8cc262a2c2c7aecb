import assert from 'node:assert/strict';
import type { CompatCase } from '../pairs-types';

// Asaas-format clients (JSON, values in reais, the key in access_token; asaas.md sections 1 and 2), charged on each
// target. An Asaas payment always names a customer created first with POST /v3/customers: the harness does that.

/** A due date three days ahead, in Asaas' "YYYY-MM-DD" (pix: the QR code is valid until then; boleto: its due date). */
export const DUE = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);

const BASE = { value: 19.99, dueDate: DUE, description: 'Pedido 1001', externalReference: 'ord-1001' };

export const ASAAS_CUSTOMER = {
  name: 'Maria Souza', cpfCnpj: '12345678909', email: 'maria.souza@example.com', mobilePhone: '11987654321',
  address: 'Av Paulista', addressNumber: '100', complement: 'conj 12', province: 'Bela Vista', city: 'Sao Paulo', postalCode: '01310-100',
};

export const asaasCard = (number = '4242424242424242') => ({
  ...BASE, billingType: 'CREDIT_CARD',
  creditCard: { holderName: 'MARIA SOUZA', number, expiryMonth: '12', expiryYear: '2030', ccv: '123' },
  creditCardHolderInfo: { name: 'Maria Souza', email: 'maria.souza@example.com', cpfCnpj: '12345678909', postalCode: '01310100', addressNumber: '100', phone: '11987654321', mobilePhone: '11987654321' },
  remoteIp: '203.0.113.10',
});

export const asaasHeaders = (key: string) => ({ access_token: key, 'content-type': 'application/json', 'user-agent': 'loja-teste' });

export const asaasCase: CompatCase = {
  compat: 'asaas',
  createPath: '/v3/payments',
  retrievePath: (id) => `/v3/payments/${id}`,
  headers: asaasHeaders,
  encode: (body) => JSON.stringify(body),
  payloads: {
    card: asaasCard(),
    pix: { ...BASE, billingType: 'PIX' },
    boleto: { ...BASE, billingType: 'BOLETO' },
  },
  customer: { path: '/v3/customers', body: ASAAS_CUSTOMER, attach: (payload, id) => ({ ...(payload as object), customer: id }) },
  createStatus: 200,
  idOf: (body) => (body as { id: string }).id,
  assertCreated(body, { method, target, chargeId }) {
    const p = body as Record<string, any>;
    assert.equal(p.object, 'payment');
    // 19.99 reais in, 1999 cents inside RouteGate, 19.99 reais out, whichever gateway charged it.
    assert.equal(p.value, 19.99);
    assert.match(p.customer, /^cus_/, 'the customer id the client sent');
    assert.match(p.dateCreated, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(p.deleted, false);
    assert.equal(p.description, 'Pedido 1001');
    if (target === 'asaas') {
      assert.match(p.id, /^pay_/, 'Asaas\' own payment, as Asaas answered it');
      assert.equal(p.externalReference, chargeId, 'Asaas holds RouteGate\'s reference (how a timed-out create is found again)');
    } else {
      assert.equal(p.id, chargeId, 'a payment held elsewhere is named by RouteGate\'s id');
      assert.equal(p.externalReference, 'ord-1001');
    }
    if (method === 'card') {
      assert.equal(p.billingType, 'CREDIT_CARD');
      assert.equal(p.status, 'CONFIRMED');
      assert.match(p.confirmedDate, /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(p.creditCard.creditCardNumber, '4242');
      assert.equal(p.bankSlipUrl, null);
    } else if (method === 'pix') {
      assert.equal(p.billingType, 'PIX');
      assert.equal(p.status, 'PENDING');
      assert.equal(p.paymentDate, null);
      assert.equal(p.confirmedDate, null);
      assert.equal(p.bankSlipUrl, null);
    } else {
      assert.equal(p.billingType, 'BOLETO');
      assert.equal(p.status, 'PENDING');
      assert.equal(p.dueDate, DUE, 'the boleto\'s due date as sent');
      assert.match(p.bankSlipUrl, /^https?:\/\//, 'the boleto PDF');
      assert.equal(p.paymentDate, null);
    }
  },
  assertRetrieved(body, created) {
    const p = body as Record<string, any>;
    const c = created as Record<string, any>;
    assert.deepEqual([p.object, p.id, p.value, p.billingType, p.status], ['payment', c.id, 19.99, c.billingType, c.status]);
    assert.equal(p.customer, c.customer, 'the customer as the client named it');
  },
};
