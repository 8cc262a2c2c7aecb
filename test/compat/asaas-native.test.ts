import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { ASAAS_CUSTOMER, DUE, asaasCard, asaasHeaders } from './cases/asaas';

// Issue 11: compatibility mode's native API around Asaas: native errors (decline, validation naming the native
// field, outage, auth) in Asaas' {errors: [{code, description}]} shape with X-RG-Error-Code, the follow-ups on
// Asaas' own paths whichever gateway holds the payment (capture, refund in reais, DELETE, pixQrCode,
// identificationField), native customers and lists, passthrough with the stored access_token, and a create
// first answered "being confirmed" (504) answered natively when retried under the same Idempotency-Key.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const account = (primary: GatewayId, fallbacks: GatewayId[] = []) =>
  e2e.account({ primaryGateway: primary, gatewayFallbacks: fallbacks, compatibilityMode: 'asaas', compatPassthrough: true });
const post = (key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  e2e.call('POST', path, { rawBody: JSON.stringify(body), headers: { ...asaasHeaders(key), ...headers } });
const get = (key: string, path: string) => e2e.call('GET', path, { headers: asaasHeaders(key) });

async function customerOf(key: string): Promise<string> {
  const res = await post(key, '/v3/customers', ASAAS_CUSTOMER);
  assert.equal(res.status, 200, res.text);
  return res.body.id;
}

test('a refused card is Asaas\' 400 invalid_creditCard (no payment in the body), on Asaas and on another gateway', async () => {
  for (const [target, number, words] of [['asaas', '4916561358240741', /Transação não autorizada/], ['pagarme', '4000000000009995', /saldo insuficiente/]] as const) {
    const key = await account(target);
    const customer = await customerOf(key);
    const res = await post(key, '/v3/payments', { ...asaasCard(number), customer });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
    assert.equal(res.headers['x-rg-gateway'], target);
    assert.match(String(res.headers['x-rg-charge-id']), /^chg_/);
    assert.deepEqual(Object.keys(res.body), ['errors'], 'Asaas creates nothing on a decline: only the error list');
    assert.equal(res.body.errors.length, 1);
    assert.equal(res.body.errors[0].code, 'invalid_creditCard');
    assert.match(res.body.errors[0].description, words);
  }
});

test('validation errors name the Asaas field the client sent, on /v3/payments and on POST /api/v1/charges', async () => {
  const key = await account('asaas');
  const customer = await customerOf(key);
  const noType = await post(key, '/v3/payments', { customer, value: 19.99, dueDate: DUE });
  assert.equal(noType.status, 400, noType.text);
  assert.equal(noType.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.equal(noType.body.errors[0].code, 'invalid_billingType');
  assert.match(noType.body.errors[0].description, /^billingType /);
  assert.doesNotMatch(noType.text, /paymentMethod/, 'never the normalized name');
  const badValue = await e2e.call('POST', '/api/v1/charges', { key, body: { customer, billingType: 'PIX', value: 'dezenove', dueDate: DUE } });
  assert.equal(badValue.status, 400, badValue.text);
  assert.equal(badValue.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.deepEqual(badValue.body.errors.map((e: { code: string }) => e.code), ['invalid_value']);
  assert.match(badValue.body.errors[0].description, /^value /);
  const badCard = await post(key, '/v3/payments', { ...asaasCard('42'), customer });
  assert.equal(badCard.status, 400, badCard.text);
  assert.equal(badCard.body.errors[0].code, 'invalid_creditCard');
  assert.match(badCard.body.errors[0].description, /^creditCard\.number /);
  const noCpf = await post(key, '/v3/customers', { name: 'Maria Souza', email: 'maria@example.com' });
  assert.equal(noCpf.status, 400, noCpf.text);
  assert.equal(noCpf.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  const refundReaisOnly = await post(key, '/v3/payments/pay_x/refund', { value: 'abc' });
  assert.equal(refundReaisOnly.status, 404, 'an unknown payment first');
  assert.equal(refundReaisOnly.body.errors[0].code, 'not_found');
});

test('an outage: the only gateway unreachable or failing answers in Asaas\' shape with the outage status', async () => {
  const key = await account('asaas');
  const customer = await customerOf(key);
  const url = await e2e.closedPortUrl();
  const res = await e2e.withGatewayUrl('asaas', url, () => post(key, '/v3/payments', { customer, billingType: 'PIX', value: 19.99, dueDate: DUE }));
  assert.equal(res.status, 502, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_UNREACHABLE');
  assert.equal(res.body.errors[0].code, 'bad_gateway');
  await e2e.control.fault('asaas', 'http500', { count: 5 });
  try {
    const fault = await post(key, '/v3/payments', { customer, billingType: 'PIX', value: 19.99, dueDate: DUE });
    assert.ok(fault.status >= 500, fault.text);
    assert.ok(fault.headers['x-rg-error-code']);
    assert.equal(typeof fault.body.errors[0].code, 'string');
    assert.equal(typeof fault.body.errors[0].description, 'string');
  } finally {
    await e2e.control.clearFaults();
  }
});

test('auth: the key in access_token (as Asaas clients send theirs); missing or wrong is Asaas\' 401', async () => {
  const key = await account('asaas');
  const ok = await get(key, '/v3/payments?limit=1');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.object, 'list');
  const missing = await e2e.call('GET', '/v3/payments', { headers: { 'user-agent': 'loja-teste' } });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers['x-rg-error-code'], 'MISSING_API_KEY');
  assert.equal(missing.body.errors[0].code, 'access_token_not_found');
  const wrong = await e2e.call('GET', '/compat/asaas/v3/customers', { headers: { access_token: '$aact_not_routegate' } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers['x-rg-error-code'], 'INVALID_API_KEY');
  assert.equal(wrong.body.errors[0].code, 'invalid_access_token');
  const otherMode = await e2e.account({ primaryGateway: 'asaas', compatibilityMode: 'stripe' });
  const notEnabled = await get(otherMode, '/compat/asaas/v3/payments');
  assert.equal(notEnabled.status, 404);
  assert.equal(notEnabled.body.errors[0].code, 'not_found');
  assert.match(notEnabled.body.errors[0].description, /Compatibility mode for asaas is not enabled on this account \(it is stripe\)/);
});

test('a pre-authorization on Asaas: captureAuthorizedPayment, a partial refund in reais, the rest, by the pay_ id', async () => {
  const key = await account('asaas');
  const customer = await customerOf(key);
  const created = await post(key, '/compat/asaas/v3/payments/', { ...asaasCard(), customer, value: 50, authorizeOnly: true });
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.status, 'AUTHORIZED');
  const id = created.body.id;
  assert.match(id, /^pay_/);
  const captured = await post(key, `/v3/payments/${id}/captureAuthorizedPayment`, {});
  assert.equal(captured.status, 200, captured.text);
  assert.deepEqual([captured.body.id, captured.body.status, captured.body.value], [id, 'CONFIRMED', 50]);
  const partial = await post(key, `/v3/payments/${id}/refund`, { value: 12.34, description: 'troca' });
  assert.equal(partial.status, 200, partial.text);
  assert.deepEqual([partial.body.object, partial.body.id, partial.body.status], ['payment', id, 'CONFIRMED']);
  assert.equal(partial.body.refunds[0].value, 12.34);
  const ledger = (await e2e.control.ledger('asaas')).find((l) => l.id === id)!;
  assert.equal(ledger.refundedAmount, 1234, 'Asaas was asked for 12.34 reais: 1234 cents');
  const rest = await post(key, `/v3/payments/${id}/refund`, {});
  assert.equal(rest.status, 200, rest.text);
  assert.equal(rest.body.status, 'REFUNDED');
  assert.equal(rest.body.refunds[0].value, 50, 'everything refunded');
  const cents = await post(key, `/v3/payments/${id}/refund`, { value: 0.001 });
  assert.equal(cents.status, 400);
  assert.equal(cents.body.errors[0].code, 'invalid_value');
});

test('follow-ups on a payment another gateway holds: RouteGate\'s id works on every Asaas path', async () => {
  const key = await account('pagarme');
  const customer = await customerOf(key);
  const card = await post(key, '/v3/payments', { ...asaasCard(), customer, value: 30, authorizeOnly: true });
  assert.equal(card.status, 200, card.text);
  assert.equal(card.headers['x-rg-gateway'], 'pagarme');
  assert.deepEqual([card.body.status, card.body.id], ['AUTHORIZED', card.headers['x-rg-charge-id']]);
  const captured = await post(key, `/v3/payments/${card.body.id}/captureAuthorizedPayment`, {});
  assert.equal(captured.body.status, 'CONFIRMED', captured.text);
  const refunded = await post(key, `/v3/payments/${card.body.id}/refund`, { value: 10 });
  assert.equal(refunded.status, 200, refunded.text);
  assert.deepEqual([refunded.body.status, refunded.body.refunds[0].value, refunded.body.value], ['CONFIRMED', 10, 30]);
  const pagarme = (await e2e.control.ledger('pagarme')).find((l) => l.reference === card.body.id || l.amount === 3000);
  assert.equal(pagarme?.refundedAmount, 1000, 'Pagar.me refunded 1000 cents');

  const pix = await post(key, '/v3/payments', { customer, billingType: 'PIX', value: 19.99, dueDate: DUE });
  assert.equal(pix.status, 200, pix.text);
  const removed = await e2e.call('DELETE', `/v3/payments/${pix.body.id}`, { headers: asaasHeaders(key) });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.body, { deleted: true, id: pix.body.id });
  const read = await get(key, `/v3/payments/${pix.body.id}`);
  assert.deepEqual([read.body.deleted, read.body.status], [true, 'PENDING'], 'Asaas keeps a removed payment readable, deleted');
  const status = await get(key, `/v3/payments/${card.body.id}/status`);
  assert.deepEqual(status.body, { status: 'CONFIRMED' });
  const unknown = await get(key, '/v3/payments/pay_000000000000');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.headers['x-rg-error-code'], 'NOT_FOUND');
});

test('pixQrCode and identificationField answer Asaas\' shapes on three gateways each (a PNG even where only a URL was given)', async () => {
  for (const target of ['asaas', 'stripe', 'pagarme', 'mercadopago'] as const) {
    const key = await account(target);
    const customer = await customerOf(key);
    const pix = await post(key, '/v3/payments', { customer, billingType: 'PIX', value: 19.99, dueDate: DUE });
    assert.equal(pix.status, 200, `${target}: ${pix.text}`);
    const qr = await get(key, `/v3/payments/${pix.body.id}/pixQrCode`);
    assert.equal(qr.status, 200, `${target}: ${qr.text}`);
    assert.match(qr.body.payload, /^000201/, `${target}: the EMV copy-and-paste text`);
    assert.equal(Buffer.from(qr.body.encodedImage, 'base64').subarray(1, 4).toString(), 'PNG', `${target}: encodedImage is a PNG in base64`);
    assert.match(qr.body.expirationDate, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const notBoleto = await get(key, `/v3/payments/${pix.body.id}/identificationField`);
    assert.equal(notBoleto.status, 400, notBoleto.text);
    assert.equal(notBoleto.headers['x-rg-error-code'], 'GATEWAY_UNSUPPORTED_OPERATION');
  }
  for (const target of ['asaas', 'pagarme', 'pagbank'] as const) {
    const key = await account(target);
    const customer = await customerOf(key);
    const boleto = await post(key, '/v3/payments', { customer, billingType: 'BOLETO', value: 19.99, dueDate: DUE });
    assert.equal(boleto.status, 200, `${target}: ${boleto.text}`);
    const line = await get(key, `/v3/payments/${boleto.body.id}/identificationField`);
    assert.equal(line.status, 200, `${target}: ${line.text}`);
    assert.match(line.body.identificationField, /^\d{47}$/, `${target}: the typeable line`);
    assert.match(line.body.barCode, /^\d{44}$/, `${target}: the barcode number`);
    assert.ok('nossoNumero' in line.body);
  }
});

test('customers: created natively at the primary, retrieved and listed by offset; payments listed by offset', async () => {
  const key = await account('stripe');
  const first = await post(key, '/v3/customers', ASAAS_CUSTOMER);
  assert.equal(first.status, 200, first.text);
  assert.match(first.body.id, /^cus_rg_/, 'held by Stripe: RouteGate\'s id');
  assert.deepEqual([first.body.object, first.body.cpfCnpj, first.body.mobilePhone, first.body.province, first.body.postalCode, first.body.state],
    ['customer', '12345678909', '11987654321', 'Bela Vista', '01310100', 'SP']);
  const second = await post(key, '/v3/customers', { ...ASAAS_CUSTOMER, name: 'Joao Lima', cpfCnpj: '529.982.247-25' });
  const read = await get(key, `/v3/customers/${first.body.id}`);
  assert.deepEqual([read.status, read.body.id, read.body.name], [200, first.body.id, 'Maria Souza']);
  const page1 = await get(key, '/v3/customers?limit=1');
  assert.deepEqual([page1.body.object, page1.body.hasMore, page1.body.limit, page1.body.offset], ['list', true, 1, 0]);
  assert.deepEqual(page1.body.data.map((c: { id: string }) => c.id), [second.body.id], 'newest first');
  const page2 = await get(key, '/v3/customers?limit=1&offset=1');
  assert.deepEqual([page2.body.hasMore, page2.body.totalCount, page2.body.data[0].id], [false, 2, first.body.id]);
  const missing = await get(key, '/v3/customers/cus_000000000000');
  assert.equal(missing.status, 404);

  const asaasKey = await account('asaas');
  const own = await post(asaasKey, '/v3/customers', ASAAS_CUSTOMER);
  assert.match(own.body.id, /^cus_0000/, 'held by Asaas: Asaas\' own customer, as Asaas answered it');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.unshift((await post(asaasKey, '/v3/payments', { customer: own.body.id, billingType: 'PIX', value: 1 + i, dueDate: DUE })).body.id);
  const list = await get(asaasKey, '/v3/payments?limit=2&offset=1');
  assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), ids.slice(1, 3));
  assert.deepEqual(list.body.data.map((p: { value: number }) => p.value), [2, 1], 'values in reais');
  assert.equal(list.body.hasMore, false);
});

test('an untranslated /v3 path is passed through to Asaas only, with the stored access_token in place of RouteGate\'s', async () => {
  const key = await account('asaas');
  const customer = await customerOf(key);
  const pix = await post(key, '/v3/payments', { customer, billingType: 'PIX', value: 19.99, dueDate: DUE });
  await e2e.control.clearRequests();
  const refunds = await get(key, `/v3/payments/${pix.body.id}/refunds`);
  assert.equal(refunds.status, 200, refunds.text);
  assert.equal(refunds.headers['x-rg-passthrough'], 'true');
  assert.deepEqual([refunds.body.object, refunds.body.data], ['list', []]);
  const sent = await e2e.control.requests('asaas');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.access_token, '$aact_sandbox_routegate_0003', 'the account\'s stored Asaas key');
  assert.ok(!JSON.stringify(sent[0].headers).includes(key), 'the RouteGate key never leaves RouteGate');
  for (const g of GATEWAY_IDS.filter((id) => id !== 'asaas')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
});

test('a native create first answered "being confirmed" (504), retried with its Idempotency-Key: the payment as it is now, natively', async () => {
  // Native path, charged on Asaas: Asaas takes the payment but the answer is lost, and the lookup fails too.
  const key = await account('asaas');
  const customer = await customerOf(key);
  const body = { ...asaasCard(), customer };
  const headers = { 'idempotency-key': 'asaas-504-native' };
  await e2e.control.fault('asaas', 'lose', { method: 'POST', path: '/v3/payments' });
  await e2e.control.fault('asaas', 'http500', { count: 10, method: 'GET' });
  const first = await post(key, '/v3/payments', body, headers);
  await e2e.control.clearFaults();
  assert.equal(first.status, 504, first.text);
  assert.equal(first.headers['x-rg-error-code'], 'GATEWAY_TIMEOUT');
  assert.equal(first.body.errors[0].code, 'gateway_timeout');
  const chargeId = first.headers['x-rg-charge-id'];
  const retry = await post(key, '/v3/payments', body, headers);
  assert.equal(retry.status, 200, retry.text);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(retry.headers['x-rg-charge-id'], chargeId);
  assert.deepEqual([retry.body.object, retry.body.status, retry.body.value], ['payment', 'CONFIRMED', 19.99]);
  assert.match(retry.body.id, /^pay_/);
  assert.equal((await e2e.control.ledger('asaas')).filter((l) => l.reference === chargeId).length, 1, 'one payment at Asaas');
  const again = await post(key, '/v3/payments', body, headers);
  assert.deepEqual([again.status, again.body.id], [200, retry.body.id], 'settled: the key keeps this answer');

  // POST /api/v1/charges in compatibility mode, charged on Pagar.me: the same, in Asaas' format.
  const other = await account('pagarme');
  const otherCustomer = await customerOf(other);
  const pix = { customer: otherCustomer, billingType: 'PIX', value: 19.99, dueDate: DUE };
  await e2e.control.fault('pagarme', 'lose', { method: 'POST', path: '/core/v5/orders' });
  await e2e.control.fault('pagarme', 'http500', { count: 10 }); // the replay under the same key and the lookup fail
  const slow = await e2e.call('POST', '/api/v1/charges', { key: other, body: pix, headers: { 'idempotency-key': 'asaas-504-api' } });
  await e2e.control.clearFaults();
  assert.equal(slow.status, 504, slow.text);
  assert.equal(slow.body.errors[0].code, 'gateway_timeout', 'the first answer is native too');
  const settled = await e2e.call('POST', '/api/v1/charges', { key: other, body: pix, headers: { 'idempotency-key': 'asaas-504-api' } });
  assert.equal(settled.status, 200, settled.text);
  assert.equal(settled.headers['idempotent-replayed'], 'true');
  assert.deepEqual([settled.body.object, settled.body.id, settled.body.status, settled.body.billingType, settled.body.value],
    ['payment', slow.headers['x-rg-charge-id'], 'PENDING', 'PIX', 19.99]);
  assert.equal(settled.body.success, undefined, 'never RouteGate\'s envelope');
});
