import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';

// Issue 11: compatibility mode's native API around Mercado Pago: native errors (decline, validation naming the native
// field, outage, authentication), follow-ups (capture, cancel, refunds and their list and read, search, customers) on a
// payment Mercado Pago holds and on one another gateway holds, X-Idempotency-Key per endpoint, passthrough.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const json = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-idempotency-key': randomUUID(), ...extra,
});
const mpAccount = (settings: Record<string, unknown> = {}, gateways?: Parameters<E2E['account']>[1]) =>
  e2e.account({ primaryGateway: 'mercadopago', gatewayFallbacks: [], compatibilityMode: 'mercadopago', compatPassthrough: true, ...settings }, gateways);
const PAYER = {
  email: 'maria.souza@example.com', first_name: 'Maria', last_name: 'Souza', identification: { type: 'CPF', number: '12345678909' },
  phone: { area_code: '11', number: '987654321' },
};
const pix = (amount: number) => ({ transaction_amount: amount, payment_method_id: 'pix', payer: PAYER, external_reference: 'order-7' });

/** A card token from the Mercado Pago emulator's POST /v1/card_tokens (public key): its holder name picks the outcome. */
async function cardToken(holder = 'APRO'): Promise<string> {
  const res = await request(`${e2e.sandbox.app.config.gatewayUrls.mercadopago}/v1/card_tokens?public_key=TEST-public-key`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card_number: '4235647728025682', expiration_month: 11, expiration_year: 2030, security_code: '123', cardholder: { name: holder, identification: { type: 'CPF', number: '12345678909' } } }),
  });
  const body = await res.body.json() as { id: string };
  assert.equal(res.statusCode, 201);
  return body.id;
}
const card = async (amount: number, extra: Record<string, unknown> = {}, holder = 'APRO') => ({
  transaction_amount: amount, token: await cardToken(holder), installments: 1, payment_method_id: 'visa', payer: PAYER, ...extra,
});

test('a decline is Mercado Pago\'s 201 rejected payment (never an HTTP error), with X-RG-Error-Code', async () => {
  const key = await mpAccount();
  const res = await e2e.call('POST', '/v1/payments', { body: await card(19.99, {}, 'FUND'), headers: json(key) });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers['x-rg-error-code'], 'GATEWAY_ERROR');
  assert.equal(res.headers['x-rg-gateway'], 'mercadopago');
  assert.match(String(res.headers['x-rg-charge-id']), /^chg_/);
  assert.deepEqual([res.body.status, res.body.status_detail], ['rejected', 'cc_rejected_insufficient_amount']);
  assert.equal(res.body.transaction_amount, 19.99);
  assert.equal(typeof res.body.id, 'number', 'Mercado Pago\'s payment id');
  const read = await e2e.call('GET', `/v1/payments/${res.body.id}`, { headers: json(key) });
  assert.equal(read.status, 200, read.text);
  assert.equal(read.body.status, 'rejected');
});

test('validation errors are Mercado Pago\'s 400 naming the native field, with its cause code', async () => {
  const key = await mpAccount();
  const noAmount = await e2e.call('POST', '/v1/payments', { body: { payment_method_id: 'pix', payer: PAYER }, headers: json(key) });
  assert.equal(noAmount.status, 400, noAmount.text);
  assert.equal(noAmount.headers['x-rg-error-code'], 'VALIDATION_ERROR');
  assert.deepEqual([noAmount.body.status, noAmount.body.error], [400, 'bad_request']);
  assert.deepEqual(noAmount.body.cause.map((c: { code: number }) => c.code), [4002]);
  assert.match(noAmount.body.cause[0].description, /^transaction_amount /);
  assert.doesNotMatch(noAmount.text, /"amount|paymentMethod/);
  const noMethod = await e2e.call('POST', '/v1/payments', { body: { transaction_amount: 19.99, payment_method_id: 'pec', payer: PAYER }, headers: json(key) });
  assert.equal(noMethod.status, 400, noMethod.text);
  assert.equal(noMethod.body.cause[0].code, 4001);
  assert.match(noMethod.body.cause[0].description, /^payment_method_id /);
  const subCent = await e2e.call('POST', '/v1/payments', { body: pix(19.999), headers: json(key) });
  assert.equal(subCent.status, 400, subCent.text);
  assert.match(subCent.body.cause[0].description, /^transaction_amount /);
  const badRefund = await e2e.call('POST', '/v1/payments/1/refunds', { body: { amount: 0.001 }, headers: json(key) });
  assert.equal(badRefund.status, 404, 'an unknown payment is looked up before the amount');
  assert.equal(badRefund.body.error, 'not_found');
  assert.equal(badRefund.body.cause[0].code, 2000, 'Payment not found, as Mercado Pago says it');
});

test('an outage answers Mercado Pago\'s error shape with the status its SDK retries (502, 5xx), X-RG-Error-Code set', async () => {
  const key = await mpAccount();
  const url = await e2e.closedPortUrl();
  const down = await e2e.withGatewayUrl('mercadopago', url, () => e2e.call('POST', '/v1/payments', { body: pix(19.99), headers: json(key) }));
  assert.equal(down.status, 502, down.text);
  assert.equal(down.headers['x-rg-error-code'], 'GATEWAY_UNREACHABLE');
  assert.deepEqual([down.body.status, down.body.error], [502, 'bad_gateway']);
  assert.ok(Array.isArray(down.body.cause));
  await e2e.control.fault('mercadopago', 'http500', { count: 5 });
  try {
    const fault = await e2e.call('POST', '/v1/payments', { body: pix(19.99), headers: json(key) });
    assert.ok(fault.status >= 500, fault.text);
    assert.equal(fault.body.status, fault.status);
    assert.ok(fault.headers['x-rg-error-code']);
  } finally {
    await e2e.control.clearFaults();
  }
});

test('authentication: the RouteGate key as Bearer (as the SDK sends the access token); missing or wrong keys are Mercado Pago\'s 401', async () => {
  const key = await mpAccount();
  const ok = await e2e.call('GET', '/v1/payments/search?limit=1', { headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.status, 200, ok.text);
  assert.ok(Array.isArray(ok.body.results));
  // At the root /v1 is Stripe's prefix too: before the key is known, the SDK's own headers say whose shape to answer.
  const missing = await e2e.call('POST', '/v1/payments', { body: pix(19.99), headers: { 'x-product-id': 'bc32b6ntrpp001u8nhkg' } });
  assert.equal(missing.status, 401);
  assert.equal(missing.headers['x-rg-error-code'], 'MISSING_API_KEY');
  assert.deepEqual([missing.body.status, missing.body.error, missing.body.cause[0].code], [401, 'unauthorized', 5]);
  const wrong = await e2e.call('GET', '/compat/mercadopago/v1/payments/123', { headers: { authorization: 'Bearer tk_wrong_key' } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers['x-rg-error-code'], 'INVALID_API_KEY');
  assert.deepEqual([wrong.body.status, wrong.body.error, wrong.body.cause], [401, 'unauthorized', []]);
  const stripeMode = await e2e.account({ primaryGateway: 'mercadopago', compatibilityMode: 'stripe' });
  const other = await e2e.call('GET', '/compat/mercadopago/v1/payments/search', { headers: { authorization: `Bearer ${stripeMode}` } });
  assert.equal(other.status, 404);
  assert.match(other.body.message, /Compatibility mode for mercadopago is not enabled on this account \(it is stripe\)/);
});

test('a card reserve on Mercado Pago: partial capture in reais by PUT, refunds partial then full, listed and read by id', async () => {
  const key = await mpAccount();
  const created = await e2e.call('POST', '/compat/mercadopago/v1/payments/', { body: await card(50, { capture: false }), headers: json(key) });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual([created.body.status, created.body.status_detail, created.body.captured], ['authorized', 'pending_capture', false]);
  const id = created.body.id;
  const captured = await e2e.call('PUT', `/v1/payments/${id}`, { body: { capture: true, transaction_amount: 40 }, headers: json(key) });
  assert.equal(captured.status, 200, captured.text);
  assert.deepEqual([captured.body.status, captured.body.captured, captured.body.transaction_amount], ['approved', true, 40]);
  const partial = await e2e.call('POST', `/v1/payments/${id}/refunds`, { body: { amount: 10.5 }, headers: json(key) });
  assert.equal(partial.status, 201, partial.text);
  assert.equal(typeof partial.body.id, 'number', 'Mercado Pago\'s own refund');
  assert.deepEqual([partial.body.payment_id, partial.body.amount, partial.body.status], [id, 10.5, 'approved']);
  const full = await e2e.call('POST', `/v1/payments/${id}/refunds`, { body: {}, headers: json(key) });
  assert.equal(full.status, 201, full.text);
  assert.equal(full.body.amount, 29.5, 'the rest: 4000 - 1050 cents');
  const ledger = (await e2e.control.ledger('mercadopago')).find((l) => l.id === String(id));
  assert.deepEqual([ledger?.amount, ledger?.refundedAmount, ledger?.refunds], [4000, 4000, 2]);
  // The SDK's PaymentRefund.list sends the trailing slash.
  const listed = await e2e.call('GET', `/v1/payments/${id}/refunds/`, { headers: json(key) });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.map((r: { id: number; amount: number }) => [r.id, r.amount]), [[partial.body.id, 10.5], [full.body.id, 29.5]]);
  const one = await e2e.call('GET', `/compat/mercadopago/v1/payments/${id}/refunds/${partial.body.id}`, { headers: json(key) });
  assert.equal(one.status, 200, one.text);
  assert.deepEqual([one.body.id, one.body.amount], [partial.body.id, 10.5]);
  const none = await e2e.call('GET', `/v1/payments/${id}/refunds/999`, { headers: json(key) });
  assert.equal(none.status, 404);
  assert.equal(none.body.error, 'not_found');
  assert.deepEqual(none.body.cause, [], 'the payment exists: not "Payment not found"');
  const read = await e2e.call('GET', `/v1/payments/${id}`, { headers: json(key) });
  assert.deepEqual([read.body.status, read.body.transaction_amount_refunded], ['refunded', 40]);
  const again = await e2e.call('POST', `/v1/payments/${id}/refunds`, { body: {}, headers: json(key) });
  assert.equal(again.status, 400, again.text);
  assert.equal(again.body.error, 'bad_request');
});

test('a pix another gateway holds: cancelled by PUT status=cancelled; a paid one refunded in reais, its refunds listed in Mercado Pago\'s shape', async () => {
  const key = await mpAccount({ primaryGateway: 'pagarme' });
  const pending = await e2e.call('POST', '/v1/payments', { body: pix(19.99), headers: json(key) });
  assert.equal(pending.status, 201, pending.text);
  assert.equal(pending.headers['x-rg-gateway'], 'pagarme');
  const cancelled = await e2e.call('PUT', `/v1/payments/${pending.body.id}`, { body: { status: 'cancelled' }, headers: json(key) });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.deepEqual([cancelled.body.id, cancelled.body.status, cancelled.body.status_detail], [pending.body.id, 'cancelled', 'by_collector']);

  const paid = await e2e.call('POST', '/v1/payments', { body: pix(19.99), headers: json(key) });
  assert.equal(typeof paid.body.id, 'number', 'a charge another gateway holds has a numeric id on Mercado Pago\'s surface');
  const stored = (await e2e.call('GET', `/api/v1/charges/${paid.headers['x-rg-charge-id']}`, { key, headers: { 'x-payload-format': 'native' } })).body.data;
  await e2e.control.pay('pagarme', stored.externalId);
  const approved = await e2e.call('GET', `/v1/payments/${paid.body.id}`, { headers: json(key) });
  assert.deepEqual([approved.body.status, approved.body.status_detail], ['approved', 'accredited']);
  const partial = await e2e.call('POST', `/v1/payments/${paid.body.id}/refunds`, { body: { amount: 5 }, headers: json(key) });
  assert.equal(partial.status, 201, partial.text);
  assert.deepEqual([partial.body.payment_id, partial.body.amount, partial.body.status], [paid.body.id, 5, 'approved']);
  assert.equal((await e2e.control.ledger('pagarme')).find((l) => l.id === stored.externalId)?.refundedAmount, 500, 'Pagar.me refunded 500 cents');
  const rest = await e2e.call('POST', `/v1/payments/${paid.body.id}/refunds`, { body: {}, headers: json(key) });
  assert.equal(rest.body.amount, 14.99);
  const listed = await e2e.call('GET', `/v1/payments/${paid.body.id}/refunds/`, { headers: json(key) });
  assert.deepEqual(listed.body.map((r: { amount: number }) => r.amount), [5, 14.99]);
  const one = await e2e.call('GET', `/v1/payments/${paid.body.id}/refunds/${partial.body.id}`, { headers: json(key) });
  assert.deepEqual([one.status, one.body.id, one.body.amount], [200, partial.body.id, 5]);
  const read = await e2e.call('GET', `/v1/payments/${paid.body.id}`, { headers: json(key) });
  assert.deepEqual([read.body.status, read.body.transaction_amount_refunded], ['refunded', 19.99]);
});

test('X-Idempotency-Key is kept per endpoint: a refund reusing the create\'s key (as the SDK does) refunds, never replays the create', async () => {
  const key = await mpAccount();
  const idem = randomUUID();
  const body = await card(30);
  const first = await e2e.call('POST', '/v1/payments', { body, headers: json(key, { 'x-idempotency-key': idem }) });
  assert.equal(first.status, 201, first.text);
  const replay = await e2e.call('POST', '/v1/payments', { body, headers: json(key, { 'x-idempotency-key': idem }) });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.body.id, first.body.id);
  const other = await e2e.call('POST', '/v1/payments', { body: { ...body, transaction_amount: 31 }, headers: json(key, { 'x-idempotency-key': idem }) });
  assert.equal(other.status, 409, 'another payment under a used key is refused (the SDK\'s MPIdempotencyError), never charged');
  assert.equal(other.headers['x-rg-error-code'], 'IDEMPOTENCY_CONFLICT');
  const refund = await e2e.call('POST', `/v1/payments/${first.body.id}/refunds`, { body: { amount: 10 }, headers: json(key, { 'x-idempotency-key': idem }) });
  assert.equal(refund.status, 201, refund.text);
  assert.equal(refund.headers['idempotent-replayed'], undefined);
  assert.deepEqual([refund.body.payment_id, refund.body.amount], [first.body.id, 10], 'a refund object, not the stored payment');
  const refundAgain = await e2e.call('POST', `/compat/mercadopago/v1/payments/${first.body.id}/refunds/`, { body: { amount: 10 }, headers: json(key, { 'x-idempotency-key': idem }) });
  assert.equal(refundAgain.headers['idempotent-replayed'], 'true');
  assert.equal(refundAgain.body.id, refund.body.id);
  const ledger = (await e2e.control.ledger('mercadopago')).filter((l) => l.id === String(first.body.id));
  assert.deepEqual(ledger.map((l) => [l.refundedAmount, l.refunds]), [[1000, 1]], 'one payment, refunded once');
});

test('search pages by limit and offset, newest first; filters it cannot apply are refused, not ignored', async () => {
  const key = await mpAccount({ primaryGateway: 'pagarme' });
  const ids: unknown[] = [];
  for (const amount of [1, 2, 3]) ids.push((await e2e.call('POST', '/v1/payments', { body: pix(amount), headers: json(key) })).body.id);
  const page1 = await e2e.call('GET', '/v1/payments/search?limit=2&sort=date_created&criteria=desc', { headers: json(key) });
  assert.equal(page1.status, 200, page1.text);
  assert.deepEqual(page1.body.results.map((p: { id: unknown }) => p.id), [ids[2], ids[1]]);
  assert.deepEqual(page1.body.paging, { total: 3, limit: 2, offset: 0 });
  const page2 = await e2e.call('GET', '/v1/payments/search?limit=2&offset=2', { headers: json(key) });
  assert.deepEqual(page2.body.results.map((p: { id: unknown; transaction_amount: number }) => [p.id, p.transaction_amount]), [[ids[0], 1]]);
  assert.deepEqual(page2.body.paging, { total: 3, limit: 2, offset: 2 });
  const filtered = await e2e.call('GET', '/v1/payments/search?external_reference=order-7', { headers: json(key) });
  assert.equal(filtered.status, 400);
  assert.match(filtered.body.message, /cannot filter by external_reference/);
});

test('customers: created natively (at the primary), read by the id answered; a card token goes to Mercado Pago whatever the primary', async () => {
  const key = await mpAccount({ primaryGateway: 'pagarme' });
  const body = { email: 'joao@example.com', first_name: 'Joao', last_name: 'Silva', identification: { type: 'CPF', number: '12345678909' }, phone: { area_code: '11', number: '987654321' } };
  const created = await e2e.call('POST', '/v1/customers', { body, headers: json(key) });
  assert.equal(created.status, 201, created.text);
  assert.match(created.body.id, /^cus_rg_/, 'held at Pagar.me: RouteGate\'s id');
  assert.deepEqual([created.body.email, created.body.first_name, created.body.last_name, created.body.identification.number], ['joao@example.com', 'Joao', 'Silva', '12345678909']);
  const read = await e2e.call('GET', `/v1/customers/${created.body.id}`, { headers: json(key) });
  assert.equal(read.status, 200);
  assert.equal(read.body.id, created.body.id);
  const noCpf = await e2e.call('POST', '/v1/customers', { body: { email: 'x@example.com', first_name: 'Ana', last_name: 'Lima' }, headers: json(key) });
  assert.equal(noCpf.status, 400);
  assert.match(noCpf.body.cause[0].description, /^identification\.number /);

  const charged = await e2e.call('POST', '/v1/payments', { body: await card(19.99), headers: json(key) });
  assert.equal(charged.status, 201, charged.text);
  assert.equal(charged.headers['x-rg-gateway'], 'mercadopago', 'the token\'s own gateway');
  const without = await mpAccount({ primaryGateway: 'pagarme' }, ['pagarme']);
  const refused = await e2e.call('POST', '/v1/payments', { body: await card(19.99), headers: json(without) });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.headers['x-rg-error-code'], 'GATEWAY_UNSUPPORTED_OPERATION');
  assert.match(refused.body.message, /card token belongs to mercadopago/);
});

test('untranslated paths are passed through to Mercado Pago only, with the stored access token in place of RouteGate\'s key', async () => {
  const key = await mpAccount();
  await e2e.control.clearRequests();
  const created = await e2e.call('POST', '/v1/customers', { body: { email: 'pass@example.com', first_name: 'Pass', last_name: 'Through', identification: { type: 'CPF', number: '12345678909' } }, headers: json(key) });
  assert.equal(created.status, 201, created.text);
  const search = await e2e.call('GET', '/v1/customers/search?email=pass@example.com', { headers: json(key) });
  assert.equal(search.status, 200, search.text);
  assert.equal(search.headers['x-rg-passthrough'], 'true');
  assert.deepEqual(search.body.results.map((c: { id: string }) => c.id), [created.body.id]);
  const sent = await e2e.control.requests('mercadopago');
  assert.ok(sent.length >= 2);
  for (const r of sent) {
    assert.equal(r.headers.authorization, 'Bearer TEST-sandbox-routegate-0004', 'the account\'s stored access token');
    assert.ok(!JSON.stringify(r.headers).includes(key), 'the RouteGate key never leaves RouteGate');
  }
  for (const g of GATEWAY_IDS.filter((id) => id !== 'mercadopago')) assert.deepEqual(await e2e.control.requests(g), [], `nothing went to ${g}`);
});
