import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fetch } from 'undici';
import { startE2E, type E2E } from '../helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { pagbankPayloads } from './cases/pagbank';

// Issue 11, PagBank: there is no official PagBank Node SDK for the Orders API on npm (the `pagseguro` package is a
// community wrapper of the legacy v2 XML API), so integrations talk plain HTTP, as pagbank.md sections 1 to 3 show:
// JSON, `Authorization: Bearer <token>`, `x-idempotency-key` on POSTs. This file is such a client, written once and
// pointed at RouteGate with only its base URL and token changed (it runs unchanged against the PagBank emulator too):
// card (raw, and encrypted kept on PagBank), pix (qr_codes[]), boleto, GET /orders/{id}, GET /charges/{id}, capture,
// cancel/refund, and a decline, which PagBank answers 201 with the charge DECLINED.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

type Json = Record<string, any>;

/** The integration's own PagBank client: base URL and token are its only settings. */
function pagbankClient(baseUrl: string, token: string) {
  async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'x-idempotency-key': randomUUID() });
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  }
  return {
    createOrder: (order: unknown) => call('POST', '/orders', order),
    getOrder: (id: string) => call('GET', `/orders/${id}`),
    getCharge: (id: string) => call('GET', `/charges/${id}`),
    capture: (chargeId: string, value: number) => call('POST', `/charges/${chargeId}/capture`, { amount: { value } }),
    // pagbank.md section 3: send the amount even for a full refund (an empty body is 40002 at PagBank).
    cancel: (chargeId: string, value: number) => call('POST', `/charges/${chargeId}/cancel`, { amount: { value } }),
  };
}

/** How an integration reads an order (pagbank.md section 10: a 201 is not an approval; read the charge). */
function outcome(order: Json) {
  const charge = order.charges?.[0];
  return { orderId: order.id, chargeId: charge?.id, status: charge?.status, value: charge?.amount?.value, code: charge?.payment_response?.code };
}

const routegate = async (primary: string, gateways?: Parameters<E2E['account']>[1]) =>
  pagbankClient(e2e.sandbox.url, await e2e.account({ primaryGateway: primary, gatewayFallbacks: [], compatibilityMode: 'pagbank' }, gateways));

function cardOrder(number: string, value = 1999, capture = true): Json {
  const order = structuredClone(pagbankPayloads.card) as Json;
  Object.assign(order.charges[0].amount, { value });
  Object.assign(order.charges[0].payment_method, { capture });
  order.charges[0].payment_method.card.number = number;
  return order;
}

test('the same client code reads a card order from PagBank itself and from RouteGate (charged on PagBank and on Pagar.me)', async () => {
  const direct = pagbankClient(e2e.sandbox.emulators.gatewayUrl('pagbank'), SANDBOX_CREDENTIALS.pagbank.token);
  const real = await direct.createOrder(cardOrder('4242424242424242'));
  assert.equal(real.status, 201);
  for (const primary of ['pagbank', 'pagarme']) {
    const client = await routegate(primary);
    const res = await client.createOrder(cardOrder('4242424242424242'));
    assert.equal(res.status, real.status, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-rg-gateway'), primary);
    const [got, want] = [outcome(res.body), outcome(real.body)];
    assert.deepEqual([got.status, got.value, got.code], [want.status, want.value, want.code], `${primary}: PAID, 1999 cents, 20000`);
    assert.equal(typeof got.orderId, 'string');
    const card = res.body.charges[0].payment_method.card;
    assert.deepEqual([card.last_digits, card.exp_month, card.exp_year], ['4242', '12', '2030']);

    const order = await client.getOrder(got.orderId);
    assert.equal(order.status, 200);
    assert.deepEqual(outcome(order.body), got);
    const charge = await client.getCharge(got.chargeId);
    assert.equal(charge.status, 200);
    assert.deepEqual([charge.body.id, charge.body.status, charge.body.amount.value], [got.chargeId, 'PAID', 1999]);

    const part = await client.cancel(got.chargeId, 999);
    assert.equal(part.status, 201, JSON.stringify(part.body));
    assert.deepEqual([part.body.status, part.body.amount.summary.refunded], ['PAID', 999]);
    const rest = await client.cancel(got.chargeId, 1000);
    assert.deepEqual([rest.status, rest.body.status, rest.body.amount.summary.refunded], [201, 'CANCELED', 1999]);
  }
});

test('a pre-authorized card order on Mercado Pago: capture, then cancel refunds it', async () => {
  const client = await routegate('mercadopago');
  const created = await client.createOrder(cardOrder('4242424242424242', 5000, false));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { chargeId, status } = outcome(created.body);
  assert.equal(status, 'AUTHORIZED');
  const captured = await client.capture(chargeId, 5000);
  assert.deepEqual([captured.status, captured.body.status, captured.body.amount.summary.paid], [201, 'PAID', 5000]);
  const refunded = await client.cancel(chargeId, 5000);
  assert.deepEqual([refunded.status, refunded.body.status, refunded.body.amount.summary.refunded], [201, 'CANCELED', 5000]);
});

test('an encrypted card (PagSeguro.encryptCard) is charged on PagBank even with another primary', async () => {
  const order = cardOrder('4242424242424242');
  order.charges[0].payment_method.card = { encrypted: 'pb-encrypted-card-blob', store: false };
  order.charges[0].payment_method.holder = { name: 'MARIA SOUZA', tax_id: '12345678909' };
  const res = await (await routegate('mercadopago')).createOrder(order);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.headers.get('x-rg-gateway'), 'pagbank');
  assert.match(res.body.id, /^ORDE_/);
  assert.equal(outcome(res.body).status, 'PAID');
});

test('a pix order (qr_codes[]) charged on Pagar.me: the QR code text and image, and the order read back', async () => {
  const client = await routegate('pagarme');
  const res = await client.createOrder(pagbankPayloads.pix);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const qr = res.body.qr_codes[0];
  assert.equal(qr.amount.value, 1999);
  assert.match(qr.text, /^000201/);
  assert.ok(qr.links.find((l: Json) => l.rel === 'QRCODE.PNG').href);
  assert.equal(res.body.charges, undefined, 'no charge until the payer pays');
  const read = await client.getOrder(res.body.id);
  assert.deepEqual([read.status, read.body.id, read.body.qr_codes[0].text], [200, res.body.id, qr.text]);
});

test('a boleto order on PagBank: WAITING, the typeable line and the PDF link the client downloads', async () => {
  const res = await (await routegate('pagbank')).createOrder(pagbankPayloads.boleto);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const charge = res.body.charges[0];
  assert.equal(charge.status, 'WAITING');
  assert.match(charge.payment_method.boleto.barcode, /^\d{47}$/);
  const pdf = await fetch(charge.links.find((l: Json) => l.media === 'application/pdf').href);
  assert.equal(pdf.status, 200);
  assert.match(String(pdf.headers.get('content-type')), /application\/pdf/);
});

test('a declined card is 201 with the charge DECLINED and its refusal code, on PagBank, Stripe and Mercado Pago', async () => {
  // PagBank's sandbox decline card is its own risk refusal (10000); a plain issuer decline elsewhere (card_declined)
  // carries PagBank's generic refusal too; insufficient funds keeps its own code (20051) whichever gateway said it.
  for (const [primary, number, code] of [['pagbank', '4929291898380766', '10000'], ['stripe', '4000000000000002', '10000'], ['mercadopago', '4000000000009995', '20051']]) {
    const res = await (await routegate(primary)).createOrder(cardOrder(number));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-rg-error-code'), 'GATEWAY_ERROR');
    assert.equal(res.headers.get('x-rg-gateway'), primary);
    const got = outcome(res.body);
    assert.deepEqual([got.status, got.code, got.value], ['DECLINED', code, 1999], primary);
  }
});
