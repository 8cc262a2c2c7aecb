import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { pagarmeAdapter } from '../../src/gateways/pagarme/adapter';
import { type NormalizedCharge } from '../../src/gateways/types';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { DECLINES } from '../helpers/e2e';

// The Pagar.me adapter driven directly against the Pagar.me emulator over real HTTP.

const h = useGatewayHarness();

const ctx = (credentials = SANDBOX_CREDENTIALS.pagarme) => h.context('pagarme', credentials);
const CUSTOMER = {
  name: 'Maria Souza', email: 'maria@example.com', document: '123.456.789-09', phone: '11987654321',
  address: { street: 'Av Paulista', number: '100', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310-100' },
};
const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 2 };
const charge = (over: Partial<NormalizedCharge> = {}): NormalizedCharge => ({
  paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', capture: true, description: 'Pedido 1001', customer: CUSTOMER, creditCard: CARD, ...over,
});


describe('pagarme adapter against the emulator', () => {
  test('credit card: order sent with Basic auth, cents, idempotency key; answer normalized as approved', async () => {
    const c = ctx();
    const out = await pagarmeAdapter.createCharge(c, charge());
    assert.equal(out.normalized.status, 'approved');
    assert.equal(out.normalized.amount, 1999);
    assert.equal(out.normalized.paidAmount, 1999);
    assert.equal(out.normalized.refundedAmount, 0);
    assert.equal(out.normalized.captured, true);
    assert.match(out.normalized.externalId, /^or_[A-Za-z0-9]{16}$/);
    assert.match(out.normalized.refs!.chargeId, /^ch_[A-Za-z0-9]{16}$/);
    assert.equal(out.normalized.pixQrCode, undefined);
    assert.equal(out.normalized.boletoUrl, undefined);

    const [sent] = await h.control.requests('pagarme');
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/core/v5/orders');
    assert.equal(sent.headers.authorization, `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}`);
    assert.equal(sent.headers['idempotency-key'], c.idempotencyKey);
    assert.equal(sent.headers['content-type'], 'application/json');
    const body = sent.body as any;
    assert.equal(body.code, c.chargeId);
    assert.deepEqual(body.items, [{ amount: 1999, description: 'Pedido 1001', quantity: 1, code: c.chargeId }]);
    assert.equal(body.customer.document, '12345678909');
    assert.deepEqual(body.customer.phones.mobile_phone, { country_code: '55', area_code: '11', number: '987654321' });
    assert.deepEqual(body.payments[0], {
      payment_method: 'credit_card',
      credit_card: {
        installments: 2, operation_type: 'auth_and_capture',
        card: {
          number: CARD.number, holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123',
          billing_address: { line_1: '100, Av Paulista, Bela Vista', zip_code: '01310100', city: 'Sao Paulo', state: 'SP', country: 'BR' },
        },
      },
    });
    assert.deepEqual(body.customer.address, { line_1: '100, Av Paulista, Bela Vista', zip_code: '01310100', city: 'Sao Paulo', state: 'SP', country: 'BR' });
    assert.deepEqual(out.normalized.card, { brand: 'visa', last4: CARD.number.slice(-4), expMonth: 12, expYear: 2030 });
    assert.ok(!JSON.stringify(out.raw).includes(CARD.number), 'the gateway answer carries only the last four digits');
  });

  test('debit card is sent as debit_card and normalized as such', async () => {
    const out = await pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'debit_card', debitCard: { authentication: { eci: '05', cavv: 'AAAB' } } }));
    assert.equal(out.normalized.paymentMethod, 'debit_card');
    assert.equal(out.normalized.status, 'approved');
    const sent = (await h.control.lastRequest('pagarme'))!.body as any;
    assert.equal(sent.payments[0].payment_method, 'debit_card');
    assert.equal(sent.payments[0].debit_card.card.number, CARD.number);
  });

  test('pix: pending with QR code fields only', async () => {
    const out = await pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'pix', creditCard: undefined, pix: { expiresInSeconds: 600 } }));
    assert.equal(out.normalized.status, 'pending');
    assert.equal(out.normalized.paidAmount, 0);
    assert.match(out.normalized.pixCopyPaste!, /^000201/, 'qr_code (the EMV text) is the copy-and-paste code');
    assert.match(out.normalized.pixQrCode!, /^https:\/\/.*qrcode/, 'qr_code_url (the PNG) is the QR image');
    assert.ok(Date.parse(out.normalized.pix!.expiresAt!) > Date.now());
    assert.equal(out.normalized.boletoUrl, undefined);
    assert.equal(out.normalized.captured, undefined);
    const sent = (await h.control.lastRequest('pagarme'))!.body as any;
    assert.deepEqual(sent.payments[0], { payment_method: 'pix', pix: { expires_in: 600 } });
  });

  test('boleto: pending with URL and digitable line; due date sent as end of day', async () => {
    const out = await pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'boleto', creditCard: undefined, boleto: { dueDate: '2030-01-10', instructions: 'Não receber após o vencimento' } }));
    assert.equal(out.normalized.status, 'pending');
    assert.match(out.normalized.boletoUrl!, /^https:\/\//);
    assert.match(out.normalized.boletoBarcode!, /^\d{47}$/, 'the typeable line, digits only');
    assert.match(out.normalized.boleto!.dueDate!, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(out.normalized.pixQrCode, undefined);
    const sent = (await h.control.lastRequest('pagarme'))!.body as any;
    assert.deepEqual(sent.payments[0].boleto, { due_at: '2030-01-10T23:59:59Z', instructions: 'Não receber após o vencimento' });
  });

  test('the five decline cards become decline failures with the normalized code', async () => {
    for (const [number, code] of DECLINES) {
      const f = await failure(pagarmeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number } })));
      assert.equal(f.kind, 'decline', number);
      assert.equal(f.info.declineCode, code, number);
      assert.equal(f.info.status, 200, 'Pagar.me declines with HTTP 200');
      assert.equal(f.info.normalized?.status, 'declined');
      assert.match(f.info.normalized!.externalId, /^or_/);
    }
  });

  test("the simulator's own refused card 4000000000000028 is a card_declined", async () => {
    const f = await failure(pagarmeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4000000000000028' } })));
    assert.equal(f.kind, 'decline');
    assert.equal(f.info.declineCode, 'card_declined');
  });

  test('pre-authorization: approved uncaptured, capture sets paidAmount; then partial and full refund', async () => {
    const c = ctx();
    const created = await pagarmeAdapter.createCharge(c, charge({ capture: false }));
    assert.equal(((await h.control.lastRequest('pagarme'))!.body as any).payments[0].credit_card.operation_type, 'auth_only');
    assert.equal(created.normalized.status, 'approved');
    assert.equal(created.normalized.captured, false);
    assert.equal(created.normalized.paidAmount, 0);
    const ref = { externalId: created.normalized.externalId, paymentMethod: 'credit_card' as const, amount: 1999, refs: created.normalized.refs };

    // Each follow-up is its own attempt with its own idempotency key, as the orchestrator does.
    const captured = await pagarmeAdapter.captureCharge(ctx(), ref);
    assert.equal(captured.normalized.captured, true);
    assert.equal(captured.normalized.paidAmount, 1999);
    assert.equal(captured.normalized.externalId, created.normalized.externalId, 'the charge answer keeps the order id as externalId');
    const capCall = await h.control.lastRequest('pagarme');
    assert.equal(capCall!.path, `/core/v5/charges/${ref.refs!.chargeId}/capture`);

    const partial = await pagarmeAdapter.refundCharge(ctx(), ref, 500);
    assert.equal(partial.normalized.status, 'approved');
    assert.equal(partial.normalized.refundedAmount, 500);
    const refundCall = await h.control.lastRequest('pagarme');
    assert.equal(refundCall!.method, 'DELETE');
    assert.deepEqual(refundCall!.body, { amount: 500 });

    const full = await pagarmeAdapter.refundCharge(ctx(), ref);
    assert.equal(full.normalized.status, 'refunded');
    assert.equal(full.normalized.refundedAmount, 1999);
    assert.deepEqual((await h.control.lastRequest('pagarme'))!.body, {});

    const again = await pagarmeAdapter.retrieveCharge(ctx(), ref);
    assert.equal(again.normalized.status, 'refunded');
    assert.equal(again.normalized.refundedAmount, 1999);
  });

  test('cancelling a pre-authorization voids it: cancelled, nothing refunded', async () => {
    const c = ctx();
    const created = await pagarmeAdapter.createCharge(c, charge({ capture: false }));
    const ref = { externalId: created.normalized.externalId, paymentMethod: 'credit_card' as const, amount: 1999, refs: created.normalized.refs };
    const cancelled = await pagarmeAdapter.cancelCharge(c, ref);
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal(cancelled.normalized.refundedAmount, 0);
    const f = await failure(pagarmeAdapter.captureCharge(c, ref));
    assert.equal(f.kind, 'invalid_request');
    assert.equal(f.info.status, 412);
  });

  test('customers are created with split phone and normalized back', async () => {
    const out = await pagarmeAdapter.createCustomer(ctx(), CUSTOMER);
    assert.match(out.normalized.externalId, /^cus_/);
    assert.equal(out.normalized.document, '12345678909');
    assert.equal(out.normalized.phone, '11987654321');
    const sent = await h.control.lastRequest('pagarme');
    assert.equal(sent!.path, '/core/v5/customers');
    // A later charge with customerId sends customer_id, not the customer object.
    await pagarmeAdapter.createCharge(ctx(), charge({ customerId: out.normalized.externalId, customer: undefined }));
    const order = (await h.control.lastRequest('pagarme'))!.body as any;
    assert.equal(order.customer_id, out.normalized.externalId);
    assert.equal(order.customer, undefined);
  });

  test('a rejected secret key is an auth failure with status 401', async () => {
    const f = await failure(pagarmeAdapter.createCharge(ctx({ ...SANDBOX_CREDENTIALS.pagarme, secretKey: 'sk_test_invalid_0002' }), charge()));
    assert.equal(f.kind, 'auth');
    assert.equal(f.info.status, 401);
    assert.match(f.message, /Authorization has been denied/);
  });

  test('an unknown order is not_found; a validation error is invalid_request with the field', async () => {
    const missing = await failure(pagarmeAdapter.retrieveCharge(ctx(), { externalId: 'or_0000000000000000', paymentMethod: 'pix', amount: 100 }));
    assert.equal(missing.kind, 'not_found');
    const invalid = await failure(pagarmeAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4242424242424241' } })));
    assert.equal(invalid.kind, 'invalid_request');
    assert.equal(invalid.info.status, 422);
    assert.ok(!JSON.stringify(invalid.info.body).includes('4242424242424241'), 'the emulator echoes the request without the card number');
  });

  test('an injected 500 is http_5xx; the same idempotency key replays the first result', async () => {
    await h.control.fault('pagarme', 'http500');
    const f = await failure(pagarmeAdapter.createCharge(ctx(), charge()));
    assert.equal(f.kind, 'http_5xx');
    const c = ctx();
    const first = await pagarmeAdapter.createCharge(c, charge());
    const replay = await pagarmeAdapter.createCharge(c, charge());
    assert.equal(replay.normalized.externalId, first.normalized.externalId);
  });
});

describe('pagarme emulator', () => {
  test('what the real API refuses: debit without 3-D Secure and boleto without address are 422; pix without a phone fails with 412', async () => {
    const debit = await failure(pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'debit_card' })));
    assert.equal(debit.kind, 'invalid_request');
    assert.equal(debit.info.status, 422);
    assert.ok((debit.info.body as any).errors['order.payments[0].debit_card.authentication']);
    const { address: _a, ...noAddress } = CUSTOMER;
    const boleto = await failure(pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'boleto', creditCard: undefined, customer: noAddress, boleto: {} })));
    assert.equal(boleto.info.status, 422);
    assert.ok((boleto.info.body as any).errors['order.customer.address']);
    const { phone: _p, ...noPhone } = CUSTOMER;
    const pix = await pagarmeAdapter.createCharge(ctx(), charge({ paymentMethod: 'pix', creditCard: undefined, customer: noPhone }));
    assert.equal(pix.normalized.status, 'failed');
    assert.equal((pix.raw as any).charges[0].last_transaction.gateway_response.errors[0].message, 'At least one customer phone is required.');
  });

  test('token flow: a card token is single use and the order charges the tokenized card', async () => {
    const base = h.emulators.gatewayUrl('pagarme');
    const res = await fetch(`${base}/core/v5/tokens?appId=pk_test_abc`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'card', card: { number: '4000000000009995', holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123' } }),
    });
    const token = await res.json() as any;
    assert.equal(res.status, 200);
    assert.match(token.id, /^token_/);
    assert.equal(token.card.last_four_digits, '9995');
    const f = await failure(pagarmeAdapter.createCharge(ctx(), charge({ creditCard: { token: token.id } })));
    assert.equal(f.info.declineCode, 'insufficient_funds', 'the token stands for the declining card');
    const reused = await failure(pagarmeAdapter.createCharge(ctx(), charge({ creditCard: { token: token.id } })));
    assert.equal(reused.kind, 'not_found');
  });
});
