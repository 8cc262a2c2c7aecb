import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { mercadopagoAdapter } from '../../src/gateways/mercadopago/adapter';
import { type ChargeRef, type NormalizedCharge } from '../../src/gateways/types';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { DECLINES } from '../helpers/e2e';

// The Mercado Pago adapter driven directly against the Mercado Pago emulator over real HTTP.

const h = useGatewayHarness();

const TOKEN = SANDBOX_CREDENTIALS.mercadopago.accessToken;
const WEBHOOK = 'https://pay.example.com/api/v1/webhooks/mercadopago/wh_test';
const ctx = (credentials = SANDBOX_CREDENTIALS.mercadopago) => h.context('mercadopago', credentials, { webhookUrl: WEBHOOK });
const ADDRESS = { street: 'Av Paulista', number: '100', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310-100' };
const CUSTOMER = { name: 'Maria da Silva Souza', email: 'maria@example.com', document: '123.456.789-09', phone: '11987654321', address: ADDRESS };
const CARD = { number: '4235647728025682', holderName: 'MARIA SOUZA', expMonth: 11, expYear: 2030, cvv: '123', installments: 3 };
const charge = (over: Partial<NormalizedCharge> = {}): NormalizedCharge => ({
  paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', capture: true, description: 'Pedido 1001', customer: CUSTOMER, creditCard: CARD, ...over,
});
const refOf = (out: { normalized: { externalId: string } }, paymentMethod: ChargeRef['paymentMethod'] = 'credit_card', amount = 1999): ChargeRef =>
  ({ externalId: out.normalized.externalId, paymentMethod, amount });


/** Direct HTTP to the emulator, for behaviour the adapter never shows. */
async function mp(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const res = await fetch(`${h.emulators.gatewayUrl('mercadopago')}${path}`, {
    method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

/** CRC16-CCITT of a BR Code without its last four characters. */
function emvCrcValid(emv: string): boolean {
  let crc = 0xffff;
  for (const byte of Buffer.from(emv.slice(0, -4))) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0') === emv.slice(-4);
}

describe('mercadopago adapter against the emulator', () => {
  test('credit card: tokenized first, then the payment in reais with Bearer auth and X-Idempotency-Key', async () => {
    const c = ctx();
    const out = await mercadopagoAdapter.createCharge(c, charge());
    assert.equal(out.normalized.status, 'approved');
    assert.equal(out.normalized.amount, 1999);
    assert.equal(out.normalized.paidAmount, 1999);
    assert.equal(out.normalized.refundedAmount, 0);
    assert.equal(out.normalized.currency, 'BRL');
    assert.equal(out.normalized.paymentMethod, 'credit_card');
    assert.equal(out.normalized.captured, true);
    assert.match(out.normalized.externalId, /^\d{10}$/);
    for (const f of ['pixQrCode', 'pixCopyPaste', 'boletoUrl', 'boletoBarcode', 'declineCode'] as const) assert.equal(out.normalized[f], undefined, f);
    assert.equal((out.raw as any).status_detail, 'accredited');
    assert.equal(typeof (out.raw as any).id, 'number', 'MP payment ids are JSON numbers');

    const [tokenCall, paymentCall, ...rest] = await h.control.requests('mercadopago');
    assert.equal(rest.length, 0);
    assert.equal(tokenCall.method, 'POST');
    assert.equal(tokenCall.path, '/v1/card_tokens');
    assert.deepEqual(tokenCall.body, {
      card_number: CARD.number, expiration_month: '11', expiration_year: '2030', security_code: '123',
      cardholder: { name: 'MARIA SOUZA', identification: { type: 'CPF', number: '12345678909' } },
    });
    assert.equal(paymentCall.method, 'POST');
    assert.equal(paymentCall.path, '/v1/payments');
    assert.equal(paymentCall.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(paymentCall.headers['x-idempotency-key'], c.idempotencyKey);
    assert.equal(paymentCall.headers['content-type'], 'application/json');
    const body = paymentCall.body as any;
    assert.match(body.token, /^[0-9a-f]{32}$/);
    assert.deepEqual({ ...body, token: 'T' }, {
      transaction_amount: 19.99, description: 'Pedido 1001', payment_method_id: 'visa', token: 'T', installments: 3, capture: true,
      external_reference: c.chargeId, metadata: { routegate_charge_id: c.chargeId }, notification_url: `${WEBHOOK}?source_news=webhooks`,
      payer: {
        email: 'maria@example.com', first_name: 'Maria', last_name: 'da Silva Souza', identification: { type: 'CPF', number: '12345678909' },
        phone: { area_code: '11', number: '987654321' },
      },
    });
    assert.ok(!JSON.stringify(paymentCall.body).includes(CARD.number), 'the card number only goes to the token call');
    assert.ok(!JSON.stringify(out.raw).includes(CARD.number), 'the payment carries only first six / last four');
    assert.equal((out.raw as any).card.last_four_digits, '5682');
  });

  test('debit card goes as debvisa and normalizes as debit_card; 1099 cents is 10.99', async () => {
    const out = await mercadopagoAdapter.createCharge(ctx(), charge({ paymentMethod: 'debit_card', amount: 1099 }));
    assert.equal(out.normalized.paymentMethod, 'debit_card');
    assert.equal(out.normalized.amount, 1099);
    assert.equal(out.normalized.status, 'approved');
    const sent = (await h.control.lastRequest('mercadopago'))!.body as any;
    assert.equal(sent.payment_method_id, 'debvisa');
    assert.equal(sent.transaction_amount, 10.99);
    assert.equal((out.raw as any).payment_type_id, 'debit_card');
  });

  test('a given card token skips tokenization and uses paymentMethodId', async () => {
    const out = await mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { token: 'ff8080814c11e237014c1ff593b57b4d', paymentMethodId: 'master', installments: 1 } }));
    assert.equal(out.normalized.status, 'approved');
    const calls = await h.control.requests('mercadopago');
    assert.deepEqual(calls.map((r) => r.path), ['/v1/payments']);
    assert.equal((calls[0].body as any).token, 'ff8080814c11e237014c1ff593b57b4d');
    assert.equal((calls[0].body as any).payment_method_id, 'master');
  });

  test('pix: pending with base64 QR image and a well-formed copy-and-paste code, no boleto fields', async () => {
    const before = Date.now();
    const out = await mercadopagoAdapter.createCharge(ctx(), charge({ paymentMethod: 'pix', creditCard: undefined, pix: { expiresInSeconds: 3600 } }));
    assert.equal(out.normalized.status, 'pending');
    assert.equal(out.normalized.paidAmount, 0);
    assert.equal(out.normalized.paymentMethod, 'pix');
    assert.equal(out.normalized.captured, undefined);
    assert.match(out.normalized.pixQrCode!, /^data:image\/png;base64,/, 'qr_code_base64 becomes an image data URI');
    assert.ok(Buffer.from(out.normalized.pixQrCode!.slice(22), 'base64').subarray(1, 4).toString() === 'PNG', 'qr_code_base64 is a PNG');
    assert.match(out.normalized.pixCopyPaste!, /^000201.*br\.gov\.bcb\.pix.*540519\.99/);
    assert.ok(emvCrcValid(out.normalized.pixCopyPaste!), 'CRC16 of the EMV code');
    assert.equal(out.normalized.boletoUrl, undefined);
    assert.equal(out.normalized.boletoBarcode, undefined);
    assert.equal((out.raw as any).status_detail, 'pending_waiting_transfer');
    const sent = (await h.control.lastRequest('mercadopago'))!.body as any;
    assert.equal(sent.payment_method_id, 'pix');
    assert.equal(sent.token, undefined);
    assert.equal(sent.installments, undefined);
    assert.match(sent.date_of_expiration, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-03:00$/);
    const expiresIn = Date.parse(sent.date_of_expiration) - before;
    assert.ok(expiresIn > 3590_000 && expiresIn < 3610_000, `expiry ${expiresIn} ms`);
  });

  test('boleto: bolbradesco, pending with ticket URL and the 47-digit digitable line, no pix fields', async () => {
    const out = await mercadopagoAdapter.createCharge(ctx(), charge({ paymentMethod: 'boleto', creditCard: undefined, boleto: { dueDate: '2030-01-10', instructions: 'x' } }));
    assert.equal(out.normalized.status, 'pending');
    assert.equal(out.normalized.paymentMethod, 'boleto');
    assert.match(out.normalized.boletoUrl!, /^https:\/\/www\.mercadopago\.com\.br\/payments\/\d+\/ticket\?/);
    assert.match(out.normalized.boletoBarcode!, /^2379\d{43}$/);
    assert.equal(out.normalized.pixQrCode, undefined);
    assert.equal(out.normalized.pixCopyPaste, undefined);
    const raw = out.raw as any;
    assert.match(raw.barcode.content, /^2379\d{40}$/);
    assert.ok(raw.barcode.content.endsWith('0000001999' + raw.barcode.content.slice(19)), 'amount in the barcode');
    const sent = (await h.control.lastRequest('mercadopago'))!.body as any;
    assert.equal(sent.payment_method_id, 'bolbradesco');
    assert.equal(sent.date_of_expiration, '2030-01-10T23:59:59.000-03:00');
  });

  test('the five decline cards: HTTP 201 rejected with status_detail -> decline failures with the normalized code', async () => {
    const details: Record<string, string> = {
      card_declined: 'cc_rejected_other_reason', insufficient_funds: 'cc_rejected_insufficient_amount', expired_card: 'cc_rejected_bad_filled_date',
      incorrect_cvc: 'cc_rejected_bad_filled_security_code', processing_error: 'cc_rejected_time_out',
    };
    for (const [number, code] of DECLINES) {
      const f = await failure(mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number } })));
      assert.equal(f.kind, 'decline', number);
      assert.equal(f.info.declineCode, code, number);
      assert.equal(f.info.status, 201, 'Mercado Pago declines with HTTP 201');
      assert.equal((f.info.body as any).status, 'rejected');
      assert.equal((f.info.body as any).status_detail, details[code]);
      assert.equal(f.message, details[code]);
      assert.equal(f.info.normalized?.status, 'declined');
      assert.match(f.info.normalized!.externalId, /^\d+$/);
    }
  });

  test("Mercado Pago's cardholder-name test conventions decide the outcome", async () => {
    const outcomes: Array<[string, string]> = [['OTHE', 'card_declined'], ['FUND', 'insufficient_funds'], ['SECU', 'incorrect_cvc'], ['EXPI', 'expired_card'], ['CALL', 'card_declined']];
    for (const [holderName, code] of outcomes) {
      const f = await failure(mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, holderName } })));
      assert.equal(f.info.declineCode, code, holderName);
    }
    const cont = await mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, holderName: 'CONT' } }));
    assert.equal(cont.normalized.status, 'processing');
    assert.equal((cont.raw as any).status_detail, 'pending_contingency');
    const apro = await mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '5031433215406351', holderName: 'APRO' } }));
    assert.equal(apro.normalized.status, 'approved');
    assert.equal((apro.raw as any).payment_method_id, 'master');
  });

  test('pre-authorization: authorized -> approved uncaptured; capture PUT sets captured and paidAmount', async () => {
    const created = await mercadopagoAdapter.createCharge(ctx(), charge({ capture: false }));
    assert.equal(((await h.control.lastRequest('mercadopago'))!.body as any).capture, false);
    assert.equal((created.raw as any).status, 'authorized');
    assert.equal(created.normalized.status, 'approved');
    assert.equal(created.normalized.captured, false);
    assert.equal(created.normalized.paidAmount, 0);
    const c = ctx();
    const captured = await mercadopagoAdapter.captureCharge(c, refOf(created));
    assert.equal(captured.normalized.status, 'approved');
    assert.equal(captured.normalized.captured, true);
    assert.equal(captured.normalized.paidAmount, 1999);
    const call = (await h.control.lastRequest('mercadopago'))!;
    assert.equal(call.method, 'PUT');
    assert.equal(call.path, `/v1/payments/${created.normalized.externalId}`);
    assert.deepEqual(call.body, { capture: true });
    assert.equal(call.headers['x-idempotency-key'], `${c.idempotencyKey}-capture`);
  });

  test('partial capture sends transaction_amount in reais and releases the rest', async () => {
    const created = await mercadopagoAdapter.createCharge(ctx(), charge({ capture: false }));
    const captured = await mercadopagoAdapter.captureCharge(ctx(), refOf(created), 1500);
    assert.deepEqual((await h.control.lastRequest('mercadopago'))!.body, { capture: true, transaction_amount: 15 });
    assert.equal(captured.normalized.paidAmount, 1500);
    assert.equal(captured.normalized.amount, 1500);
  });

  test('cancel voids a pre-authorization; capturing it afterwards is an invalid_request (2063)', async () => {
    const created = await mercadopagoAdapter.createCharge(ctx(), charge({ capture: false }));
    const cancelled = await mercadopagoAdapter.cancelCharge(ctx(), refOf(created));
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal(cancelled.normalized.captured, false);
    assert.equal(cancelled.normalized.refundedAmount, 0);
    assert.deepEqual((await h.control.lastRequest('mercadopago'))!.body, { status: 'cancelled' });
    assert.equal((cancelled.raw as any).status_detail, 'by_collector');
    const f = await failure(mercadopagoAdapter.captureCharge(ctx(), refOf(created)));
    assert.equal(f.kind, 'invalid_request');
    assert.equal(f.info.status, 400);
    assert.match(f.message, /2063/);
  });

  test('partial then full refund: the payment is re-read; approved/partially_refunded, then refunded', async () => {
    const created = await mercadopagoAdapter.createCharge(ctx(), charge());
    const c1 = ctx();
    const partial = await mercadopagoAdapter.refundCharge(c1, refOf(created), 500);
    assert.equal(partial.normalized.status, 'approved');
    assert.equal(partial.normalized.refundedAmount, 500);
    assert.equal(partial.normalized.paidAmount, 1999);
    assert.equal((partial.raw as any).status_detail, 'partially_refunded');
    assert.deepEqual(partial.refund, { refundId: String((partial.raw as any).refunds[0].id), amount: 500, status: 'succeeded', gatewayStatus: 'approved' });
    const calls = (await h.control.requests('mercadopago')).slice(-2);
    assert.deepEqual(calls.map((r) => `${r.method} ${r.path}`), [
      `POST /v1/payments/${created.normalized.externalId}/refunds`, `GET /v1/payments/${created.normalized.externalId}`,
    ]);
    assert.deepEqual(calls[0].body, { amount: 5 });
    assert.equal(calls[0].headers['x-idempotency-key'], `${c1.idempotencyKey}-refund`);

    const full = await mercadopagoAdapter.refundCharge(ctx(), refOf(created));
    assert.equal(full.normalized.status, 'refunded');
    assert.equal(full.normalized.refundedAmount, 1999);
    assert.deepEqual((await h.control.requests('mercadopago')).slice(-2)[0].body, {});
    assert.deepEqual((full.raw as any).refunds.map((r: any) => r.amount), [5, 14.99]);
    assert.equal(full.refund?.amount, 1499);
    assert.notEqual(full.refund?.refundId, partial.refund?.refundId);

    const over = await failure(mercadopagoAdapter.refundCharge(ctx(), refOf(created), 100));
    assert.equal(over.kind, 'invalid_request');
    assert.match(over.message, /2063/);
  });

  test('a refund retried under the same key is not repeated and still reports the first refund', async () => {
    const created = await mercadopagoAdapter.createCharge(ctx(), charge());
    const c = ctx();
    const first = await mercadopagoAdapter.refundCharge(c, refOf(created), 300);
    const again = await mercadopagoAdapter.refundCharge(c, refOf(created), 300);
    assert.equal(again.normalized.refundedAmount, 300, 'refunded once');
    assert.deepEqual(again.refund, first.refund);
    assert.match(first.refund!.refundId!, /^\d+$/);
  });

  test('a pending pix can be cancelled; a paid one (sandbox hook) refunds', async () => {
    const pix = () => charge({ paymentMethod: 'pix', creditCard: undefined });
    const pending = await mercadopagoAdapter.createCharge(ctx(), pix());
    const cancelled = await mercadopagoAdapter.cancelCharge(ctx(), refOf(pending, 'pix'));
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal(cancelled.normalized.pixCopyPaste, pending.normalized.pixCopyPaste);

    const paid = await mercadopagoAdapter.createCharge(ctx(), pix());
    const hook = await mp('POST', `/__sandbox/payments/${paid.normalized.externalId}/pay`);
    assert.equal(hook.status, 200);
    const after = await mercadopagoAdapter.retrieveCharge(ctx(), refOf(paid, 'pix'));
    assert.equal(after.normalized.status, 'approved');
    assert.equal(after.normalized.paidAmount, 1999);
    const refunded = await mercadopagoAdapter.refundCharge(ctx(), refOf(paid, 'pix'), 1099);
    assert.equal(refunded.normalized.refundedAmount, 1099);
    assert.equal(refunded.normalized.status, 'approved');
  });

  test('capabilities: capture only for cards; customers supported', () => {
    assert.equal(mercadopagoAdapter.capabilities.pix.capture, 'unsupported');
    assert.equal(mercadopagoAdapter.capabilities.boleto.capture, 'unsupported');
    assert.equal(mercadopagoAdapter.capabilities.credit_card.capture, 'supported');
    assert.equal(mercadopagoAdapter.capabilities.pix.cancel, 'supported');
    assert.equal(mercadopagoAdapter.capabilities.customer, 'supported');
    assert.equal(mercadopagoAdapter.amountUnit, 'major');
  });

  test('customers: created with split name and phone; a duplicate e-mail answers with the existing one; payer by id', async () => {
    const out = await mercadopagoAdapter.createCustomer(ctx(), CUSTOMER);
    assert.match(out.normalized.externalId, /^\d{10}-[A-Za-z0-9]{14}$/);
    assert.deepEqual({ ...out.normalized, externalId: 'X' }, {
      externalId: 'X', name: 'Maria da Silva Souza', email: 'maria@example.com', document: '12345678909', phone: '11987654321',
    });
    const sent = (await h.control.lastRequest('mercadopago'))!;
    assert.equal(sent.path, '/v1/customers');
    assert.deepEqual(sent.body, {
      email: 'maria@example.com', first_name: 'Maria', last_name: 'da Silva Souza',
      identification: { type: 'CPF', number: '12345678909' }, phone: { area_code: '11', number: '987654321' },
    });

    const again = await mercadopagoAdapter.createCustomer(ctx(), CUSTOMER);
    assert.equal(again.normalized.externalId, out.normalized.externalId);
    const calls = (await h.control.requests('mercadopago')).slice(-2);
    assert.deepEqual(calls.map((r) => `${r.method} ${r.path}`), ['POST /v1/customers', 'GET /v1/customers/search?email=maria%40example.com']);

    // A pix with only customerId: the payer is the stored customer (its e-mail satisfies pix).
    const pix = await mercadopagoAdapter.createCharge(ctx(), charge({ paymentMethod: 'pix', creditCard: undefined, customer: undefined, customerId: out.normalized.externalId }));
    assert.equal(pix.normalized.status, 'pending');
    assert.deepEqual(((await h.control.lastRequest('mercadopago'))!.body as any).payer, { type: 'customer', id: out.normalized.externalId });
    assert.equal((pix.raw as any).payer.email, 'maria@example.com');
  });

  test('a rejected access token is an auth failure with status 401 and MP message', async () => {
    const f = await failure(mercadopagoAdapter.createCharge(ctx({ ...SANDBOX_CREDENTIALS.mercadopago, accessToken: 'TEST-invalid-0004' }), charge({ paymentMethod: 'pix', creditCard: undefined })));
    assert.equal(f.kind, 'auth');
    assert.equal(f.info.status, 401);
    assert.equal(f.message, 'invalid access token');
    const missing = await failure(mercadopagoAdapter.createCharge(ctx({ webhookSecret: 'x' }), charge()));
    assert.equal(missing.kind, 'auth');
    assert.equal((await h.control.requests('mercadopago')).length, 1, 'no call without a token');
  });

  test('unknown payment is not_found; a Luhn-invalid card is invalid_request from the token call, never charged', async () => {
    const missing = await failure(mercadopagoAdapter.retrieveCharge(ctx(), { externalId: '999', paymentMethod: 'pix', amount: 100 }));
    assert.equal(missing.kind, 'not_found');
    assert.equal(missing.info.status, 404);
    assert.match(missing.message, /Payment not found/);
    const invalid = await failure(mercadopagoAdapter.createCharge(ctx(), charge({ creditCard: { ...CARD, number: '4235647728025683' } })));
    assert.equal(invalid.kind, 'invalid_request');
    assert.equal(invalid.info.status, 400);
    assert.ok(!invalid.info.ambiguous);
    assert.ok(!JSON.stringify(invalid.info.body).includes('4235647728025683'));
    assert.deepEqual((await h.control.requests('mercadopago')).filter((r) => r.path === '/v1/payments'), []);
    // A socket dying on the token call cannot have created a payment: not ambiguous.
    await h.control.fault('mercadopago', 'reset');
    const reset = await failure(mercadopagoAdapter.createCharge(ctx(), charge()));
    assert.equal(reset.kind, 'unreachable');
    assert.equal(reset.info.ambiguous, false);
  });

  test('an injected 500 is http_5xx; the same idempotency key replays the first payment', async () => {
    await h.control.fault('mercadopago', 'http500');
    const f = await failure(mercadopagoAdapter.createCharge(ctx(), charge({ paymentMethod: 'pix', creditCard: undefined })));
    assert.equal(f.kind, 'http_5xx');
    const c = ctx();
    const first = await mercadopagoAdapter.createCharge(c, charge());
    const replay = await mercadopagoAdapter.createCharge(c, charge({ amount: 5000 }));
    assert.equal(replay.normalized.externalId, first.normalized.externalId);
    assert.equal(replay.normalized.amount, 1999, 'the first result comes back even for another body');
  });
});

describe('mercadopago emulator', () => {
  const pixBody = { transaction_amount: 10.99, payment_method_id: 'pix', payer: { email: 'maria@example.com' } };

  test('auth errors: invalid token and missing header are 401 with MP bodies', async () => {
    const bad = await mp('GET', '/v1/payments/1', undefined, { authorization: 'Bearer TEST-invalid' });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.json, { message: 'invalid access token', error: 'unauthorized', status: 401, cause: [] });
    const none = await mp('POST', '/v1/payments', pixBody, {});
    assert.equal(none.status, 401);
    assert.equal(none.json.cause[0].code, 5);
  });

  test('X-Idempotency-Key is required before validation (4292); validation errors use MP codes', async () => {
    const noKey = await mp('POST', '/v1/payments', {}, { authorization: `Bearer ${TOKEN}` });
    assert.equal(noKey.status, 400);
    assert.deepEqual(noKey.json.cause.map((c: any) => c.code), [4292]);
    const key = (k: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-idempotency-key': k });
    const noAmount = await mp('POST', '/v1/payments', { payment_method_id: 'pix' }, key('k1'));
    assert.equal(noAmount.status, 400);
    assert.deepEqual(noAmount.json, { message: "transaction_amount attribute can't be null", error: 'bad_request', status: 400, cause: [{ code: 4002, description: "transaction_amount attribute can't be null", data: null }] });
    const noEmail = await mp('POST', '/v1/payments', { transaction_amount: 10, payment_method_id: 'pix' }, key('k2'));
    assert.equal(noEmail.json.cause[0].code, 4050);
    const badUrl = await mp('POST', '/v1/payments', { ...pixBody, notification_url: 'http://localhost/hook' }, key('k3'));
    assert.equal(badUrl.json.cause[0].code, 4020);
    const ok = await mp('POST', '/v1/payments', pixBody, key('k3'));
    assert.equal(ok.status, 201, 'a failed validation does not burn the key');
    const noInstallments = await mp('POST', '/v1/payments', { transaction_amount: 10, payment_method_id: 'visa', token: 'abc' }, key('k4'));
    assert.equal(noInstallments.json.cause[0].code, 4004);
  });

  test('card tokens are single use; a reused token is 400 cause 2062', async () => {
    const token = await mp('POST', '/v1/card_tokens', { card_number: '4235647728025682', expiration_month: 11, expiration_year: 2030, security_code: '123', cardholder: { name: 'APRO' } });
    assert.equal(token.status, 201);
    assert.match(token.json.id, /^[0-9a-f]{32}$/);
    assert.equal(token.json.last_four_digits, '5682');
    assert.ok(!token.text.includes('4235647728025682'));
    const body = { transaction_amount: 1, token: token.json.id, installments: 1 };
    const headers = (k: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-idempotency-key': k });
    const first = await mp('POST', '/v1/payments', body, headers('a'));
    assert.equal(first.status, 201);
    assert.equal(first.json.payment_method_id, 'visa', 'inferred from the token');
    const reused = await mp('POST', '/v1/payments', body, headers('b'));
    assert.equal(reused.status, 400);
    assert.equal(reused.json.cause[0].code, 2062);
  });

  test('refund replay under the same key is 200 with an empty body and no second refund', async () => {
    const headers = (k: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-idempotency-key': k });
    const created = await mercadopagoAdapter.createCharge(ctx(), charge());
    const path = `/v1/payments/${created.normalized.externalId}/refunds`;
    const first = await mp('POST', path, { amount: 2 }, headers('r1'));
    assert.equal(first.status, 201);
    assert.equal(first.json.amount, 2);
    assert.equal(first.json.payment_id, Number(created.normalized.externalId));
    const replay = await mp('POST', path, { amount: 2 }, headers('r1'));
    assert.equal(replay.status, 200);
    assert.equal(replay.text, '');
    const payment = await mp('GET', `/v1/payments/${created.normalized.externalId}`);
    assert.equal(payment.json.transaction_amount_refunded, 2);
    assert.equal(payment.json.refunds.length, 1);
    // The key is scoped to the endpoint: the same key on another payment is a new refund.
    const other = await mercadopagoAdapter.createCharge(ctx(), charge());
    const elsewhere = await mp('POST', `/v1/payments/${other.normalized.externalId}/refunds`, { amount: 2 }, headers('r1'));
    assert.equal(elsewhere.status, 201);
    assert.equal(elsewhere.json.payment_id, Number(other.normalized.externalId));
  });

  test('404 body for an unknown payment follows MP (cause 2000)', async () => {
    const res = await mp('GET', '/v1/payments/42');
    assert.equal(res.status, 404);
    assert.equal(res.json.message, 'Payment not found');
    assert.equal(res.json.error, 'not_found');
    assert.equal(res.json.status, 404);
    assert.equal(res.json.cause[0].code, 2000);
  });
});
