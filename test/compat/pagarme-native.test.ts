import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CARD, CUSTOMER as NORMALIZED_CUSTOMER, startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/demo-account';

// Issue 11: compatibility mode's native API around Pagar.me over real HTTP: native errors (decline, validation naming
// the native field, outage, authentication), Basic auth with the RouteGate key, capture and the one DELETE route that
// voids or refunds, the charge and order paths with every id RouteGate answered, list paging, a card_token only ever
// sent to Pagar.me, and passthrough to Pagar.me alone with the stored secret key.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' });
const account = (settings: Record<string, unknown> = {}, gateways?: Parameters<E2E['account']>[1]) =>
  e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [], compatibilityMode: 'pagarme', compatPassthrough: true, ...settings }, gateways);

const CUSTOMER = {
  name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', type: 'individual',
  phones: { mobile_phone: { country_code: '55', area_code: '11', number: '987654321' } },
  address: { line_1: '100, Av Paulista, Bela Vista', zip_code: '01310100', city: 'Sao Paulo', state: 'SP', country: 'BR' },
};
function cardOrder(number: string, extra: Record<string, unknown> = {}, amount = 1999) {
  return {
    code: 'ord-n-1', items: [{ amount, description: 'Pedido', quantity: 1 }], customer: CUSTOMER,
    payments: [{ payment_method: 'credit_card', credit_card: { installments: 1, ...extra, card: { number, holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123' } } }],
  };
}
const post = (key: string, path: string, body: unknown) => e2e.call('POST', path, { rawBody: JSON.stringify(body), headers: basic(key) });

test('a decline answers 200 with the order failed and the transaction not_authorized, X-RG-Error-Code and the charge id', async () => {
  for (const primary of ['pagarme', 'mercadopago'] as const) {
    const key = await account({ primaryGateway: primary });
    const res = await post(key, '/core/v5/orders', cardOrder('4000000000009995'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
    assert.equal(res.headers['x-rg-gateway'], primary);
    const chargeId = String(res.headers['x-rg-charge-id']);
    assert.match(chargeId, /^chg_/);
    assert.equal(res.body.status, 'failed');
    const charge = res.body.charges[0];
    assert.deepEqual([charge.status, charge.last_transaction.status, charge.last_transaction.success], ['failed', 'not_authorized', false]);
    assert.deepEqual([charge.last_transaction.acquirer_return_code, charge.amount], ['1016', 1999]);
    // The failed order is readable by the id answered, as Pagar.me's would be.
    const read = await e2e.call('GET', `/core/v5/orders/${res.body.id}`, { headers: basic(key) });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.status, 'failed');
  }
  // On POST /api/v1/charges in compatibility mode too.
  const key = await account();
  const res = await e2e.call('POST', '/api/v1/charges', { key, body: cardOrder('4000000000009995') });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
  assert.equal(res.body.charges[0].last_transaction.status, 'not_authorized');
});

test('a validation error is Pagar.me\'s 422 {message, errors} keyed by the native field the client sent', async () => {
  const key = await account();
  const noMethod = cardOrder('4242424242424242') as Record<string, any>;
  delete noMethod.payments[0].payment_method;
  for (const [path, opts] of [['/core/v5/orders', { headers: basic(key) }], ['/api/v1/charges', { key }]] as const) {
    const res = await e2e.call('POST', path, { ...opts, rawBody: JSON.stringify(noMethod), headers: { ...('headers' in opts ? opts.headers : {}), 'content-type': 'application/json' } });
    assert.equal(res.status, 422, `${path}: ${res.text}`);
    assert.equal(res.headers['x-rg-error-code'], 'VALIDATION_ERROR');
    assert.equal(res.body.message, 'The request is invalid.');
    assert.ok(res.body.errors['order.payments[0].payment_method'], JSON.stringify(res.body));
    assert.doesNotMatch(res.text, /paymentMethod/, 'never the normalized name');
  }
  const reais = await post(key, '/core/v5/orders', cardOrder('4242424242424242', {}, 19.99 as number));
  assert.equal(reais.status, 422, 'reais sent to a cents API are refused, never charged as a guess');
  assert.ok(reais.body.errors['order.items[0].amount'], reais.text);
  const badCard = await post(key, '/core/v5/orders', cardOrder('42'));
  assert.equal(badCard.status, 422);
  assert.ok(Object.keys(badCard.body.errors).some((k) => k.startsWith('order.payments[0].credit_card.card')), badCard.text);
});

test('an outage answers Pagar.me\'s {message} with the outage status and X-RG-Error-Code', async () => {
  const key = await account();
  const url = await e2e.closedPortUrl();
  const down = await e2e.withGatewayUrl('pagarme', url, () => post(key, '/core/v5/orders', cardOrder('4242424242424242')));
  assert.equal(down.status, 502, down.text);
  assert.equal(down.headers['x-rg-error-code'], 'GATEWAY_UNREACHABLE');
  assert.equal(typeof down.body.message, 'string');
  assert.equal(down.body.errors, undefined);
  await e2e.control.fault('pagarme', 'http500', { count: 5 });
  try {
    const fault = await post(key, '/core/v5/orders', cardOrder('4242424242424242'));
    assert.ok(fault.status >= 500, `${fault.status} ${fault.text}`);
    assert.ok(fault.headers['x-rg-error-code'], 'the RouteGate code');
    assert.equal(typeof fault.body.message, 'string');
  } finally {
    await e2e.control.clearFaults();
  }
});

test('authentication: the key as Basic user (or x-api-key); missing or wrong keys are Pagar.me\'s 401 {message}', async () => {
  const key = await account();
  for (const headers of [basic(key), { 'x-api-key': key }]) {
    const res = await e2e.call('GET', '/core/v5/orders', { headers });
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body.data));
  }
  const missing = await e2e.call('GET', '/core/v5/orders');
  assert.equal(missing.status, 401);
  assert.equal(missing.headers['x-rg-error-code'], 'MISSING_API_KEY');
  assert.equal(typeof missing.body.message, 'string');
  assert.equal(missing.body.success, undefined, 'Pagar.me\'s shape, not the envelope');
  const wrong = await e2e.call('GET', '/compat/pagarme/core/v5/orders/or_x', { headers: basic('tk_wrong_key_000000') });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers['x-rg-error-code'], 'INVALID_API_KEY');
  assert.equal(typeof wrong.body.message, 'string');
  const bearer = await e2e.call('GET', '/core/v5/orders', { headers: { authorization: 'Bearer tk_wrong_key_000000' } });
  assert.equal(bearer.status, 401);
  const off = await e2e.account({ primaryGateway: 'pagarme', compatibilityMode: 'stripe' });
  const notEnabled = await e2e.call('GET', '/compat/pagarme/core/v5/orders', { headers: basic(off) });
  assert.equal(notEnabled.status, 404);
  assert.match(notEnabled.body.message, /Compatibility mode for pagarme is not enabled on this account \(it is stripe\)/);
});

test('capture, void and refunds on the native charge paths, by every id answered, on Pagar.me and elsewhere', async () => {
  for (const primary of ['pagarme', 'stripe'] as const) {
    const key = await account({ primaryGateway: primary });
    const auth = await post(key, '/compat/pagarme/core/v5/orders/', cardOrder('4242424242424242', { operation_type: 'auth_only' }, 5000));
    assert.equal(auth.status, 200, auth.text);
    assert.equal(auth.headers['x-rg-gateway'], primary);
    assert.deepEqual([auth.body.status, auth.body.charges[0].last_transaction.status], ['pending', 'authorized_pending_capture']);
    const chargeId = auth.body.charges[0].id;
    if (primary === 'pagarme') assert.match(chargeId, /^ch_/);
    else assert.equal(chargeId, auth.headers['x-rg-charge-id']);
    const captured = await post(key, `/core/v5/charges/${chargeId}/capture`, { amount: 4000, code: 'ord-n-1' });
    assert.equal(captured.status, 200, captured.text);
    assert.deepEqual([captured.body.id, captured.body.status, captured.body.paid_amount], [chargeId, 'paid', 4000]);
    assert.equal(captured.body.charges, undefined, 'a charge path answers the charge, not the order');
    const readCharge = await e2e.call('GET', `/core/v5/charges/${chargeId}/`, { headers: basic(key) });
    assert.deepEqual([readCharge.status, readCharge.body.id, readCharge.body.order?.id], [200, chargeId, auth.body.id]);
    const partial = await e2e.call('DELETE', `/core/v5/charges/${chargeId}`, { rawBody: JSON.stringify({ amount: 1000 }), headers: basic(key) });
    assert.equal(partial.status, 200, partial.text);
    assert.deepEqual([partial.body.status, partial.body.canceled_amount, partial.body.last_transaction.amount], ['paid', 1000, 1000]);
    const rest = await e2e.call('DELETE', `/core/v5/charges/${chargeId}`, { headers: basic(key) });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual([rest.body.status, rest.body.canceled_amount], ['canceled', 4000]);
    const again = await e2e.call('DELETE', `/core/v5/charges/${chargeId}`, { headers: basic(key) });
    assert.equal(again.status, 422, 'nothing left to refund');
    assert.ok(again.headers['x-rg-error-code']);

    const toVoid = await post(key, '/core/v5/orders', cardOrder('4242424242424242', { operation_type: 'pre_auth' }, 3000));
    const voidId = toVoid.body.charges[0].id;
    const partialVoid = await e2e.call('DELETE', `/core/v5/charges/${voidId}`, { rawBody: JSON.stringify({ amount: 100 }), headers: basic(key) });
    assert.equal(partialVoid.status, 422, `a partial void is refused, never voided whole: ${partialVoid.text}`);
    const voided = await e2e.call('DELETE', `/core/v5/charges/${voidId}`, { headers: basic(key), rawBody: '' });
    assert.equal(voided.status, 200, voided.text);
    assert.deepEqual([voided.body.status, voided.body.last_transaction.status], ['canceled', 'voided']);
    const order = await e2e.call('GET', `/core/v5/orders/${toVoid.body.id}`, { headers: basic(key) });
    assert.equal(order.body.status, 'canceled');
  }
  const key = await account();
  const unknown = await e2e.call('GET', '/core/v5/charges/ch_nothing_here_0000', { headers: basic(key) });
  assert.equal(unknown.status, 404);
  assert.equal(typeof unknown.body.message, 'string');
});

test('list: Pagar.me\'s {data, paging} by page and size, newest first; filters RouteGate cannot apply are refused', async () => {
  const key = await account();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await post(key, '/core/v5/orders', cardOrder('4242424242424242'))).body.id);
  const first = await e2e.call('GET', '/core/v5/orders?page=1&size=2', { headers: basic(key) });
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body.data.map((o: { id: string }) => o.id), [ids[2], ids[1]]);
  assert.ok(first.body.paging.next);
  const second = await e2e.call('GET', '/core/v5/orders?page=2&size=2', { headers: basic(key) });
  assert.deepEqual(second.body.data.map((o: { id: string }) => o.id), [ids[0]]);
  assert.equal(second.body.paging.next, undefined);
  assert.ok(second.body.paging.previous);
  const filtered = await e2e.call('GET', '/core/v5/orders?code=ord-n-1', { headers: basic(key) });
  assert.equal(filtered.status, 422);
  assert.equal(filtered.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.match(JSON.stringify(filtered.body.errors), /code is not supported/);
});

test('customers: created natively on the primary, retrieved by the id answered; a customer without a CPF is a 422 naming document', async () => {
  const key = await account({ primaryGateway: 'mercadopago' });
  const created = await post(key, '/core/v5/customers', CUSTOMER);
  assert.equal(created.status, 200, created.text);
  assert.match(created.body.id, /^cus_rg_/, 'held by Mercado Pago: RouteGate\'s customer id');
  assert.deepEqual([created.body.document, created.body.type, created.body.phones.mobile_phone.number], ['12345678909', 'individual', '987654321']);
  const read = await e2e.call('GET', `/core/v5/customers/${created.body.id}`, { headers: basic(key) });
  assert.deepEqual([read.status, read.body.id, read.body.email], [200, created.body.id, 'maria@example.com']);
  const own = await account();
  const atPagarme = await post(own, '/core/v5/customers', CUSTOMER);
  assert.match(atPagarme.body.id, /^cus_[A-Za-z0-9]{16}$/, 'Pagar.me\'s own customer as it answered');
  const noCpf = await post(key, '/core/v5/customers', { ...CUSTOMER, document: undefined });
  assert.equal(noCpf.status, 422);
  // Keys are rooted at "order." as on orders: native.error does not know which native call failed (a known gap).
  assert.deepEqual(noCpf.body.errors, { 'order.document': ['document is required'] });
});

test('a card_token is only ever sent to Pagar.me: charged there whatever the primary, else a native error saying whose it is', async () => {
  const key = await account({ primaryGateway: 'stripe' });
  // Tokenizing is Pagar.me's own call (public key in ?appId=): passed through untranslated, query string included.
  const token = await e2e.call('POST', '/core/v5/tokens?appId=pk_test_routegate', {
    rawBody: JSON.stringify({ type: 'card', card: { number: '4242424242424242', holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123' } }), headers: basic(key),
  });
  assert.equal(token.status, 200, token.text);
  assert.equal(token.headers['x-rg-passthrough'], 'true');
  assert.match(token.body.id, /^token_/);
  const order = { ...cardOrder('x'), payments: [{ payment_method: 'credit_card', credit_card: { installments: 1, card_token: token.body.id } }] };
  const charged = await post(key, '/core/v5/orders', order);
  assert.equal(charged.status, 200, charged.text);
  assert.equal(charged.headers['x-rg-gateway'], 'pagarme');
  assert.match(charged.body.id, /^or_/);
  const without = await account({ primaryGateway: 'stripe' }, ['stripe']);
  const refused = await post(without, '/core/v5/orders', { ...order, payments: [{ payment_method: 'credit_card', credit_card: { card_token: 'token_abcdefghijklmnop' } }] });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.headers['x-rg-error-code'], 'GATEWAY_UNSUPPORTED_OPERATION');
  assert.match(refused.body.message, /card token belongs to pagarme/);
});

test('an untranslated path is passed through to Pagar.me only, with the stored secret key in place of RouteGate\'s', async () => {
  const key = await account({ primaryGateway: 'stripe' });
  await e2e.control.clearRequests();
  const res = await e2e.call('GET', '/compat/pagarme/core/v5/charges?page=1', { headers: basic(key) });
  assert.equal(res.headers['x-rg-passthrough'], 'true', res.text);
  const sent = await e2e.control.requests('pagarme');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.authorization, `Basic ${Buffer.from('sk_test_sandbox_routegate_0002:').toString('base64')}`, 'the account\'s stored Pagar.me key');
  assert.ok(!JSON.stringify(sent[0].headers).includes(key), 'the RouteGate key never leaves RouteGate');
  for (const g of GATEWAY_IDS.filter((id) => id !== 'pagarme')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
  const noCreds = await account({ primaryGateway: 'stripe' }, ['stripe']);
  const refused = await e2e.call('GET', '/core/v5/charges', { headers: basic(noCreds) });
  assert.equal(refused.status, 400);
  assert.equal(refused.headers['x-rg-error-code'], 'MISSING_CREDENTIALS');
  assert.equal(typeof refused.body.message, 'string');
});

test('an idempotency-key on a native create (as the SDK sends it, lowercase) replays the native order and charges once', async () => {
  const key = await account();
  const headers = { ...basic(key), 'idempotency-key': 'pg-native-idem-1' };
  const body = JSON.stringify(cardOrder('4242424242424242', {}, 2500));
  const first = await e2e.call('POST', '/core/v5/orders', { rawBody: body, headers });
  const again = await e2e.call('POST', '/core/v5/orders', { rawBody: body, headers });
  assert.equal(first.status, 200, first.text);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body.id, first.body.id);
  assert.equal((await e2e.control.ledger('pagarme')).filter((l) => l.id === first.body.id).length, 1);
  const other = await e2e.call('POST', '/core/v5/orders', { rawBody: JSON.stringify(cardOrder('4242424242424242', {}, 2600)), headers });
  assert.equal(other.status, 409, other.text);
  assert.equal(other.headers['x-rg-error-code'], 'IDEMPOTENCY_CONFLICT');
  assert.equal(typeof other.body.message, 'string');
});

test('turning compatibility mode on makes the charges made before it readable by their Pagar.me charge id', async () => {
  // A charge's refs ids (Pagar.me's ch_ beside the order id) are indexed only in its gateway's compatibility mode;
  // turning the mode on indexes those of the charges already made (docs/compatibility.md).
  const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
  const made = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 2500, creditCard: CARD, customer: NORMALIZED_CUSTOMER } });
  assert.equal(made.status, 201, made.text);
  const on = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { compatibilityMode: 'pagarme' } });
  assert.equal(on.status, 200, on.text);
  // Pagar.me's charge id, read at the emulator: a native read of the order through RouteGate would refresh the
  // charge, and a refresh in compatibility mode indexes its refs ids by itself.
  const orderId = made.body.data.externalId;
  const order = await fetch(`${e2e.sandbox.emulators.url}/pagarme/core/v5/orders/${orderId}`, { headers: basic(SANDBOX_CREDENTIALS.pagarme.secretKey) });
  const chargeId = ((await order.json()) as { charges: Array<{ id: string }> }).charges[0].id;
  assert.match(chargeId, /^ch_/);
  const read = await e2e.call('GET', `/core/v5/charges/${chargeId}`, { headers: basic(key) });
  assert.deepEqual([read.status, read.body.id, read.body.order?.id, read.body.amount], [200, chargeId, orderId, 2500], read.text);
});
