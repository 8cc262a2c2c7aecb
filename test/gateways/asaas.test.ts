import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { asaasAdapter, declineCodeOf } from '../../src/gateways/asaas/adapter';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { type CallContext, type ChargeOutcome, type NormalizedCharge } from '../../src/gateways/types';
import type { RecordedRequest } from '../../src/sandbox/control';
import { brazilDate } from '../helpers/dates';

const ADDRESS = { street: 'Av Paulista', number: '100', complement: 'conj 12', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310-100' };
const CUSTOMER = { name: 'Maria Souza', email: 'maria.souza@example.com', document: '123.456.789-09', phone: '(11) 98765-4321', address: ADDRESS };
const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 };
const PIX_FIELDS = ['pixQrCode', 'pixCopyPaste'] as const;
const BOLETO_FIELDS = ['boletoUrl', 'boletoBarcode'] as const;
const today = () => brazilDate(0);
const inDays = (n: number) => brazilDate(n);

// Later tests build on the customer the first test creates, so state is kept between tests.
const h = useGatewayHarness({ resetBetweenTests: false });
let customerId: string;

const ctx = (overrides: Partial<CallContext> = {}) => h.context('asaas', SANDBOX_CREDENTIALS.asaas, overrides);
const charge = (paymentMethod: NormalizedCharge['paymentMethod'], extra: Partial<NormalizedCharge> = {}): NormalizedCharge => ({
  paymentMethod, amount: 1999, currency: 'BRL', description: 'Pedido 1001', capture: true, customerId, customer: CUSTOMER, clientIp: '203.0.113.7',
  ...(paymentMethod.endsWith('_card') ? { creditCard: CARD } : {}),
  ...(paymentMethod === 'pix' ? { pix: { expiresInSeconds: 3600 } } : {}),
  ...(paymentMethod === 'boleto' ? { boleto: { dueDate: inDays(5), instructions: 'Não receber após o vencimento' } } : {}),
  ...extra,
});
const ref = (outcome: ChargeOutcome, pm: NormalizedCharge['paymentMethod'], amount = 1999) => ({ externalId: outcome.normalized.externalId, paymentMethod: pm, amount });

/** Requests the emulator received while `run` ran. */
async function captured<T>(run: () => Promise<T>): Promise<{ result: T; calls: RecordedRequest[] }> {
  const before = (await h.control.requests('asaas')).length;
  const result = await run();
  return { result, calls: (await h.control.requests('asaas')).slice(before) };
}


/** Direct HTTP to the emulator, as a merchant's own Asaas client would talk to it. */
async function raw(method: string, path: string, body?: unknown, key: string | null = SANDBOX_CREDENTIALS.asaas.apiKey) {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (key !== null) headers.access_token = key; // null: no auth header at all
  const res = await fetch(`${h.emulators.gatewayUrl('asaas')}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() as any };
}

describe('asaas customers', () => {
  test('customer create sends cpfCnpj and mobilePhone as digits with the access_token header', async () => {
    const { result, calls } = await captured(() => asaasAdapter.createCustomer(ctx(), CUSTOMER));
    customerId = result.normalized.externalId;
    assert.match(customerId, /^cus_\d{12}$/);
    assert.deepEqual(result.normalized, { externalId: customerId, name: 'Maria Souza', email: 'maria.souza@example.com', document: '12345678909', phone: '11987654321' });
    assert.equal(calls.length, 1);
    assert.equal(calls[0].method, 'POST');
    assert.equal(calls[0].path, '/v3/customers');
    assert.deepEqual(calls[0].body, {
      name: 'Maria Souza', email: 'maria.souza@example.com', cpfCnpj: '12345678909', mobilePhone: '11987654321',
      address: 'Av Paulista', addressNumber: '100', complement: 'conj 12', province: 'Bela Vista', postalCode: '01310100',
    });
    assert.equal(calls[0].headers.access_token, SANDBOX_CREDENTIALS.asaas.apiKey);
    assert.equal(calls[0].headers.authorization, undefined);
    assert.equal((result.raw as any).personType, 'FISICA');
  });

  test('a CPF with wrong check digits is a 400 invalid_cpfCnpj (invalid_request)', async () => {
    const err = await failure(asaasAdapter.createCustomer(ctx(), { ...CUSTOMER, document: '12345678900' }));
    assert.equal(err.kind, 'invalid_request');
    assert.equal(err.info.status, 400);
    assert.equal((err.info.body as any).errors[0].code, 'invalid_cpfCnpj');
  });
});

describe('asaas charges', () => {
  for (const pm of ['credit_card'] as const) {
    test(`${pm} approves: value in reais, card and holder data, externalReference, no pix/boleto fields`, async () => {
      const c = ctx();
      const { result, calls } = await captured(() => asaasAdapter.createCharge(c, charge(pm)));
      const n = result.normalized;
      assert.match(n.externalId, /^pay_\d{12}$/);
      assert.equal(n.status, 'approved');
      assert.equal(n.amount, 1999);
      assert.equal(n.paidAmount, 1999);
      assert.equal(n.refundedAmount, 0);
      assert.equal(n.currency, 'BRL');
      assert.equal(n.paymentMethod, pm);
      assert.equal(n.captured, true);
      for (const f of [...PIX_FIELDS, ...BOLETO_FIELDS]) assert.equal(n[f], undefined, f);
      assert.equal(calls.length, 1, 'no extra call for cards');
      const sent = calls[0];
      assert.equal(sent.path, '/v3/payments');
      assert.equal(sent.headers['idempotency-key'], undefined, 'Asaas has no idempotency header');
      const body = sent.body as any;
      assert.equal(body.customer, customerId);
      assert.equal(body.billingType, 'CREDIT_CARD');
      assert.equal(body.value, 19.99);
      assert.equal(body.dueDate, today());
      assert.equal(body.description, 'Pedido 1001');
      assert.equal(body.externalReference, c.chargeId);
      assert.equal(body.authorizeOnly, undefined);
      assert.equal(body.installmentCount, undefined);
      assert.deepEqual(body.creditCard, { holderName: 'MARIA SOUZA', number: CARD.number, expiryMonth: '12', expiryYear: '2030', ccv: '123' });
      assert.deepEqual(body.creditCardHolderInfo, {
        name: 'Maria Souza', email: 'maria.souza@example.com', cpfCnpj: '12345678909', postalCode: '01310100', addressNumber: '100',
        addressComplement: 'conj 12', phone: '11987654321', mobilePhone: '11987654321',
      });
      assert.equal(body.remoteIp, '203.0.113.7', 'remoteIp is the client IP');
      assert.deepEqual(n.card, { brand: 'visa', last4: '4242' });
      const rawCard = (result.raw as any).creditCard;
      assert.equal(rawCard.creditCardNumber, '4242');
      assert.ok(!JSON.stringify(result.raw).includes(CARD.number), 'the emulator never echoes the full card number');
    });
  }

  test('installments go out as installmentCount + totalValue; 1099 cents is 10.99', async () => {
    const { result, calls } = await captured(() => asaasAdapter.createCharge(ctx(), charge('credit_card', { amount: 1099, creditCard: { ...CARD, installments: 3 } })));
    assert.equal(result.normalized.amount, 1099);
    const body = calls[0].body as any;
    assert.equal(body.value, 10.99);
    assert.equal(body.installmentCount, 3);
    assert.equal(body.totalValue, 10.99);
    assert.equal(typeof result.normalized.refs?.installmentId, 'string');
  });

  test('pix is pending with the QR image and copy-paste code from the second call, no boleto fields', async () => {
    const { result, calls } = await captured(() => asaasAdapter.createCharge(ctx(), charge('pix', { amount: 1099, pix: { expiresInSeconds: 86_400 } })));
    const n = result.normalized;
    assert.equal(n.status, 'pending');
    assert.equal(n.amount, 1099);
    assert.equal(n.paidAmount, 0);
    assert.equal(n.captured, undefined);
    assert.match(n.pixCopyPaste!, /^000201.*5303986540510\.99.*6304[0-9A-F]{4}$/);
    assert.match(n.pixQrCode!, /^data:image\/png;base64,/);
    assert.ok(Buffer.from(n.pixQrCode!.slice('data:image/png;base64,'.length), 'base64').subarray(1, 4).toString() === 'PNG', 'pixQrCode is a PNG data URI');
    assert.ok(Date.parse(n.pix!.expiresAt!) > Date.now());
    for (const f of BOLETO_FIELDS) assert.equal(n[f], undefined);
    assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), ['POST /v3/payments', `GET /v3/payments/${n.externalId}/pixQrCode`]);
    const body = calls[0].body as any;
    assert.equal(body.billingType, 'PIX');
    assert.equal(body.value, 10.99);
    assert.equal(body.dueDate, inDays(1), 'a one-day pix expiry is due tomorrow');
    assert.equal(body.creditCard, undefined);
    assert.equal(body.creditCardHolderInfo, undefined);
  });

  test('boleto is pending with bankSlipUrl and the identificationField line (not nossoNumero); its hybrid pix under boleto, no top-level pix fields', async () => {
    const due = inDays(5);
    const { result, calls } = await captured(() => asaasAdapter.createCharge(ctx(), charge('boleto')));
    const n = result.normalized;
    assert.equal(n.status, 'pending');
    assert.match(n.boletoUrl!, /^https:\/\/sandbox\.asaas\.com\/b\/pdf\/\d+$/);
    assert.match(n.boletoBarcode!, /^\d{47}$/);
    assert.match(n.boletoBarcodeNumber!, /^\d{44}$/);
    assert.equal(n.boleto!.dueDate, due);
    for (const f of PIX_FIELDS) assert.equal(n[f], undefined);
    assert.equal((calls[0].body as any).dueDate, due);
    assert.equal((calls[0].body as any).billingType, 'BOLETO');
    assert.deepEqual(calls.slice(1).map((c) => c.path), [`/v3/payments/${n.externalId}/pixQrCode`, `/v3/payments/${n.externalId}/identificationField`]);
    const line = await raw('GET', `/v3/payments/${n.externalId}/identificationField`);
    assert.equal(n.boletoBarcode, line.body.identificationField);
    assert.equal(n.boletoBarcodeNumber, line.body.barCode);
    // An Asaas boleto is hybrid: the pix QR code Asaas answers for it is offered to the payer too.
    const qr = await raw('GET', `/v3/payments/${n.externalId}/pixQrCode`);
    assert.equal(qr.status, 200);
    assert.match(qr.body.payload, /^000201/);
    assert.equal(n.boleto!.pixCopyPaste, qr.body.payload);
    assert.equal(n.boleto!.pixQrCode, `data:image/png;base64,${qr.body.encodedImage}`);
  });

  test('every decline card is a 400 invalid_creditCard the adapter reads back as its decline code; nothing is stored', async () => {
    const cards: Array<[string, string]> = [
      ['4000000000000002', 'card_declined'], ['4000000000009995', 'insufficient_funds'], ['4000000000000069', 'expired_card'],
      ['4000000000000127', 'incorrect_cvc'], ['4000000000000119', 'processing_error'], ['5184019740373151', 'card_declined'],
    ];
    for (const [number, code] of cards) {
      const c = ctx();
      const err = await failure(asaasAdapter.createCharge(c, charge('credit_card', { creditCard: { ...CARD, number } })));
      assert.equal(err.kind, 'decline', number);
      assert.equal(err.info.declineCode, code, number);
      assert.equal(err.info.status, 400);
      assert.equal((err.info.body as any).errors[0].code, 'invalid_creditCard');
      assert.ok(!err.message.includes(number), 'no card number in the message');
      const stored = await raw('GET', `/v3/payments?externalReference=${c.chargeId}`);
      assert.equal(stored.body.totalCount, 0, 'a declined payment is not persisted');
    }
  });

  test('an expired expiry date declines as expired_card; a Luhn-invalid number is a validation error, not a decline', async () => {
    const expired = await failure(asaasAdapter.createCharge(ctx(), charge('credit_card', { creditCard: { ...CARD, expYear: 2020 } })));
    assert.equal(expired.kind, 'decline');
    assert.equal(expired.info.declineCode, 'expired_card');
    const luhn = await failure(asaasAdapter.createCharge(ctx(), charge('credit_card', { creditCard: { ...CARD, number: '4242424242424241' } })));
    assert.equal(luhn.kind, 'invalid_request');
    assert.equal(luhn.info.status, 400);
    assert.equal((luhn.info.body as any).errors[0].code, 'invalid_creditCard');
  });

  test('the card token from an approved payment charges again without card data', async () => {
    const first = await asaasAdapter.createCharge(ctx(), charge('credit_card'));
    const token = (first.raw as any).creditCard.creditCardToken;
    const { result, calls } = await captured(() => asaasAdapter.createCharge(ctx(), charge('credit_card', { creditCard: { token } })));
    assert.equal(result.normalized.status, 'approved');
    assert.equal((calls[0].body as any).creditCardToken, token);
    assert.equal((calls[0].body as any).creditCard, undefined);
  });

  test('no customer, an unknown customer, or another currency never becomes a payment', async () => {
    const none = await failure(asaasAdapter.createCharge(ctx(), charge('pix', { customerId: undefined })));
    assert.equal(none.kind, 'unsupported');
    assert.match(none.message, /customer/);
    const unknown = await failure(asaasAdapter.createCharge(ctx(), charge('pix', { customerId: 'cus_000000000000' })));
    assert.equal(unknown.kind, 'invalid_request');
    assert.equal((unknown.info.body as any).errors[0].code, 'invalid_customer');
    const usd = await failure(asaasAdapter.createCharge(ctx(), charge('pix', { currency: 'USD' })));
    assert.equal(usd.kind, 'unsupported');
  });
});

describe('asaas follow-ups', () => {
  test('pre-authorization: AUTHORIZED is approved uncaptured, capture confirms the whole amount', async () => {
    const { result: auth, calls } = await captured(() => asaasAdapter.createCharge(ctx(), charge('credit_card', { capture: false })));
    assert.equal((calls[0].body as any).authorizeOnly, true);
    assert.equal((auth.raw as any).status, 'AUTHORIZED');
    assert.equal(auth.normalized.status, 'approved');
    assert.equal(auth.normalized.captured, false);
    assert.equal(auth.normalized.paidAmount, 0);
    const partial = await failure(asaasAdapter.captureCharge(ctx(), ref(auth, 'credit_card'), 1000));
    assert.equal(partial.kind, 'unsupported');
    const { result: cap, calls: capCalls } = await captured(() => asaasAdapter.captureCharge(ctx(), ref(auth, 'credit_card')));
    assert.equal(capCalls[0].path, `/v3/payments/${auth.normalized.externalId}/captureAuthorizedPayment`);
    assert.equal((cap.raw as any).status, 'CONFIRMED');
    assert.equal(cap.normalized.status, 'approved');
    assert.equal(cap.normalized.captured, true);
    assert.equal(cap.normalized.paidAmount, 1999);
    const again = await failure(asaasAdapter.captureCharge(ctx(), ref(auth, 'credit_card')));
    assert.equal(again.kind, 'invalid_request');
    assert.equal((again.info.body as any).errors[0].code, 'invalid_action');
  });

  test('cancelling a pre-authorization releases it through the refund endpoint', async () => {
    const auth = await asaasAdapter.createCharge(ctx(), charge('credit_card', { capture: false }));
    const { result, calls } = await captured(() => asaasAdapter.cancelCharge(ctx(), ref(auth, 'credit_card')));
    assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), [`POST /v3/payments/${auth.normalized.externalId}/refund`]);
    assert.equal(result.normalized.status, 'cancelled');
    assert.equal(result.normalized.paidAmount, 0);
    assert.equal(result.normalized.refundedAmount, 0);
    assert.equal(result.normalized.captured, false);
  });

  test('cancelling a pending pix deletes it and reads it back as cancelled', async () => {
    const pix = await asaasAdapter.createCharge(ctx(), charge('pix'));
    const { result, calls } = await captured(() => asaasAdapter.cancelCharge(ctx(), ref(pix, 'pix')));
    assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), [`DELETE /v3/payments/${pix.normalized.externalId}`, `GET /v3/payments/${pix.normalized.externalId}`]);
    assert.equal(result.normalized.status, 'cancelled');
    assert.equal((result.raw as any).deleted, true);
    assert.equal((await asaasAdapter.retrieveCharge(ctx(), ref(pix, 'pix'))).normalized.status, 'cancelled');
    const twice = await failure(asaasAdapter.cancelCharge(ctx(), ref(pix, 'pix')));
    assert.equal(twice.kind, 'invalid_request');
  });

  test('partial then full card refund: value in reais, refundedAmount and status follow', async () => {
    const paid = await asaasAdapter.createCharge(ctx(), charge('credit_card'));
    const { result: partial, calls } = await captured(() => asaasAdapter.refundCharge(ctx(), ref(paid, 'credit_card'), 500));
    assert.equal(calls[0].path, `/v3/payments/${paid.normalized.externalId}/refund`);
    assert.equal((calls[0].body as any).value, 5);
    assert.equal((partial.raw as any).status, 'CONFIRMED');
    assert.equal(partial.normalized.status, 'approved');
    assert.equal(partial.normalized.refundedAmount, 500);
    const over = await failure(asaasAdapter.refundCharge(ctx(), ref(paid, 'credit_card'), 1500));
    assert.equal(over.kind, 'invalid_request');
    assert.equal((over.info.body as any).errors[0].code, 'invalid_value');
    const { result: rest, calls: restCalls } = await captured(() => asaasAdapter.refundCharge(ctx(), ref(paid, 'credit_card')));
    assert.equal((restCalls[0].body as any).value, undefined, 'no value refunds what remains');
    assert.equal((rest.raw as any).status, 'REFUNDED');
    assert.equal(rest.normalized.status, 'refunded');
    assert.equal(rest.normalized.refundedAmount, 1999);
    assert.equal(rest.normalized.paidAmount, 1999);
  });

  test('a pix paid in the sandbox (confirm action) is approved and can be partially refunded', async () => {
    const pix = await asaasAdapter.createCharge(ctx(), charge('pix', { amount: 1099 }));
    const confirm = await raw('POST', `/v3/sandbox/payment/${pix.normalized.externalId}/confirm`);
    assert.equal(confirm.body.status, 'RECEIVED');
    const { result: paid, calls } = await captured(() => asaasAdapter.retrieveCharge(ctx(), ref(pix, 'pix', 1099)));
    assert.equal(calls.length, 1, 'no QR call once paid');
    assert.equal(paid.normalized.status, 'approved');
    assert.equal(paid.normalized.paidAmount, 1099);
    const refunded = await asaasAdapter.refundCharge(ctx(), ref(pix, 'pix', 1099), 99);
    assert.equal(refunded.normalized.status, 'approved');
    assert.equal(refunded.normalized.refundedAmount, 99);
  });

  test('a pending boleto cannot be refunded at the gateway; the adapter refuses boleto refunds up front', async () => {
    const boleto = await asaasAdapter.createCharge(ctx(), charge('boleto'));
    const refused = await raw('POST', `/v3/payments/${boleto.normalized.externalId}/refund`, {});
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errors[0].code, 'invalid_action');
    const err = await failure(asaasAdapter.refundCharge(ctx(), ref(boleto, 'boleto')));
    assert.equal(err.kind, 'unsupported');
  });
});

describe('asaas failures and capabilities', () => {
  test('a key containing "invalid" is 401 auth, and the key is not echoed', async () => {
    const bad = h.context('asaas', { apiKey: 'invalid_$aact_sandbox_routegate_0003' });
    const err = await failure(asaasAdapter.createCustomer(bad, CUSTOMER));
    assert.equal(err.kind, 'auth');
    assert.equal(err.info.status, 401);
    assert.equal((err.info.body as any).errors[0].code, 'invalid_access_token');
    assert.ok(!JSON.stringify(err.info.body).includes('$aact_'));
    const missing = await failure(asaasAdapter.createCharge(h.context('asaas', {}), charge('pix')));
    assert.equal(missing.kind, 'auth');
  });

  test('an unknown payment id is not_found', async () => {
    const err = await failure(asaasAdapter.retrieveCharge(ctx(), { externalId: 'pay_000000000000', paymentMethod: 'pix', amount: 1999 }));
    assert.equal(err.kind, 'not_found');
    assert.equal(err.info.status, 404);
  });

  test('an injected 500 is http_5xx', async () => {
    await h.control.fault('asaas', 'http500');
    const err = await failure(asaasAdapter.createCharge(ctx(), charge('credit_card')));
    assert.equal(err.kind, 'http_5xx');
    assert.equal(err.info.status, 500);
  });

  test('capabilities: a customer on every charge, no capture for pix/boleto, no boleto refunds', () => {
    const caps = asaasAdapter.capabilities;
    for (const pm of ['credit_card', 'boleto', 'pix'] as const) assert.deepEqual(caps[pm].charge, { needs: 'customerId' });
    assert.equal(caps.debit_card.charge, 'unsupported', 'the API refuses billingType DEBIT_CARD');
    assert.equal(caps.customer, 'supported');
    assert.equal(caps.credit_card.capture, 'supported');
    assert.equal(caps.pix.capture, 'unsupported');
    assert.equal(caps.pix.partial_refund, 'supported');
    assert.equal(caps.boleto.refund, 'unsupported');
    assert.equal(caps.boleto.partial_refund, 'unsupported');
    assert.equal(asaasAdapter.amountUnit, 'major');
  });

  test('decline descriptions map to the normalized codes', () => {
    assert.equal(declineCodeOf('Transação não autorizada. Verifique os dados do cartão de crédito e tente novamente.'), 'card_declined');
    assert.equal(declineCodeOf('Transação negada: limite insuficiente'), 'insufficient_funds');
    assert.equal(declineCodeOf('Cartão expirado'), 'expired_card');
    assert.equal(declineCodeOf('CVV inválido'), 'incorrect_cvc');
    assert.equal(declineCodeOf('Não foi possível processar a transação: emissor indisponível'), 'processing_error');
  });
});

describe('asaas emulator over HTTP', () => {
  test('auth errors: missing header, a key with "invalid", a key that is not an Asaas key', async () => {
    const missing = await raw('GET', '/v3/payments/pay_1', undefined, null);
    assert.equal(missing.status, 401);
    assert.equal(missing.body.errors[0].code, 'access_token_not_found');
    const invalid = await raw('GET', '/v3/payments/pay_1', undefined, '$aact_invalid');
    assert.deepEqual(invalid.body, { errors: [{ code: 'invalid_access_token', description: 'A chave de API fornecida é inválida.' }] });
    const format = await raw('GET', '/v3/payments/pay_1', undefined, 'Bearer abc');
    assert.equal(format.status, 401);
    assert.equal(format.body.errors[0].code, 'invalid_access_token_format');
  });

  test('validation errors list every missing field in Asaas\' errors array', async () => {
    const res = await raw('POST', '/v3/payments', {});
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors.map((e: { code: string }) => e.code), ['invalid_customer', 'invalid_billingType', 'invalid_value', 'invalid_dueDate']);
    const past = await raw('POST', '/v3/payments', { customer: customerId, billingType: 'PIX', value: 10, dueDate: '2020-01-01' });
    assert.equal(past.body.errors[0].code, 'invalid_dueDate');
  });

  test('unknown ids are 404 with Asaas\' error body; the test card 4444 4444 4444 4444 approves', async () => {
    const res = await raw('GET', '/v3/payments/pay_000000000000');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'not_found');
    const ok = await raw('POST', '/v3/payments', {
      customer: customerId, billingType: 'CREDIT_CARD', value: 10.99, dueDate: today(),
      creditCard: { holderName: 'MARIA', number: '4444444444444444', expiryMonth: '05', expiryYear: '2030', ccv: '123' },
      creditCardHolderInfo: { name: 'Maria Souza', email: 'maria@example.com', cpfCnpj: '12345678909', postalCode: '01310100', addressNumber: '100', phone: '11987654321' },
      remoteIp: '203.0.113.10',
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, 'CONFIRMED');
    assert.equal(ok.body.value, 10.99);
    assert.deepEqual(Object.keys(ok.body.creditCard), ['creditCardNumber', 'creditCardBrand', 'creditCardToken']);
    const status = await raw('GET', `/v3/payments/${ok.body.id}/status`);
    assert.deepEqual(status.body, { status: 'CONFIRMED' });
  });

  test('reset clears payments and customers', async () => {
    await h.control.reset();
    const res = await raw('GET', `/v3/customers/${customerId}`);
    assert.equal(res.status, 404);
  });
});
