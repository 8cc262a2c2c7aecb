import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import qs from 'qs';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { stripeAdapter } from '../../src/gateways/stripe/adapter';
import { type ChargeRef, type NormalizedCharge } from '../../src/gateways/types';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { STRIPE_API_VERSION } from '../../src/gateways/stripe/wire';
import { DECLINES } from '../helpers/e2e';
import { brazilDate } from '../helpers/dates';

// The Stripe adapter driven directly against the Stripe emulator over real HTTP, plus the emulator on its own.

const h = useGatewayHarness();

const KEY = SANDBOX_CREDENTIALS.stripe.secretKey;
const ctx = (credentials = SANDBOX_CREDENTIALS.stripe) => h.context('stripe', credentials);
const ADDRESS = { street: 'Av Paulista', number: '100', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310100', country: 'BR' };
const CUSTOMER = { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', phone: '11987654321', address: ADDRESS };
const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 };
const charge = (over: Partial<NormalizedCharge> = {}): NormalizedCharge => ({
  paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', capture: true, description: 'Pedido 1001', customer: CUSTOMER, creditCard: CARD, ...over,
});
const pix = (over: Partial<NormalizedCharge> = {}) => charge({ paymentMethod: 'pix', creditCard: undefined, pix: { expiresInSeconds: 3600 }, ...over });
const boleto = (over: Partial<NormalizedCharge> = {}) => {
  const dueDate = brazilDate(5);
  return charge({ paymentMethod: 'boleto', creditCard: undefined, boleto: { dueDate, instructions: 'Nao receber apos o vencimento' }, ...over });
};
const refOf = (out: { normalized: { externalId: string; amount: number; refs?: Record<string, string> } }, paymentMethod: ChargeRef['paymentMethod'] = 'credit_card'): ChargeRef => ({
  externalId: out.normalized.externalId, paymentMethod, amount: out.normalized.amount, refs: out.normalized.refs,
});


/** Straight to the emulator, form-encoded like Stripe's SDK. */
async function stripe(method: string, path: string, body?: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.emulators.gatewayUrl('stripe')}${path}`, {
    method,
    // An empty header value leaves the header out (an unpinned call).
    headers: Object.fromEntries(Object.entries({
      authorization: `Bearer ${KEY}`, 'stripe-version': STRIPE_API_VERSION, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers,
    }).filter(([, v]) => v !== '')),
    body: body ? qs.stringify(body, { encodeValuesOnly: true, arrayFormat: 'indices' }) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('stripe adapter against the emulator', () => {
  test('credit card: payment_method first, then a confirmed PaymentIntent with Bearer auth, cents and the idempotency key', async () => {
    const c = ctx();
    const out = await stripeAdapter.createCharge(c, charge({ creditCard: { ...CARD, installments: 3 } }));
    assert.deepEqual(
      { ...out.normalized, externalId: undefined, refs: undefined },
      {
        externalId: undefined, status: 'approved', amount: 1999, paidAmount: 1999, refundedAmount: 0, currency: 'BRL', paymentMethod: 'credit_card', captured: true,
        card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 }, refs: undefined,
      },
    );
    assert.match(out.normalized.externalId, /^pi_3[A-Za-z0-9]{23}$/);
    assert.match(out.normalized.refs!.chargeId, /^ch_3[A-Za-z0-9]{23}$/);
    assert.equal((out.raw as any).object, 'payment_intent');

    const [pm, pi] = await h.control.requests('stripe');
    assert.equal(pm.method, 'POST');
    assert.equal(pm.path, '/v1/payment_methods');
    assert.equal(pm.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(pm.headers.authorization, `Bearer ${KEY}`);
    assert.equal(pm.headers['idempotency-key'], `${c.idempotencyKey}-pm`);
    for (const call of await h.control.requests('stripe')) assert.equal(call.headers['stripe-version'], STRIPE_API_VERSION, `${call.path} pins the version`);
    assert.deepEqual(pm.body, {
      type: 'card', card: { number: CARD.number, exp_month: '12', exp_year: '2030', cvc: '123' }, billing_details: { name: 'MARIA SOUZA', email: 'maria@example.com', tax_id: '12345678909' },
    });
    assert.match(pm.rawBody!, /^type=card&card\[number\]=4242424242424242&card\[exp_month\]=12&/);

    assert.equal(pi.path, '/v1/payment_intents');
    assert.equal(pi.headers['idempotency-key'], c.idempotencyKey);
    const body = pi.body as any;
    assert.equal(body.amount, '1999');
    assert.equal(body.currency, 'brl');
    assert.equal(body.confirm, 'true');
    assert.deepEqual(body.payment_method_types, ['card']);
    assert.match(body.payment_method, /^pm_1/);
    assert.equal(body.capture_method, undefined, 'automatic capture is the default');
    assert.equal(body.description, 'Pedido 1001');
    assert.deepEqual(body.metadata, { rg_charge_id: c.chargeId, rg_payment_method: 'credit_card' });
    assert.deepEqual(body.payment_method_options, { card: { installments: { plan: { count: '3', interval: 'month', type: 'fixed_count' } } } });
    assert.deepEqual(body.expand, ['latest_charge']);
    assert.equal(body.payment_method_data, undefined);
    assert.ok(!pi.rawBody!.includes(CARD.number), 'the PaymentIntent never carries the card number');
    assert.ok(!JSON.stringify(out.raw).includes(CARD.number), 'the answer carries only the last four digits');
  });

  test('debit card goes as a Stripe card and comes back as debit_card', async () => {
    const out = await stripeAdapter.createCharge(ctx(), charge({ paymentMethod: 'debit_card', creditCard: { ...CARD, number: '4000056655665556' } }));
    assert.equal(out.normalized.paymentMethod, 'debit_card');
    assert.equal(out.normalized.status, 'approved');
    const pi = (await h.control.lastRequest('stripe'))!.body as any;
    assert.deepEqual(pi.payment_method_types, ['card']);
    assert.equal(pi.metadata.rg_payment_method, 'debit_card');
    assert.equal((out.raw as any).latest_charge.payment_method_details.card.funding, 'debit');
  });

  test('a saved payment method or a tok_ token skips the payment_methods call', async () => {
    await stripeAdapter.createCharge(ctx(), charge({ creditCard: { paymentMethodId: 'pm_card_visa' } }));
    const out = await stripeAdapter.createCharge(ctx(), charge({ creditCard: { token: 'tok_mastercard' } }));
    assert.equal(out.normalized.status, 'approved');
    const calls = await h.control.requests('stripe');
    assert.deepEqual(calls.map((r) => r.path), ['/v1/payment_intents', '/v1/payment_intents']);
    assert.equal((calls[0].body as any).payment_method, 'pm_card_visa');
    assert.deepEqual((calls[1].body as any).payment_method_data, { type: 'card', card: { token: 'tok_mastercard' } });
  });

  test('pix: requires_action -> pending with QR image URL and BR Code, no boleto fields', async () => {
    const c = ctx();
    const out = await stripeAdapter.createCharge(c, pix());
    const n = out.normalized;
    assert.equal(n.status, 'pending');
    assert.equal(n.paymentMethod, 'pix');
    assert.equal(n.paidAmount, 0);
    assert.match(n.pixQrCode!, /^https:\/\/qr\.stripe\.com\/test_\w+\.png$/);
    assert.match(n.pixCopyPaste!, /^000201.*br\.gov\.bcb\.pix.*540519\.995802BR.*6304[0-9A-F]{4}$/);
    assert.equal(n.boletoUrl, undefined);
    assert.equal(n.boletoBarcode, undefined);
    assert.equal(n.captured, undefined);
    const calls = await h.control.requests('stripe');
    assert.equal(calls.length, 1, 'no payment_methods call for pix');
    const body = calls[0].body as any;
    assert.deepEqual(body.payment_method_types, ['pix']);
    assert.deepEqual(body.payment_method_data, { type: 'pix', billing_details: { name: 'Maria Souza', email: 'maria@example.com' } });
    assert.deepEqual(body.payment_method_options, { pix: { expires_after_seconds: '3600' } });
    const qr = (out.raw as any).next_action.pix_display_qr_code;
    assert.ok(qr.expires_at - Math.floor(Date.now() / 1000) > 3590 && qr.expires_at - Math.floor(Date.now() / 1000) <= 3600);
  });

  test('boleto: requires_action -> pending with voucher URL and 47-digit line, tax id and billing details sent', async () => {
    const out = await stripeAdapter.createCharge(ctx(), boleto());
    const n = out.normalized;
    assert.equal(n.status, 'pending');
    assert.equal(n.paymentMethod, 'boleto');
    assert.match(n.boletoUrl!, /^https:\/\/payments\.stripe\.com\/boleto\/voucher\/test_/);
    assert.match(n.boletoBarcode!, /^\d{47}$/);
    assert.equal(n.pixQrCode, undefined);
    assert.equal(n.pixCopyPaste, undefined);
    const body = (await h.control.lastRequest('stripe'))!.body as any;
    assert.deepEqual(body.payment_method_types, ['boleto']);
    assert.deepEqual(body.payment_method_data, {
      type: 'boleto', boleto: { tax_id: '12345678909' },
      billing_details: {
        name: 'Maria Souza', email: 'maria@example.com',
        address: { line1: 'Av Paulista, 100', city: 'Sao Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' },
      },
    });
    assert.deepEqual(body.payment_method_options, { boleto: { expires_after_days: '5' } });
  });

  test('boleto with only a customerId reads the payer from the Stripe customer', async () => {
    const cus = await stripeAdapter.createCustomer(ctx(), CUSTOMER);
    const out = await stripeAdapter.createCharge(ctx(), boleto({ customer: undefined, customerId: cus.normalized.externalId }));
    assert.equal(out.normalized.status, 'pending');
    const calls = await h.control.requests('stripe');
    assert.deepEqual(calls.map((r) => `${r.method} ${r.path}`), ['POST /v1/customers', `GET /v1/customers/${cus.normalized.externalId}`, 'POST /v1/payment_intents']);
    const body = calls[2].body as any;
    assert.equal(body.customer, cus.normalized.externalId);
    assert.equal(body.payment_method_data.boleto.tax_id, '12345678909');
    assert.equal(body.payment_method_data.billing_details.email, 'maria@example.com');
    assert.equal(body.payment_method_data.billing_details.address.postal_code, '01310-100', 'the address comes from the Stripe customer');
  });

  for (const [number, code] of DECLINES) {
    test(`decline card ${number} -> GatewayFailure decline ${code} with the PaymentIntent normalized`, async () => {
      const err = await failure(stripeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number } })));
      assert.equal(err.kind, 'decline');
      assert.equal(err.info.status, 402);
      assert.equal(err.info.declineCode, code);
      const body = err.info.body as any;
      assert.equal(body.error.type, 'card_error');
      assert.equal(err.message, body.error.message);
      const n = err.info.normalized!;
      assert.equal(n.status, 'declined');
      assert.equal(n.declineCode, code);
      assert.equal(n.externalId, body.error.payment_intent.id);
      assert.equal(n.paidAmount, 0);
      assert.equal(n.gatewayMessage, body.error.message);
    });
  }

  test('a decline keeps Stripe codes: insufficient_funds is decline_code under card_declined', async () => {
    const err = await failure(stripeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4000000000009995' } })));
    const e = (err.info.body as any).error;
    assert.deepEqual([e.code, e.decline_code, e.payment_intent.status], ['card_declined', 'insufficient_funds', 'requires_payment_method']);
    assert.equal(e.payment_intent.last_payment_error.decline_code, 'insufficient_funds');
    const generic = (await failure(stripeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4000000000000002' } })))).info.body as any;
    assert.equal(generic.error.decline_code, 'generic_decline');
  });

  test('pre-authorization: requires_capture is approved uncaptured; capture makes it paid', async () => {
    const out = await stripeAdapter.createCharge(ctx(), charge({ capture: false }));
    assert.equal(out.normalized.status, 'approved');
    assert.equal(out.normalized.captured, false);
    assert.equal(out.normalized.paidAmount, 0);
    assert.equal((out.raw as any).status, 'requires_capture');
    assert.equal(((await h.control.lastRequest('stripe'))!.body as any).capture_method, 'manual');
    const c = ctx();
    const cap = await stripeAdapter.captureCharge(c, refOf(out));
    assert.equal(cap.normalized.status, 'approved');
    assert.equal(cap.normalized.captured, true);
    assert.equal(cap.normalized.paidAmount, 1999);
    const sent = (await h.control.lastRequest('stripe'))!;
    assert.equal(sent.path, `/v1/payment_intents/${out.normalized.externalId}/capture`);
    assert.equal(sent.headers['idempotency-key'], `${c.idempotencyKey}-capture`);
    const again = await failure(stripeAdapter.captureCharge(ctx(), refOf(out)));
    assert.equal(again.kind, 'invalid_request');
    assert.equal((again.info.body as any).error.code, 'payment_intent_unexpected_state');
  });

  test('partial capture sends amount_to_capture', async () => {
    const out = await stripeAdapter.createCharge(ctx(), charge({ capture: false }));
    const cap = await stripeAdapter.captureCharge(ctx(), refOf(out), 1500);
    assert.equal(cap.normalized.paidAmount, 1500);
    assert.equal(((await h.control.lastRequest('stripe'))!.body as any).amount_to_capture, '1500');
  });

  test('cancel voids a pre-authorization and a pending pix', async () => {
    const auth = await stripeAdapter.createCharge(ctx(), charge({ capture: false }));
    const voided = await stripeAdapter.cancelCharge(ctx(), refOf(auth));
    assert.equal(voided.normalized.status, 'cancelled');
    assert.equal(voided.normalized.refundedAmount, 0, 'a released hold is not a refund');
    const p = await stripeAdapter.createCharge(ctx(), pix());
    const cancelled = await stripeAdapter.cancelCharge(ctx(), refOf(p, 'pix'));
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal((cancelled.raw as any).cancellation_reason, 'requested_by_customer');
  });

  test('partial then full refund: refundedAmount from latest_charge, approved then refunded', async () => {
    const out = await stripeAdapter.createCharge(ctx(), charge());
    const c = ctx();
    const partial = await stripeAdapter.refundCharge(c, refOf(out), 500);
    assert.equal(partial.normalized.status, 'approved');
    assert.equal(partial.normalized.refundedAmount, 500);
    assert.equal(partial.normalized.paidAmount, 1999);
    assert.equal((partial.raw as any).object, 'refund');
    const calls = await h.control.requests('stripe');
    const refund = calls.find((r) => r.path === '/v1/refunds')!;
    assert.deepEqual(refund.body, { payment_intent: out.normalized.externalId, amount: '500', reason: 'requested_by_customer', metadata: { rg_charge_id: c.chargeId } });
    assert.equal(refund.headers['idempotency-key'], `${c.idempotencyKey}-refund`);
    assert.equal(calls[calls.length - 1].path, `/v1/payment_intents/${out.normalized.externalId}?expand[]=latest_charge`);
    const full = await stripeAdapter.refundCharge(ctx(), refOf(out));
    assert.equal(full.normalized.status, 'refunded');
    assert.equal(full.normalized.refundedAmount, 1999);
    assert.equal((full.raw as any).amount, 1499);
    const more = await failure(stripeAdapter.refundCharge(ctx(), refOf(out), 100));
    assert.equal(more.kind, 'invalid_request');
    assert.equal((more.info.body as any).error.code, 'charge_already_refunded');
  });

  test('retrieve reads the PaymentIntent with latest_charge expanded', async () => {
    const out = await stripeAdapter.createCharge(ctx(), charge());
    const got = await stripeAdapter.retrieveCharge(ctx(), refOf(out));
    assert.deepEqual(got.normalized, out.normalized);
  });

  test('customer: tax id and metadata sent, externalId cus_', async () => {
    const c = ctx();
    const out = await stripeAdapter.createCustomer(c, CUSTOMER);
    assert.match(out.normalized.externalId, /^cus_[A-Za-z0-9]{14}$/);
    assert.deepEqual({ ...out.normalized, externalId: undefined }, { externalId: undefined, name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', phone: '11987654321' });
    const sent = (await h.control.lastRequest('stripe'))!;
    assert.equal(sent.path, '/v1/customers');
    assert.equal(sent.headers['idempotency-key'], c.idempotencyKey);
    assert.deepEqual(sent.body, {
      name: 'Maria Souza', email: 'maria@example.com', phone: '+5511987654321', metadata: { document: '12345678909' },
      address: { line1: 'Av Paulista, 100', city: 'Sao Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' },
      tax_id_data: [{ type: 'br_cpf', value: '123.456.789-09' }],
    });
    const pi = await stripeAdapter.createCharge(ctx(), charge({ customerId: out.normalized.externalId }));
    assert.equal((pi.raw as any).customer, out.normalized.externalId);
  });

  test('invalid credentials -> auth failure with Stripe 401, key masked', async () => {
    const err = await failure(stripeAdapter.createCharge(ctx({ secretKey: 'sk_test_invalid_key_9876' }), pix()));
    assert.equal(err.kind, 'auth');
    assert.equal(err.info.status, 401);
    assert.equal(err.message, 'Invalid API Key provided: sk_test_************9876');
  });

  test('unknown PaymentIntent -> not_found', async () => {
    const err = await failure(stripeAdapter.retrieveCharge(ctx(), { externalId: 'pi_missing', paymentMethod: 'credit_card', amount: 1999 }));
    assert.equal(err.kind, 'not_found');
    assert.deepEqual((err.info.body as any).error, {
      type: 'invalid_request_error', code: 'resource_missing', param: 'intent', message: "No such payment_intent: 'pi_missing'",
      doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
    });
  });

  test('an injected 500 -> http_5xx', async () => {
    await h.control.fault('stripe', 'http500');
    const err = await failure(stripeAdapter.createCharge(ctx(), pix()));
    assert.equal(err.kind, 'http_5xx');
    assert.equal(err.info.status, 500);
  });

  test('a connection lost or a timeout on the payment_method call is not ambiguous: no PaymentIntent can exist yet', async () => {
    for (const fault of ['lose', 'late'] as const) {
      await h.control.fault('stripe', fault, { method: 'POST', path: '/v1/payment_methods', latencyMs: 3000 });
      const err = await failure(stripeAdapter.createCharge(h.context('stripe', SANDBOX_CREDENTIALS.stripe, { timeoutMs: 300 }), charge()));
      assert.equal(err.kind, fault === 'lose' ? 'unreachable' : 'timeout');
      assert.equal(err.info.ambiguous, false, fault);
    }
    assert.deepEqual((await h.control.requests('stripe')).map((r) => r.path), ['/v1/payment_methods', '/v1/payment_methods']);
    assert.deepEqual(await h.control.ledger('stripe'), [], 'no PaymentIntent');
  });

  test('a Luhn-invalid number is refused at payment_method creation, not as an issuer decline', async () => {
    const err = await failure(stripeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4242424242424241' } })));
    assert.equal(err.kind, 'invalid_request');
    assert.equal(err.info.status, 402);
    assert.equal((err.info.body as any).error.code, 'incorrect_number');
    assert.ok(!JSON.stringify(err.info.body).includes('4242424242424241'), 'the number is not echoed');
    assert.deepEqual((await h.control.requests('stripe')).map((r) => r.path), ['/v1/payment_methods']);
  });

  test('capabilities: no capture for pix/boleto, no boleto refunds', () => {
    const caps = stripeAdapter.capabilities;
    assert.equal(caps.pix.capture, 'unsupported');
    assert.equal(caps.boleto.capture, 'unsupported');
    assert.equal(caps.boleto.refund, 'unsupported');
    assert.equal(caps.boleto.partial_refund, 'unsupported');
    assert.equal(caps.pix.cancel, 'supported');
    assert.equal(caps.debit_card.capture, 'supported');
    assert.equal(caps.customer, 'supported');
  });
});

describe('stripe emulator over HTTP', () => {
  test('auth: missing key and an invalid key get Stripe 401 bodies, the key masked', async () => {
    const none = await stripe('GET', '/v1/payment_intents/pi_x', undefined, { authorization: '' });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.type, 'invalid_request_error');
    assert.match(none.body.error.message, /^You did not provide an API key/);
    const bad = await stripe('GET', '/v1/payment_intents/pi_x', undefined, { authorization: 'Bearer sk_test_invalid_0001' });
    assert.deepEqual(bad.body, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_********0001' } });
    const basic = await stripe('POST', '/v1/customers', {}, { authorization: `Basic ${Buffer.from(`${KEY}:`).toString('base64')}` });
    assert.equal(basic.status, 200, 'HTTP Basic with the key as user works too');
  });

  test('validation: missing amount, non-integer amount, unknown parameter', async () => {
    const m = await stripe('POST', '/v1/payment_intents', { currency: 'brl' });
    assert.equal(m.status, 400);
    assert.deepEqual(m.body.error, {
      type: 'invalid_request_error', code: 'parameter_missing', param: 'amount', message: 'Missing required param: amount.',
      doc_url: 'https://stripe.com/docs/error-codes/parameter-missing',
    });
    const f = await stripe('POST', '/v1/payment_intents', { amount: '19.99', currency: 'brl' });
    assert.equal(f.body.error.code, 'parameter_invalid_integer');
    const u = await stripe('POST', '/v1/payment_intents', { amount: 1999, currency: 'brl', surprise: 1 });
    assert.equal(u.body.error.message, 'Received unknown parameter: surprise');
    const r = await stripe('POST', '/v1/payment_intents', { amount: 1999, currency: 'brl', confirm: true, payment_method: 'pm_card_visa' });
    assert.match(r.body.error.message, /return_url/, 'automatic payment methods + confirm need a return_url');
    const b = await stripe('POST', '/v1/payment_intents', { amount: 1999, currency: 'brl', confirm: true, payment_method_types: ['boleto'], payment_method_data: { type: 'boleto', billing_details: { name: 'M', email: 'm@x.com' } } });
    assert.equal(b.body.error.param, 'payment_method_data[boleto][tax_id]');
  });

  test('idempotency: same key replays (even a 402), other parameters are an idempotency_error, 400s are not saved', async () => {
    const params = { amount: 1999, currency: 'brl', confirm: true, payment_method_types: ['card'], payment_method: 'pm_card_chargeDeclined' };
    const first = await stripe('POST', '/v1/payment_intents', params, { 'idempotency-key': 'k-1' });
    const second = await stripe('POST', '/v1/payment_intents', params, { 'idempotency-key': 'k-1' });
    assert.equal(first.status, 402);
    assert.equal(second.status, 402);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    const other = await stripe('POST', '/v1/payment_intents', { ...params, amount: 2000 }, { 'idempotency-key': 'k-1' });
    assert.equal(other.status, 400);
    assert.equal(other.body.error.type, 'idempotency_error');
    const bad = await stripe('POST', '/v1/payment_intents', { currency: 'brl' }, { 'idempotency-key': 'k-2' });
    assert.equal(bad.status, 400);
    const good = await stripe('POST', '/v1/payment_intents', { amount: 1000, currency: 'brl' }, { 'idempotency-key': 'k-2' });
    assert.equal(good.status, 200);
    assert.equal(good.body.status, 'requires_payment_method');
  });

  test('a refund leaves the PaymentIntent succeeded; the expanded charge carries amount_refunded', async () => {
    const pi = await stripe('POST', '/v1/payment_intents', { amount: 1999, currency: 'brl', confirm: true, payment_method_types: ['card'], payment_method: 'pm_card_visa' });
    assert.equal(pi.body.status, 'succeeded');
    assert.match(pi.body.latest_charge, /^ch_3/);
    assert.equal(pi.body.amount_refunded, undefined);
    const over = await stripe('POST', '/v1/refunds', { payment_intent: pi.body.id, amount: 5000 });
    assert.equal(over.body.error.message, 'Refund amount (R$50.00) is greater than unrefunded amount on charge (R$19.99)');
    const re = await stripe('POST', '/v1/refunds', { payment_intent: pi.body.id, amount: 700 });
    assert.equal(re.body.object, 'refund');
    assert.equal(re.body.status, 'succeeded');
    const after = await stripe('GET', `/v1/payment_intents/${pi.body.id}?expand[]=latest_charge`);
    assert.equal(after.body.status, 'succeeded');
    assert.equal(after.body.latest_charge.amount_refunded, 700);
    assert.equal(after.body.latest_charge.refunded, false);
  });

  test('boleto cannot be refunded; a paid pix can (emulator pay hook)', async () => {
    const base = { amount: 1999, currency: 'brl', confirm: true };
    const b = await stripe('POST', '/v1/payment_intents', { ...base, payment_method_types: ['boleto'], payment_method_data: { type: 'boleto', boleto: { tax_id: '12345678909' }, billing_details: { name: 'Maria', email: 'm@x.com', address: { line1: 'Av Paulista, 100', city: 'Sao Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' } } } });
    await stripe('POST', `/_emulator/payment_intents/${b.body.id}/pay`, {});
    const br = await stripe('POST', '/v1/refunds', { payment_intent: b.body.id });
    assert.equal(br.body.error.code, 'charge_not_refundable');
    const p = await stripe('POST', '/v1/payment_intents', { ...base, payment_method_types: ['pix'], payment_method_data: { type: 'pix' } });
    const paid = await stripe('POST', `/_emulator/payment_intents/${p.body.id}/pay`, {});
    assert.equal(paid.body.status, 'succeeded');
    assert.equal((await stripe('POST', '/v1/refunds', { payment_intent: p.body.id })).body.amount, 1999);
  });

  test('a boleto without the billing address is the 400 parameter_missing Stripe answers', async () => {
    const res = await stripe('POST', '/v1/payment_intents', {
      amount: 1999, currency: 'brl', confirm: true, payment_method_types: ['boleto'],
      payment_method_data: { type: 'boleto', boleto: { tax_id: '12345678909' }, billing_details: { name: 'Maria', email: 'm@x.com' } },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'parameter_missing');
    assert.equal(res.body.error.param, 'payment_method_data[billing_details][address][line1]');
  });

  test('Stripe-Version: pinned dahlia takes payment_method_types; unpinned runs on the account default (endive), which refuses it', async () => {
    const body = { amount: 1999, currency: 'brl', payment_method_types: ['pix'] };
    const pinned = await stripe('POST', '/v1/payment_intents', body);
    assert.equal(pinned.status, 200);
    assert.equal(pinned.headers.get('stripe-version'), STRIPE_API_VERSION);
    const unpinned = await stripe('POST', '/v1/payment_intents', body, { 'stripe-version': '' });
    assert.equal(unpinned.status, 400);
    assert.equal(unpinned.body.error.code, 'parameter_unknown');
    assert.equal(unpinned.body.error.param, 'payment_method_types');
    const endive = await stripe('POST', '/v1/payment_intents', { amount: 1999, currency: 'brl', allowed_payment_method_types: ['pix'] }, { 'stripe-version': '2026-10-28.endive' });
    assert.equal(endive.status, 200, 'endive takes allowed_payment_method_types');
    const bad = await stripe('GET', '/v1/customers/cus_x', undefined, { 'stripe-version': 'yesterday' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /Invalid Stripe API version/);
  });

  test('raw card numbers are refused unless the account has raw card data access', async () => {
    const card = { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } };
    const refused = await stripe('POST', '/v1/payment_methods', card, { authorization: 'Bearer sk_test_plain_account_0001' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.type, 'invalid_request_error');
    assert.match(refused.body.error.message, /Sending credit card numbers directly to the Stripe API is generally unsafe/);
    const allowed = await stripe('POST', '/v1/payment_methods', card);
    assert.equal(allowed.status, 200, 'the sandbox key has raw card data access');
  });

  test('unknown ids are Stripe 404s', async () => {
    const c = await stripe('GET', '/v1/customers/cus_nope');
    assert.equal(c.status, 404);
    assert.equal(c.body.error.message, "No such customer: 'cus_nope'");
    const byParam = await stripe('POST', '/v1/refunds', { payment_intent: 'pi_nope' });
    assert.equal(byParam.status, 400, 'a missing object named by a parameter is a 400');
    assert.equal(byParam.body.error.code, 'resource_missing');
  });
});
