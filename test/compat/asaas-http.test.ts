import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch } from 'undici';
import { startE2E, type E2E } from '../helpers/e2e';
import type { GatewayId } from '../../src/gateways/registry-ids';

// Issue 11, item 6 for Asaas: Asaas publishes no official Node SDK on npm, so its integrations talk plain HTTP as
// the API notes show (asaas.md sections 1 to 5): JSON bodies, values in reais, the key in the `access_token`
// header, a User-Agent. This client is written that way and only its base URL and key point at RouteGate.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

interface AsaasReply { status: number; body: any; gateway: string | null }

/** An Asaas integration's HTTP helper, as written against https://api.asaas.com/v3. */
function asaasClient(baseUrl: string, apiKey: string) {
  return async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<AsaasReply> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { access_token: apiKey, 'Content-Type': 'application/json', 'User-Agent': 'loja-teste/1.0' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, gateway: res.headers.get('x-rg-gateway') };
  };
}

const dueDate = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
const customerBody = {
  name: 'Maria Souza', cpfCnpj: '24971563792', email: 'maria.souza@example.com', mobilePhone: '11987654321',
  address: 'Av Paulista', addressNumber: '100', province: 'Bela Vista', city: 'Sao Paulo', postalCode: '01310100', notificationDisabled: true,
};
const card = (customer: string, number: string) => ({
  customer, billingType: 'CREDIT_CARD', value: 19.99, dueDate, description: 'Pedido 1001', externalReference: 'ord-1001',
  creditCard: { holderName: 'MARIA SOUZA', number, expiryMonth: '12', expiryYear: '2030', ccv: '123' },
  creditCardHolderInfo: { name: 'Maria Souza', email: 'maria.souza@example.com', cpfCnpj: '24971563792', postalCode: '01310100', addressNumber: '100', phone: '11987654321', mobilePhone: '11987654321' },
  remoteIp: '203.0.113.10',
});

async function clientFor(primary: GatewayId, fallbacks: GatewayId[], base: '' | '/compat/asaas') {
  const key = await e2e.account({ primaryGateway: primary, gatewayFallbacks: fallbacks, compatibilityMode: 'asaas' });
  return asaasClient(`${e2e.sandbox.url}${base}/v3`, key);
}

test('plain HTTP as Asaas documents it: customer, pix with its QR code, boleto with its line, card, retrieve, refund in reais', async () => {
  const asaas = await clientFor('asaas', ['pagarme'], '');
  const customer = await asaas('POST', '/customers', customerBody);
  assert.equal(customer.status, 200);
  assert.match(customer.body.id, /^cus_/);
  assert.equal(customer.body.cpfCnpj, '24971563792');

  const pix = await asaas('POST', '/payments', { customer: customer.body.id, billingType: 'PIX', value: 19.99, dueDate });
  assert.equal(pix.status, 200);
  assert.deepEqual([pix.body.object, pix.body.billingType, pix.body.status, pix.body.value, pix.gateway], ['payment', 'PIX', 'PENDING', 19.99, 'asaas']);
  assert.match(pix.body.id, /^pay_/);
  const qr = await asaas('GET', `/payments/${pix.body.id}/pixQrCode`);
  assert.equal(qr.status, 200);
  assert.match(qr.body.payload, /^000201/);
  assert.ok(Buffer.from(qr.body.encodedImage, 'base64').subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG');
  assert.equal(qr.body.expirationDate, `${dueDate} 23:59:59`, 'valid until the end of the due date');

  const boleto = await asaas('POST', '/payments', { customer: customer.body.id, billingType: 'BOLETO', value: 19.99, dueDate });
  assert.deepEqual([boleto.status, boleto.body.status, boleto.body.dueDate], [200, 'PENDING', dueDate]);
  assert.match(boleto.body.bankSlipUrl, /^https:\/\//);
  const line = await asaas('GET', `/payments/${boleto.body.id}/identificationField`);
  assert.equal(line.status, 200);
  assert.match(line.body.identificationField, /^\d{47}$/);
  assert.match(line.body.barCode, /^\d{44}$/);
  assert.equal(line.body.nossoNumero, boleto.body.nossoNumero);

  const paid = await asaas('POST', '/payments', card(customer.body.id, '4444444444444444'));
  assert.equal(paid.status, 200);
  assert.deepEqual([paid.body.status, paid.body.value, paid.body.creditCard.creditCardNumber], ['CONFIRMED', 19.99, '4444']);
  const ledger = (await e2e.control.ledger('asaas')).find((l) => l.id === paid.body.id);
  assert.equal(ledger?.amount, 1999, 'Asaas holds 19.99 reais: 1999 cents');

  const read = await asaas('GET', `/payments/${paid.body.id}`);
  assert.deepEqual([read.status, read.body.id, read.body.status], [200, paid.body.id, 'CONFIRMED']);
  const refund = await asaas('POST', `/payments/${paid.body.id}/refund`, { value: 5, description: 'item devolvido' });
  assert.equal(refund.status, 200);
  assert.deepEqual([refund.body.object, refund.body.id, refund.body.status, refund.body.refunds[0].value], ['payment', paid.body.id, 'CONFIRMED', 5]);
  assert.equal((await e2e.control.ledger('asaas')).find((l) => l.id === paid.body.id)?.refundedAmount, 500);
  const full = await asaas('POST', `/payments/${paid.body.id}/refund`);
  assert.deepEqual([full.status, full.body.status], [200, 'REFUNDED']);
});

test('plain HTTP: a refused card is Asaas\' 400 {errors: [{code: invalid_creditCard, description}]}, nothing created', async () => {
  const asaas = await clientFor('asaas', [], '');
  const customer = await asaas('POST', '/customers', customerBody);
  const before = (await e2e.control.ledger('asaas')).length;
  const declined = await asaas('POST', '/payments', card(customer.body.id, '5184019740373151'));
  assert.equal(declined.status, 400);
  assert.deepEqual(declined.body, { errors: [{ code: 'invalid_creditCard', description: 'Transação não autorizada. Verifique os dados do cartão de crédito e tente novamente.' }] });
  assert.equal((await e2e.control.ledger('asaas')).length, before, 'no payment at Asaas');
});

test('the same client, base URL /compat/asaas/v3, charged on Mercado Pago: create, retrieve and refund by RouteGate\'s id', async () => {
  const asaas = await clientFor('mercadopago', [], '/compat/asaas');
  const customer = await asaas('POST', '/customers', customerBody);
  assert.equal(customer.status, 200);
  const paid = await asaas('POST', '/payments', card(customer.body.id, '4242424242424242'));
  assert.equal(paid.status, 200);
  assert.equal(paid.gateway, 'mercadopago');
  assert.match(paid.body.id, /^chg_/);
  assert.deepEqual([paid.body.object, paid.body.status, paid.body.value, paid.body.customer], ['payment', 'CONFIRMED', 19.99, customer.body.id]);
  const read = await asaas('GET', `/payments/${paid.body.id}`);
  assert.deepEqual([read.body.id, read.body.customer], [paid.body.id, customer.body.id]);
  const refund = await asaas('POST', `/payments/${paid.body.id}/refund`, { value: 9.99 });
  assert.equal(refund.status, 200);
  assert.deepEqual([refund.body.status, refund.body.refunds[0].value], ['CONFIRMED', 9.99]);
  const mp = (await e2e.control.ledger('mercadopago')).find((l) => l.reference === paid.body.id);
  assert.equal(mp?.refundedAmount, 999, 'Mercado Pago refunded 9.99 reais: 999 cents');
});
