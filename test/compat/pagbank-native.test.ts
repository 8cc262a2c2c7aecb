import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { pagbankPayloads } from './cases/pagbank';

// Issue 11: compatibility mode's native API around PagBank: native errors (declines as 201 orders, validation
// errors naming the native field, outages, authentication), the follow-ups on /charges/{id} (capture, and cancel
// that voids or refunds by the charge's state) with every id RouteGate answered, whichever gateway holds the charge,
// x-idempotency-key, list, passthrough to PagBank only, an encrypted card kept on PagBank, and the reais profile.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

type Json = Record<string, any>;
const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra });
const account = (primary: GatewayId, settings: Record<string, unknown> = {}, gateways?: GatewayId[]) =>
  e2e.account({ primaryGateway: primary, gatewayFallbacks: [], compatibilityMode: 'pagbank', compatPassthrough: true, ...settings }, gateways);
const post = (key: string, path: string, body: unknown, extra: Record<string, string> = {}) =>
  e2e.call('POST', path, { rawBody: JSON.stringify(body), headers: bearer(key, extra) });
const get = (key: string, path: string) => e2e.call('GET', path, { headers: { authorization: `Bearer ${key}` } });

/** A card order of `value` cents with raw card `number` (capture false = a pre-authorization). */
function cardOrder(number: string, value = 1999, capture = true): Json {
  const order = structuredClone(pagbankPayloads.card) as Json;
  order.charges[0].amount.value = value;
  order.charges[0].payment_method.capture = capture;
  order.charges[0].payment_method.card.number = number;
  return order;
}

test('a decline on PagBank answers 201 with the order, charge DECLINED and PagBank\'s refusal; X-RG-Error-Code says GATEWAY_ERROR', async () => {
  const key = await account('pagbank');
  const res = await post(key, '/orders', cardOrder('4929291898380766'));
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
  assert.equal(res.headers['x-rg-gateway'], 'pagbank');
  assert.match(String(res.headers['x-rg-charge-id']), /^chg_/);
  assert.match(res.body.id, /^ORDE_/);
  const charge = res.body.charges[0];
  assert.match(charge.id, /^CHAR_/);
  assert.equal(charge.status, 'DECLINED');
  assert.deepEqual([charge.payment_response.code, charge.payment_response.message], ['10000', 'NAO AUTORIZADO PELO PAGSEGURO']);
  assert.equal(charge.amount.value, 1999);
  assert.equal(res.body.error_messages, undefined, 'PagBank never answers a decline as an error');
});

test('a decline on another gateway is the same 201 order, named by RouteGate\'s id, with the refusal code PagBank uses', async () => {
  const key = await account('pagarme');
  const res = await post(key, '/orders', cardOrder('4000000000009995'));
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
  assert.equal(res.headers['x-rg-gateway'], 'pagarme');
  assert.equal(res.body.id, res.headers['x-rg-charge-id']);
  const charge = res.body.charges[0];
  assert.equal(charge.status, 'DECLINED');
  assert.deepEqual([charge.payment_response.code, charge.payment_response.message], ['20051', 'SALDO/LIMITE INSUFICIENTE']);
  assert.equal(charge.amount.summary.paid, 0);
});

test('validation errors name the native field the client sent, on /orders and on POST /api/v1/charges', async () => {
  const key = await account('pagbank');
  await e2e.control.clearRequests();
  const noType = cardOrder('4242424242424242');
  delete noType.charges[0].payment_method.type;
  const missing = await post(key, '/orders', noType);
  assert.equal(missing.status, 400, missing.text);
  assert.equal(missing.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  const item = missing.body.error_messages.find((e: Json) => e.parameter_name === 'charges[0].payment_method.type');
  assert.ok(item, missing.text);
  assert.equal(item.code, '40001');
  assert.doesNotMatch(missing.text, /paymentMethod/);
  // 19.99 sent as reais to the cents API is refused, never charged as a guess.
  const reais = await e2e.call('POST', '/api/v1/charges', { key, body: cardOrder('4242424242424242', 19.99) });
  assert.equal(reais.status, 400, reais.text);
  assert.equal(reais.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.deepEqual(reais.body.error_messages.map((e: Json) => [e.code, e.parameter_name]), [['40002', 'charges[0].amount.value']]);
  const badCard = await post(key, '/orders', cardOrder('42'));
  assert.equal(badCard.status, 400);
  assert.ok(badCard.body.error_messages.some((e: Json) => e.parameter_name === 'charges[0].payment_method.card.number'), badCard.text);
  assert.deepEqual((await e2e.control.requests('pagbank')).filter((r) => r.method === 'POST'), [], 'nothing reached PagBank');
});

test('an outage answers PagBank\'s error shape with the outage status and the RouteGate code', async () => {
  const key = await account('pagbank');
  const url = await e2e.closedPortUrl();
  const down = await e2e.withGatewayUrl('pagbank', url, () => post(key, '/orders', cardOrder('4242424242424242')));
  assert.equal(down.status, 502, down.text);
  assert.equal(down.headers['x-rg-error-code'], 'GATEWAY_UNREACHABLE');
  assert.equal(down.body.error_messages[0].code, 'BAD_GATEWAY');
  await e2e.control.fault('pagbank', 'http500', { count: 5 });
  try {
    const fault = await post(key, '/orders', cardOrder('4242424242424242'));
    assert.ok(fault.status >= 500, fault.text);
    assert.ok(fault.headers['x-rg-error-code']);
    assert.equal(typeof fault.body.error_messages[0].code, 'string');
    assert.equal(typeof fault.body.error_messages[0].description, 'string');
  } finally {
    await e2e.control.clearFaults();
  }
});

test('authentication: the key as PagBank\'s Bearer token; missing, wrong or another mode answer PagBank\'s shape', async () => {
  const key = await account('pagbank');
  assert.equal((await get(key, '/orders?limit=1')).status, 200);
  const raw = await e2e.call('GET', '/orders?limit=1', { headers: { authorization: key } });
  assert.equal(raw.status, 200, 'the raw token without Bearer, as some PagBank clients send it');
  const missing = await e2e.call('POST', '/orders', { rawBody: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers['x-rg-error-code'], 'MISSING_API_KEY');
  assert.equal(missing.body.error_messages[0].code, 'UNAUTHORIZED');
  const wrong = await e2e.call('GET', '/compat/pagbank/orders/ORDE_X', { headers: { authorization: 'Bearer tk_wrong_key' } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers['x-rg-error-code'], 'INVALID_API_KEY');
  assert.equal(wrong.body.error_messages[0].code, 'UNAUTHORIZED');
  const stripeMode = await e2e.account({ primaryGateway: 'pagbank', compatibilityMode: 'stripe' });
  const other = await get(stripeMode, '/compat/pagbank/orders');
  assert.equal(other.status, 404);
  assert.equal(other.body.error_messages[0].code, 'NOT_FOUND');
  assert.match(other.body.error_messages[0].description, /Compatibility mode for pagbank is not enabled on this account \(it is stripe\)/);
  const off = await e2e.account({ primaryGateway: 'pagbank' });
  const root = await get(off, '/orders');
  assert.equal(root.status, 404);
  assert.equal(root.body.success, false, 'no compat gateway: RouteGate\'s envelope');
});

test('on PagBank: pre-authorize, read the charge, capture part, refund part then the rest through /charges/{id}/cancel', async () => {
  const key = await account('pagbank');
  const created = await post(key, '/compat/pagbank/orders/', cardOrder('4242424242424242', 5000, false));
  assert.equal(created.status, 201, created.text);
  const chargeId = created.body.charges[0].id;
  assert.match(chargeId, /^CHAR_/);
  assert.equal(created.body.charges[0].status, 'AUTHORIZED');
  const read = await get(key, `/charges/${chargeId}`);
  assert.equal(read.status, 200, read.text);
  assert.deepEqual([read.body.id, read.body.status, read.body.amount.value], [chargeId, 'AUTHORIZED', 5000]);
  const captured = await post(key, `/charges/${chargeId}/capture`, { amount: { value: 4000 } });
  assert.equal(captured.status, 201, captured.text);
  assert.deepEqual([captured.body.id, captured.body.status, captured.body.amount.summary.paid], [chargeId, 'PAID', 4000]);
  const part = await post(key, `/charges/${chargeId}/cancel/`, { amount: { value: 1000 } }, { 'x-idempotency-key': 'pb-refund-1' });
  assert.equal(part.status, 201, part.text);
  assert.deepEqual([part.body.id, part.body.status, part.body.amount.summary.refunded], [chargeId, 'PAID', 1000]);
  const replay = await post(key, `/charges/${chargeId}/cancel/`, { amount: { value: 1000 } }, { 'x-idempotency-key': 'pb-refund-1' });
  assert.equal(replay.headers['idempotent-replayed'], 'true', 'x-idempotency-key is honoured: one refund');
  assert.deepEqual(replay.body, part.body);
  const rest = await post(key, `/charges/${chargeId}/cancel`, { amount: { value: 3000 } });
  assert.equal(rest.status, 201, rest.text);
  assert.deepEqual([rest.body.status, rest.body.amount.summary.refunded], ['CANCELED', 4000]);
  const ledger = (await e2e.control.ledger('pagbank')).find((l) => l.id === chargeId)!;
  assert.deepEqual([ledger.paidAmount, ledger.refundedAmount], [4000, 4000]);
  const order = await get(key, `/orders/${created.body.id}`);
  assert.deepEqual([order.body.id, order.body.charges[0].status], [created.body.id, 'CANCELED']);
  const tooMuch = await post(key, `/charges/${chargeId}/capture`, { amount: { value: 10.5 } });
  assert.equal(tooMuch.status, 400);
  assert.equal(tooMuch.body.error_messages[0].parameter_name, 'amount.value');
});

test('on another gateway the same calls work with RouteGate\'s id: capture, partial refund, void of a pre-authorization', async () => {
  const key = await account('pagarme');
  const created = await post(key, '/orders', cardOrder('4242424242424242', 5000, false));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers['x-rg-gateway'], 'pagarme');
  const id = created.body.charges[0].id;
  assert.equal(id, created.body.id);
  assert.equal(created.body.charges[0].status, 'AUTHORIZED');
  const captured = await post(key, `/charges/${id}/capture`, { amount: { value: 5000 } });
  assert.deepEqual([captured.status, captured.body.id, captured.body.status, captured.body.amount.summary.paid], [201, id, 'PAID', 5000]);
  const refund = await post(key, `/compat/pagbank/charges/${id}/cancel`, { amount: { value: 1999 } });
  assert.equal(refund.status, 201, refund.text);
  assert.deepEqual([refund.body.status, refund.body.amount.summary.refunded], ['PAID', 1999]);
  const ledger = (await e2e.control.ledger('pagarme')).find((l) => l.refundedAmount === 1999 && l.amount === 5000);
  assert.ok(ledger, 'Pagar.me refunded 1999 cents');
  const held = await post(key, '/orders', cardOrder('4242424242424242', 3000, false));
  // Part of an uncaptured pre-authorization: refused, never voided whole (the whole hold would be released).
  const partialVoid = await post(key, `/charges/${held.body.id}/cancel`, { amount: { value: 1000 } });
  assert.ok(partialVoid.status >= 400 && partialVoid.status < 500, partialVoid.text);
  assert.equal((await get(key, `/charges/${held.body.id}`)).body.status, 'AUTHORIZED', 'the hold is untouched');
  const voided = await post(key, `/charges/${held.body.id}/cancel`, { amount: { value: 3000 } });
  assert.equal(voided.status, 201, voided.text);
  assert.deepEqual([voided.body.status, voided.body.amount.summary.refunded], ['CANCELED', 0], 'a void, not a refund');
  const unknown = await get(key, '/charges/CHAR_NOTHING');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error_messages[0].code, 'NOT_FOUND');
});

test('a waiting boleto is cancelled through /charges/{id}/cancel on Mercado Pago', async () => {
  const key = await account('mercadopago');
  const created = await post(key, '/orders', pagbankPayloads.boleto);
  assert.equal(created.status, 201, created.text);
  const cancelled = await post(key, `/charges/${created.body.charges[0].id}/cancel`, { amount: { value: 1999 } });
  assert.equal(cancelled.status, 201, cancelled.text);
  assert.equal(cancelled.body.status, 'CANCELED');
  assert.equal(cancelled.body.payment_method.type, 'BOLETO');
});

test('a pix on PagBank: paid through a passed-through call, then refunded by the PIX charge id PagBank added', async () => {
  const key = await account('pagbank');
  const created = await post(key, '/orders', pagbankPayloads.pix);
  assert.equal(created.status, 201, created.text);
  const orderId = created.body.id;
  const noCharge = await get(key, `/charges/${orderId}`);
  assert.equal(noCharge.status, 404, 'a pix nobody paid has no charge, as at PagBank');
  await e2e.control.clearRequests();
  // POST /orders/{id}/pay (the sandbox's PAY link) is not translated: it goes to PagBank with the stored token.
  const paid = await post(key, `/orders/${orderId}/pay`, {});
  assert.equal(paid.status, 201, paid.text);
  assert.equal(paid.headers['x-rg-passthrough'], 'true');
  const sent = await e2e.control.requests('pagbank');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.authorization, 'Bearer sandbox_routegate_token_0005', 'the account\'s stored PagBank token');
  assert.ok(!JSON.stringify(sent[0].headers).includes(key), 'the RouteGate key never leaves RouteGate');
  for (const g of GATEWAY_IDS.filter((id) => id !== 'pagbank')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
  const read = await get(key, `/orders/${orderId}`);
  const charge = read.body.charges[0];
  assert.deepEqual([charge.status, charge.payment_method.type, charge.amount.value], ['PAID', 'PIX', 1999]);
  const refund = await post(key, `/charges/${charge.id}/cancel`, { amount: { value: 1999 } });
  assert.equal(refund.status, 201, refund.text);
  assert.deepEqual([refund.body.id, refund.body.status, refund.body.amount.summary.refunded], [charge.id, 'CANCELED', 1999]);
});

test('an encrypted card goes only to PagBank: charged there whatever the primary, else a native error saying whose it is', async () => {
  const order = cardOrder('4242424242424242');
  order.charges[0].payment_method.card = { encrypted: 'pb-encrypted-card-blob', store: false };
  order.charges[0].payment_method.holder = { name: 'MARIA SOUZA', tax_id: '12345678909' };
  const withPagbank = await account('pagarme');
  const charged = await post(withPagbank, '/orders', order);
  assert.equal(charged.status, 201, charged.text);
  assert.equal(charged.headers['x-rg-gateway'], 'pagbank');
  assert.equal(charged.body.charges[0].status, 'PAID');
  const without = await account('pagarme', {}, ['pagarme']);
  const refused = await post(without, '/orders', order);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.headers['x-rg-error-code'], 'GATEWAY_UNSUPPORTED_OPERATION');
  assert.equal(refused.body.error_messages[0].code, '40002');
  assert.match(refused.body.error_messages[0].description, /card token belongs to pagbank/);
});

test('x-idempotency-key on a create replays the native answer and charges once; list pages orders newest first', async () => {
  const key = await account('stripe');
  const body = cardOrder('4242424242424242', 2500);
  const first = await post(key, '/orders', body, { 'x-idempotency-key': 'pb-create-1' });
  const again = await post(key, '/orders', body, { 'x-idempotency-key': 'pb-create-1' });
  assert.equal(first.status, 201, first.text);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body.id, first.body.id);
  const stripeCreates = (await e2e.control.ledger('stripe')).filter((l) => l.amount === 2500);
  assert.equal(stripeCreates.length, 1, 'one charge at Stripe');
  const second = await post(key, '/orders', cardOrder('4242424242424242', 2600));
  const page = await get(key, '/orders?limit=1');
  assert.equal(page.status, 200, page.text);
  assert.deepEqual([page.body.orders.length, page.body.orders[0].id, page.body.has_more], [1, second.body.id, true]);
  const next = await get(key, `/orders?limit=5&after=${second.body.id}`);
  assert.deepEqual(next.body.orders.map((o: Json) => o.id), [first.body.id]);
  assert.equal(next.body.has_more, false);
});

test('ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais: native bodies in reais both ways (19.99), ledgers in cents', async () => {
  const reais = await startE2E({ ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais' });
  try {
    for (const target of ['pagbank', 'pagarme'] as const) {
      const key = await reais.account({ primaryGateway: target, gatewayFallbacks: [], compatibilityMode: 'pagbank' });
      const order = cardOrder('4242424242424242', 19.99, false);
      const created = await reais.call('POST', '/orders', { rawBody: JSON.stringify(order), headers: bearer(key) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers['x-rg-gateway'], target);
      assert.equal(created.body.charges[0].amount.value, 19.99, `${target}: reais out`);
      const chargeId = created.body.charges[0].id;
      const captured = await reais.call('POST', `/charges/${chargeId}/capture`, { rawBody: JSON.stringify({ amount: { value: 10 } }), headers: bearer(key) });
      assert.equal(captured.status, 201, captured.text);
      assert.equal(captured.body.amount.summary.paid, 10);
      const stored = (await reais.call('GET', `/api/v1/charges/${created.headers['x-rg-charge-id']}`, { key, headers: { 'x-payload-format': 'native' } })).body.data;
      assert.deepEqual([stored.amount, stored.paidAmount], [1999, 1000], `${target}: cents inside RouteGate`);
      const ledger = (await reais.control.ledger(target)).find((l) => l.id === stored.externalId)!;
      assert.equal(ledger.amount, 1999);
    }
    const wire = (await reais.control.requests('pagbank')).find((r) => r.method === 'POST' && r.path === '/orders');
    assert.equal((wire?.body as Json).charges[0].amount.value, 19.99, 'PagBank was asked for reais in this profile');
  } finally {
    await reais.close();
  }
});
