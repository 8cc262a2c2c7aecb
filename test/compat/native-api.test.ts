import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';

// Issue 11: compatibility mode's native API around Stripe: native errors (decline, validation, outage), the
// X-Payload-Format switch, every native auth form, root and /compat prefix, trailing slashes, passthrough to the
// compat gateway only with the stored credentials, and a Stripe pm_ routed to Stripe whatever the primary.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const FORM = 'application/x-www-form-urlencoded';
const CARD = 'amount=1999&currency=brl&payment_method_types[0]=card&payment_method_data[type]=card&payment_method_data[card][exp_month]=12'
  + '&payment_method_data[card][exp_year]=2030&payment_method_data[card][cvc]=123&payment_method_data[billing_details][name]=Maria%20Souza&confirm=true';
const card = (number: string) => `${CARD}&payment_method_data[card][number]=${number}`;
const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': FORM, ...extra });
const stripeAccount = (settings: Record<string, unknown> = {}) => e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'], compatibilityMode: 'stripe', compatPassthrough: true, ...settings });

test('a decline on a fallback answers Stripe\'s 402 card_error with the PaymentIntent, X-RG-Error-Code and the X-RG-* headers', async () => {
  const key = await stripeAccount({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
  const res = await e2e.call('POST', '/v1/payment_intents', { rawBody: card('4000000000009995'), headers: bearer(key) });
  assert.equal(res.status, 402, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
  assert.equal(res.headers['x-rg-gateway'], 'pagarme');
  assert.match(String(res.headers['x-rg-charge-id']), /^chg_/);
  const { error } = res.body;
  assert.equal(error.type, 'card_error');
  assert.equal(error.code, 'card_declined');
  assert.equal(error.decline_code, 'insufficient_funds');
  assert.equal(error.payment_intent.id, res.headers['x-rg-charge-id']);
  assert.equal(error.payment_intent.status, 'requires_payment_method');
  assert.equal(error.payment_intent.amount, 1999);
});

test('a validation error names the native param the client sent, on both create paths', async () => {
  const key = await stripeAccount();
  const missing = await e2e.call('POST', '/v1/payment_intents', { rawBody: 'currency=brl&payment_method=pm_card_visa&payment_method_types[]=card', headers: bearer(key) });
  assert.equal(missing.status, 400);
  assert.equal(missing.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.deepEqual([missing.body.error.type, missing.body.error.code, missing.body.error.param], ['invalid_request_error', 'parameter_missing', 'amount']);
  const badCard = await e2e.call('POST', '/api/v1/charges', { key, rawBody: card('42'), headers: { 'content-type': FORM } });
  assert.equal(badCard.status, 400, badCard.text);
  assert.equal(badCard.body.error.param, 'payment_method_data[card][number]');
  assert.doesNotMatch(badCard.text, /creditCard/);
  const reais = await e2e.call('POST', '/api/v1/charges', { key, body: { amount: '19.99', currency: 'brl', payment_method: 'pm_card_visa', payment_method_types: ['card'] } });
  assert.equal(reais.status, 400);
  assert.equal(reais.body.error.code, 'parameter_invalid_integer');
});

test('an outage (the only gateway down or failing) answers Stripe\'s api_error with the outage status', async () => {
  const key = await stripeAccount({ gatewayFallbacks: [] });
  const url = await e2e.closedPortUrl();
  const pm = 'amount=1999&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&confirm=true';
  const res = await e2e.withGatewayUrl('stripe', url, () => e2e.call('POST', '/v1/payment_intents', { rawBody: pm, headers: bearer(key) }));
  assert.equal(res.status, 502, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_UNREACHABLE');
  assert.equal(res.body.error.type, 'api_error');
  await e2e.control.fault('stripe', 'http500', { count: 5 });
  try {
    const fault = await e2e.call('POST', '/v1/payment_intents', { rawBody: pm, headers: bearer(key) });
    assert.ok(fault.status >= 500, fault.text);
    assert.equal(fault.body.error.type, 'api_error');
    assert.ok(fault.headers['x-rg-error-code']);
  } finally {
    await e2e.control.clearFaults();
  }
});

test('X-Payload-Format: native makes one call normalized; any other value is 400 VALIDATION_ERROR naming the accepted value', async () => {
  const key = await stripeAccount();
  const normalized = await e2e.call('POST', '/api/v1/charges', {
    key, headers: { 'x-payload-format': 'native' },
    body: { paymentMethod: 'credit_card', amount: 1999, creditCard: { paymentMethodId: 'pm_card_visa' } },
  });
  assert.equal(normalized.status, 201, normalized.text);
  assert.equal(normalized.body.success, true);
  assert.equal(normalized.body.data.amount, 1999);
  const native = await e2e.call('POST', '/api/v1/charges', { key, body: { amount: 1999, currency: 'brl', payment_method: 'pm_card_visa', payment_method_types: ['card'], confirm: true } });
  assert.equal(native.status, 200, native.text);
  assert.equal(native.body.object, 'payment_intent');
  assert.equal(native.headers['x-rg-gateway'], 'stripe');
  const wrong = await e2e.call('POST', '/api/v1/charges', { key, headers: { 'x-payload-format': 'normalized' }, body: {} });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.code, 'VALIDATION_ERROR');
  assert.match(wrong.body.error.message, /accepts only "native"/);
});

test('an Idempotency-Key on a native create replays the native answer, and charges once', async () => {
  const key = await stripeAccount();
  const body = 'amount=2500&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&confirm=true';
  const first = await e2e.call('POST', '/v1/payment_intents', { rawBody: body, headers: bearer(key, { 'idempotency-key': 'native-idem-1' }) });
  const again = await e2e.call('POST', '/v1/payment_intents', { rawBody: body, headers: bearer(key, { 'idempotency-key': 'native-idem-1' }) });
  assert.equal(first.status, 200, first.text);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body.id, first.body.id);
  assert.equal((await e2e.control.ledger('stripe')).filter((l) => l.id === first.body.id).length, 1);
  const other = await e2e.call('POST', '/v1/payment_intents', { rawBody: body.replace('2500', '2600'), headers: bearer(key, { 'idempotency-key': 'native-idem-1' }) });
  assert.equal(other.status, 400);
  assert.equal(other.body.error.type, 'idempotency_error');
});

test('the RouteGate key is taken as Bearer, Basic user, access_token and x-api-key; a wrong one is Stripe\'s 401', async () => {
  const key = await stripeAccount();
  const forms: Array<Record<string, string>> = [
    { authorization: `Bearer ${key}` },
    { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    { access_token: key },
    { 'x-api-key': key },
  ];
  for (const headers of forms) {
    const res = await e2e.call('GET', '/v1/payment_intents?limit=1', { headers });
    assert.equal(res.status, 200, `${Object.keys(headers)[0]}: ${res.text}`);
    assert.equal(res.body.object, 'list');
  }
  const missing = await e2e.call('GET', '/v1/payment_intents', { headers: { 'stripe-version': '2025-01-01' } });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers['x-rg-error-code'], 'MISSING_API_KEY');
  assert.equal(missing.body.error.type, 'invalid_request_error');
  const wrong = await e2e.call('GET', '/compat/stripe/v1/payment_intents', { headers: { authorization: 'Bearer tk_wrong_key' } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers['x-rg-error-code'], 'INVALID_API_KEY');
  assert.ok(wrong.body.error.message);
});

test('root and /compat/stripe serve the same API, trailing slashes tolerated; a native id works in every follow-up', async () => {
  const key = await stripeAccount();
  const created = await e2e.call('POST', '/compat/stripe/v1/payment_intents/', {
    rawBody: 'amount=5000&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&capture_method=manual&confirm=true', headers: bearer(key),
  });
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.status, 'requires_capture');
  const id = created.body.id;
  const read = await e2e.call('GET', `/v1/payment_intents/${id}/`, { headers: bearer(key) });
  assert.equal(read.body.id, id);
  const captured = await e2e.call('POST', `/v1/payment_intents/${id}/capture`, { rawBody: 'amount_to_capture=4000', headers: bearer(key) });
  assert.equal(captured.status, 200, captured.text);
  assert.equal(captured.body.status, 'succeeded');
  assert.equal(captured.body.amount_received, 4000);
  const chargeId = typeof captured.body.latest_charge === 'string' ? captured.body.latest_charge : captured.body.latest_charge.id;
  assert.match(chargeId, /^ch_/);
  const refund = await e2e.call('POST', '/compat/stripe/v1/refunds', { rawBody: `charge=${chargeId}&amount=1000`, headers: bearer(key) });
  assert.equal(refund.status, 200, refund.text);
  assert.deepEqual([refund.body.object, refund.body.amount, refund.body.payment_intent], ['refund', 1000, id]);
  const noId = await e2e.call('POST', '/v1/refunds', { rawBody: 'amount=100', headers: bearer(key) });
  assert.equal(noId.status, 400);
  assert.equal(noId.body.error.param, 'payment_intent');
  const unknown = await e2e.call('GET', '/v1/payment_intents/pi_nothing_here', { headers: bearer(key) });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'resource_missing');
  const cancelled = await e2e.call('POST', '/v1/payment_intents', { rawBody: 'amount=3000&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&capture_method=manual&confirm=true', headers: bearer(key) });
  const cancel = await e2e.call('POST', `/v1/payment_intents/${cancelled.body.id}/cancel`, { headers: bearer(key) });
  assert.equal(cancel.body.status, 'canceled');
});

test('customers: created natively (on the primary), retrieved by the id answered', async () => {
  const key = await stripeAccount();
  const body = 'name=Maria%20Souza&email=maria@example.com&tax_id_data[0][type]=br_cpf&tax_id_data[0][value]=12345678909';
  const created = await e2e.call('POST', '/v1/customers', { rawBody: body, headers: bearer(key) });
  assert.equal(created.status, 200, created.text);
  assert.match(created.body.id, /^cus_/);
  const read = await e2e.call('GET', `/v1/customers/${created.body.id}`, { headers: bearer(key) });
  assert.equal(read.status, 200);
  assert.deepEqual([read.body.object, read.body.id, read.body.email], ['customer', created.body.id, 'maria@example.com']);
  const noCpf = await e2e.call('POST', '/v1/customers', { rawBody: 'name=Maria%20Souza&email=maria@example.com', headers: bearer(key) });
  assert.equal(noCpf.status, 400);
  assert.equal(noCpf.body.error.param, 'tax_id_data[0][value]');
});

test('an untranslated path is passed through to the compat gateway only, with the stored key in place of RouteGate\'s', async () => {
  const key = await stripeAccount();
  await e2e.control.clearRequests();
  const res = await e2e.call('POST', '/v1/payment_methods', { rawBody: 'type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123', headers: bearer(key) });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['x-rg-passthrough'], 'true');
  assert.match(res.body.id, /^pm_/);
  const read = await e2e.call('GET', `/compat/stripe/v1/payment_methods/${res.body.id}`, { headers: bearer(key) });
  assert.equal(read.headers['x-rg-passthrough'], 'true');
  assert.equal(read.body.id, res.body.id);
  const sent = await e2e.control.requests('stripe');
  assert.equal(sent.length, 2);
  for (const r of sent) {
    assert.equal(r.headers.authorization, 'Bearer sk_test_rawcard_sandbox_routegate_0001', 'the account\'s stored Stripe key');
    assert.ok(!JSON.stringify(r.headers).includes(key), 'the RouteGate key never leaves RouteGate');
  }
  for (const g of GATEWAY_IDS.filter((id) => id !== 'stripe')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
  // Another gateway's prefix is never a way out: its compat mode is not this account's (or not served at all).
  const other = await e2e.call('GET', '/compat/pagarme/core/v5/orders', { headers: bearer(key) });
  assert.equal(other.status, 404);
  for (const g of GATEWAY_IDS.filter((id) => id !== 'stripe')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
  const noCreds = await e2e.account({ primaryGateway: 'pagarme', compatibilityMode: 'stripe', compatPassthrough: true }, ['pagarme']);
  const refused = await e2e.call('GET', '/v1/payment_methods/pm_x', { headers: bearer(noCreds) });
  assert.equal(refused.status, 400);
  assert.equal(refused.headers['x-rg-error-code'], 'MISSING_CREDENTIALS');
});

test('/compat/stripe on an account in another mode, or none, is a clear Stripe-shaped error; the root is not served', async () => {
  const off = await e2e.account({ primaryGateway: 'stripe' });
  const res = await e2e.call('GET', '/compat/stripe/v1/payment_intents', { headers: bearer(off) });
  assert.equal(res.status, 404);
  assert.equal(res.headers['x-rg-error-code'], 'NOT_FOUND');
  assert.match(res.body.error.message, /Compatibility mode for stripe is not enabled on this account \(it is off\)/);
  const root = await e2e.call('GET', '/v1/payment_intents', { headers: bearer(off) });
  assert.equal(root.status, 404);
  assert.equal(root.body.success, false, 'no compat gateway: RouteGate\'s envelope');
});

test('a Stripe pm_ with primary Pagar.me is charged on Stripe when Stripe credentials exist, else a clear native error', async () => {
  const body = 'amount=1999&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&confirm=true';
  const withStripe = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [], compatibilityMode: 'stripe' });
  const charged = await e2e.call('POST', '/v1/payment_intents', { rawBody: body, headers: bearer(withStripe) });
  assert.equal(charged.status, 200, charged.text);
  assert.equal(charged.headers['x-rg-gateway'], 'stripe');
  assert.match(charged.body.id, /^pi_/);
  const without = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [], compatibilityMode: 'stripe' }, ['pagarme']);
  const refused = await e2e.call('POST', '/v1/payment_intents', { rawBody: body, headers: bearer(without) });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.headers['x-rg-error-code'], 'GATEWAY_UNSUPPORTED_OPERATION');
  assert.equal(refused.body.error.code, 'payment_method_unavailable');
  assert.match(refused.body.error.message, /card token belongs to stripe/);
});
