import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { pagbankAdapter as adapter } from '../../src/gateways/pagbank/adapter';
import { pagbankAmountUnit } from '../../src/gateways/pagbank/wire';
import { startEmulators } from '../../src/sandbox/emulators';
import { EmulatorControlClient } from '../../src/sandbox/control-client';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { type CallContext, type ChargeOutcome, type ChargeRef, type NormalizedCharge, type PaymentMethod } from '../../src/gateways/types';
import type { RecordedRequest } from '../../src/sandbox/control';

// The PagBank adapter driven directly against the emulator over real HTTP (shared/gateways/pagbank.md).
// Amounts on the wire are integer cents (PagBank's Orders API), the default of ROUTEGATE_PAGBANK_AMOUNT_UNIT;
// `reais` (SPEC.md's profile) is tested at the end against an emulator started with the same setting.

const h = useGatewayHarness();

const TOKEN = SANDBOX_CREDENTIALS.pagbank.token;
const ADDRESS = { street: 'Av Paulista', number: '100', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310100', country: 'BR' };
const CUSTOMER = { name: 'Maria Souza', email: 'maria.souza@example.com', document: '123.456.789-09', phone: '(11) 98765-4321', address: ADDRESS };
const WEBHOOK = 'https://pay.example.com/api/v1/webhooks/pagbank/wh_test';
const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 };
const PIX_FIELDS = ['pixQrCode', 'pixCopyPaste'] as const;
const BOLETO_FIELDS = ['boletoUrl', 'boletoBarcode'] as const;
const inThreeDays = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

const ctx = (overrides: Partial<CallContext> = {}) => h.context('pagbank', { ...SANDBOX_CREDENTIALS.pagbank }, { webhookUrl: WEBHOOK, ...overrides });

function charge(paymentMethod: PaymentMethod, extra: Partial<NormalizedCharge> = {}): NormalizedCharge {
  return {
    paymentMethod, amount: 1999, currency: 'BRL', description: 'Pedido 1001', capture: true, customer: CUSTOMER,
    ...(paymentMethod.endsWith('_card') ? { creditCard: CARD } : {}),
    ...(paymentMethod === 'pix' ? { pix: { expiresInSeconds: 3600 } } : {}),
    ...(paymentMethod === 'boleto' ? { boleto: { dueDate: inThreeDays(), instructions: 'Nao receber apos o vencimento' } } : {}),
    ...extra,
  };
}

const refOf = (out: ChargeOutcome, paymentMethod: PaymentMethod, amount = 1999): ChargeRef => ({
  externalId: out.normalized.externalId, paymentMethod, amount, refs: out.normalized.refs,
});

async function calls(method?: string, path?: RegExp): Promise<RecordedRequest[]> {
  return (await h.control.requests('pagbank')).filter((r) => (!method || r.method === method) && (!path || path.test(r.path)));
}

async function onlyCall(method: string, path: RegExp): Promise<RecordedRequest & { body: any }> {
  const list = await calls(method, path);
  assert.equal(list.length, 1, `expected one ${method} ${path}, got ${list.length}`);
  return list[0] as RecordedRequest & { body: any };
}


/** Direct HTTP to the emulator, for its own behaviour. */
async function pagbank(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h.emulators.gatewayUrl('pagbank')}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text ? safeJson(text) : undefined };
}
const safeJson = (t: string) => { try { return JSON.parse(t); } catch { return t; } };

test('the default unit is integer cents, as the PagBank Orders API takes them; reais is the SPEC.md setting', () => {
  assert.equal(pagbankAmountUnit(), 'minor');
  assert.equal(pagbankAmountUnit('cents'), 'minor');
  assert.equal(pagbankAmountUnit('reais'), 'major');
  assert.equal(adapter.amountUnit, 'minor');
});

describe('create', () => {
  for (const method of ['credit_card', 'debit_card'] as const) {
    test(`${method}: approved and captured, amounts in cents, no pix/boleto fields`, async () => {
      const c = ctx();
      const out = await adapter.createCharge(c, charge(method));
      const n = out.normalized;
      assert.match(n.externalId, /^CHAR_[0-9A-F-]{36}$/);
      assert.equal(n.status, 'approved');
      assert.equal(n.captured, true);
      assert.deepEqual([n.amount, n.paidAmount, n.refundedAmount, n.currency, n.paymentMethod], [1999, 1999, 0, 'BRL', method]);
      for (const f of [...PIX_FIELDS, ...BOLETO_FIELDS]) assert.equal(n[f], undefined, f);
      assert.match(n.refs!.orderId, /^ORDE_/);
      assert.equal(n.refs!.chargeId, n.externalId);

      const sent = await onlyCall('POST', /^\/orders$/);
      assert.equal(sent.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(sent.headers['x-idempotency-key'], c.idempotencyKey);
      const b = sent.body;
      assert.equal(b.reference_id, c.chargeId);
      assert.deepEqual(b.customer, {
        name: 'Maria Souza', email: 'maria.souza@example.com', tax_id: '12345678909',
        phones: [{ country: '55', area: '11', number: '987654321', type: 'MOBILE' }],
      });
      assert.deepEqual(b.items, [{ reference_id: c.chargeId, name: 'Pedido 1001', quantity: 1, unit_amount: 1999 }]);
      assert.deepEqual(b.notification_urls, [WEBHOOK], 'every order names the account webhook URL');
      assert.equal(b.qr_codes, undefined);
      assert.equal(b.charges.length, 1);
      assert.equal(b.charges[0].reference_id, c.chargeId);
      assert.deepEqual(b.charges[0].amount, { value: 1999, currency: 'BRL' });
      assert.deepEqual(b.charges[0].payment_method, {
        type: method === 'credit_card' ? 'CREDIT_CARD' : 'DEBIT_CARD', installments: 1, capture: true,
        card: { number: CARD.number, exp_month: 12, exp_year: 2030, security_code: '123', holder: { name: 'MARIA SOUZA', tax_id: '12345678909' } },
      });
      assert.deepEqual(n.card, { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 });
      assert.ok(!JSON.stringify(out.raw).includes(CARD.number), 'the full card number never comes back');
      assert.equal((out.raw as any).charges[0].payment_method.card.last_digits, '4242');
    });
  }

  test('an encrypted card token goes as card.encrypted', async () => {
    await adapter.createCharge(ctx(), charge('credit_card', { creditCard: { token: 'enc_blob', holderName: 'MARIA SOUZA', installments: 3 } }));
    const sent = await onlyCall('POST', /^\/orders$/);
    assert.deepEqual(sent.body.charges[0].payment_method, { type: 'CREDIT_CARD', installments: 3, capture: true, card: { encrypted: 'enc_blob', holder: { name: 'MARIA SOUZA' } } });
  });

  test('pix: pending order with QR link and copy-paste, externalId is the order, amount in qr_codes', async () => {
    const before = Date.now();
    const out = await adapter.createCharge(ctx(), charge('pix', { amount: 1099 }));
    const n = out.normalized;
    assert.match(n.externalId, /^ORDE_/);
    assert.equal(n.refs!.orderId, n.externalId);
    assert.match(n.refs!.qrCodeId, /^QRCO_/);
    assert.equal(n.refs!.chargeId, undefined);
    assert.deepEqual([n.status, n.amount, n.paidAmount, n.refundedAmount, n.paymentMethod], ['pending', 1099, 0, 0, 'pix']);
    for (const f of BOLETO_FIELDS) assert.equal(n[f], undefined, f);
    assert.equal(n.captured, undefined);
    assert.match(n.pixCopyPaste!, /^000201.*br\.gov\.bcb\.pix.*540510\.99.*6304[0-9A-F]{4}$/, '1099 cents read as R$ 10,99');
    assert.ok(Date.parse(n.pix!.expiresAt!) > Date.now());
    const png = await fetch(n.pixQrCode!);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');

    const sent = await onlyCall('POST', /^\/orders$/);
    assert.equal(sent.body.charges, undefined, 'pix is a QR code, not a charge');
    assert.equal(sent.body.qr_codes.length, 1);
    assert.equal(sent.body.qr_codes[0].amount.value, 1099);
    assert.deepEqual(sent.body.notification_urls, [WEBHOOK]);
    const expires = Date.parse(sent.body.qr_codes[0].expiration_date);
    assert.ok(expires >= before + 3600_000 - 1000 && expires <= Date.now() + 3600_000 + 1000, 'expires in expiresInSeconds');
  });

  test('boleto: pending with PDF URL and formatted barcode, due date and instructions sent', async () => {
    const due = inThreeDays();
    const out = await adapter.createCharge(ctx(), charge('boleto'));
    const n = out.normalized;
    assert.match(n.externalId, /^CHAR_/);
    assert.deepEqual([n.status, n.amount, n.paidAmount, n.paymentMethod], ['pending', 1999, 0, 'boleto']);
    for (const f of PIX_FIELDS) assert.equal(n[f], undefined, f);
    assert.match(n.boletoBarcode!, /^\d{47}$/, 'the typeable line, digits only');
    assert.equal(n.boleto!.dueDate, due);
    assert.ok(n.boletoBarcode!.endsWith('0000001999'), 'the line carries the amount');
    const pdf = await fetch(n.boletoUrl!);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');

    const sent = await onlyCall('POST', /^\/orders$/);
    assert.deepEqual(sent.body.charges[0].payment_method, {
      type: 'BOLETO',
      boleto: {
        due_date: due, instruction_lines: { line_1: 'Nao receber apos o vencimento' },
        holder: {
          name: 'Maria Souza', tax_id: '12345678909', email: 'maria.souza@example.com',
          address: { street: 'Av Paulista', number: '100', locality: 'Bela Vista', city: 'Sao Paulo', region: 'Sao Paulo', region_code: 'SP', country: 'BRA', postal_code: '01310100' },
        },
      },
    });
    assert.equal(sent.body.charges[0].amount.value, 1999);
  });

  const declines: Array<[string, string, string]> = [
    ['4000000000000002', 'card_declined', '20005'],
    ['4000000000009995', 'insufficient_funds', '20051'],
    ['4000000000000069', 'expired_card', '20054'],
    ['4000000000000127', 'incorrect_cvc', '20082'],
    ['4000000000000119', 'processing_error', '10002'],
    ['4929291898380766', 'card_declined', '10000'], // PagBank's own sandbox decline card
  ];
  for (const [number, code, pagbankCode] of declines) {
    test(`decline ${number}: HTTP 201 DECLINED ${pagbankCode} -> decline ${code}`, async () => {
      const err = await failure(adapter.createCharge(ctx(), charge('credit_card', { creditCard: { ...CARD, number } })));
      assert.equal(err.kind, 'decline');
      assert.equal(err.info.status, 201);
      assert.equal(err.info.declineCode, code);
      assert.equal(err.info.normalized!.status, 'declined');
      assert.equal(err.info.normalized!.declineCode, code);
      assert.match(err.info.normalized!.externalId, /^CHAR_/);
      assert.equal(err.info.normalized!.paidAmount, 0);
      const body = err.info.body as any;
      assert.equal(body.charges[0].status, 'DECLINED');
      assert.equal(body.charges[0].payment_response.code, pagbankCode);
      assert.equal(err.message, body.charges[0].payment_response.message);
    });
  }

  test('the same x-idempotency-key answers the stored order instead of creating another', async () => {
    const c = ctx();
    const first = await adapter.createCharge(c, charge('credit_card'));
    const again = await adapter.createCharge(c, charge('credit_card'));
    assert.equal(again.normalized.externalId, first.normalized.externalId);
    const other = await adapter.createCharge(ctx(), charge('credit_card'));
    assert.notEqual(other.normalized.externalId, first.normalized.externalId);
  });
});

describe('follow-ups', () => {
  test('pre-authorization: AUTHORIZED is approved uncaptured, then captured with the amount sent', async () => {
    const out = await adapter.createCharge(ctx(), charge('credit_card', { capture: false }));
    assert.deepEqual([out.normalized.status, out.normalized.captured, out.normalized.paidAmount], ['approved', false, 0]);
    assert.equal((await onlyCall('POST', /^\/orders$/)).body.charges[0].payment_method.capture, false);
    const c = ctx();
    const cap = await adapter.captureCharge(c, refOf(out, 'credit_card'));
    assert.deepEqual([cap.normalized.status, cap.normalized.captured, cap.normalized.paidAmount], ['approved', true, 1999]);
    assert.equal(cap.normalized.externalId, out.normalized.externalId);
    assert.equal(cap.normalized.refs!.orderId, out.normalized.refs!.orderId, 'the order id survives a charge-only answer');
    const sent = await onlyCall('POST', /^\/charges\/CHAR_[^/]+\/capture$/);
    assert.deepEqual(sent.body, { amount: { value: 1999 } });
    assert.equal(sent.headers['x-idempotency-key'], `${c.idempotencyKey}-capture`);
    const twice = await failure(adapter.captureCharge(ctx(), refOf(out, 'credit_card')));
    assert.equal(twice.kind, 'invalid_request');
  });

  test('partial capture pays only the captured amount', async () => {
    const out = await adapter.createCharge(ctx(), charge('debit_card', { capture: false }));
    const cap = await adapter.captureCharge(ctx(), refOf(out, 'debit_card'), 1000);
    assert.deepEqual([cap.normalized.paidAmount, cap.normalized.captured], [1000, true]);
    assert.deepEqual((await onlyCall('POST', /\/capture$/)).body, { amount: { value: 1000 } });
  });

  test('cancel voids a pre-authorization (CANCELED, nothing refunded -> cancelled)', async () => {
    const out = await adapter.createCharge(ctx(), charge('credit_card', { capture: false }));
    const cancelled = await adapter.cancelCharge(ctx(), refOf(out, 'credit_card'));
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal(cancelled.normalized.refundedAmount, 0);
    assert.equal((cancelled.raw as any).status, 'CANCELED');
    assert.deepEqual((await onlyCall('POST', /^\/charges\/CHAR_[^/]+\/cancel$/)).body, { amount: { value: 1999 } });
  });

  test('cancel a waiting boleto', async () => {
    const out = await adapter.createCharge(ctx(), charge('boleto'));
    const cancelled = await adapter.cancelCharge(ctx(), refOf(out, 'boleto'));
    assert.equal(cancelled.normalized.status, 'cancelled');
    assert.equal(cancelled.normalized.paymentMethod, 'boleto');
  });

  test('partial then full refund: refundedAmount follows, full refund names the rest', async () => {
    const out = await adapter.createCharge(ctx(), charge('credit_card'));
    const ref = refOf(out, 'credit_card');
    const partial = await adapter.refundCharge(ctx(), ref, 500);
    assert.deepEqual([partial.normalized.status, partial.normalized.refundedAmount, partial.normalized.paidAmount], ['approved', 500, 1999]);
    assert.equal((partial.raw as any).status, 'PAID', 'a partly refunded charge stays PAID');
    const full = await adapter.refundCharge(ctx(), ref);
    assert.deepEqual([full.normalized.status, full.normalized.refundedAmount], ['refunded', 1999]);
    assert.equal((full.raw as any).status, 'CANCELED');
    const cancels = await calls('POST', /\/cancel$/);
    assert.deepEqual(cancels.map((r) => (r.body as any).amount.value), [500, 1499]);
    assert.deepEqual([partial.refund?.status, partial.refund?.gatewayStatus, full.refund?.status, full.refund?.gatewayStatus], ['succeeded', 'PAID', 'succeeded', 'CANCELED']);
    assert.equal((await calls('GET', /^\/orders\/ORDE_/)).length, 2, 'each refund reads the charge first');
    const over = await failure(adapter.refundCharge(ctx(), ref, 1));
    assert.equal(over.kind, 'invalid_request');
  });

  test('pix: paid through the sandbox PAY link, then retrieved and partly refunded via its PIX charge', async () => {
    const out = await adapter.createCharge(ctx(), charge('pix'));
    const orderId = out.normalized.externalId;
    const paid = await pagbank('POST', `/orders/${orderId}/pay`, {});
    assert.equal(paid.status, 201);
    assert.equal(paid.body.charges[0].payment_method.type, 'PIX');
    const ref = refOf(out, 'pix');
    const now = await adapter.retrieveCharge(ctx(), ref);
    assert.equal(now.normalized.externalId, orderId, 'a pix keeps the order id as externalId');
    assert.deepEqual([now.normalized.status, now.normalized.paidAmount], ['approved', 1999]);
    assert.match(now.normalized.refs!.chargeId, /^CHAR_/);
    assert.ok(now.normalized.pixCopyPaste);
    const refund = await adapter.refundCharge(ctx(), ref, 999);
    assert.deepEqual([refund.normalized.externalId, refund.normalized.status, refund.normalized.refundedAmount], [orderId, 'approved', 999]);
  });

  test('retrieve reads the order and sees a boleto paid in the sandbox', async () => {
    const out = await adapter.createCharge(ctx(), charge('boleto'));
    await pagbank('POST', `/orders/${out.normalized.refs!.orderId}/pay`, {});
    const now = await adapter.retrieveCharge(ctx(), refOf(out, 'boleto'));
    assert.deepEqual([now.normalized.status, now.normalized.paidAmount, now.normalized.externalId], ['approved', 1999, out.normalized.externalId]);
    assert.ok(now.normalized.boletoUrl);
    await onlyCall('GET', new RegExp(`^/orders/${out.normalized.refs!.orderId}$`));
  });
});

describe('capabilities and failures', () => {
  test('capabilities: no customer resource, no pix cancel/capture, no boleto refund', async () => {
    const caps = adapter.capabilities;
    assert.equal(caps.customer, 'unsupported');
    assert.equal(caps.pix.cancel, 'unsupported');
    assert.equal(caps.pix.capture, 'unsupported');
    assert.equal(caps.pix.refund, 'supported');
    assert.equal(caps.boleto.refund, 'unsupported');
    assert.equal(caps.boleto.partial_refund, 'unsupported');
    assert.equal(caps.boleto.cancel, 'supported');
    assert.equal(caps.credit_card.partial_refund, 'supported');
    const err = await failure(adapter.createCustomer(ctx(), { name: 'Maria Souza', email: 'm@example.com', document: '12345678909' }));
    assert.equal(err.kind, 'unsupported');
    assert.equal((await calls()).length, 0, 'no call reaches PagBank');
  });

  test('invalid token -> auth with the 401 body; a missing token never leaves RouteGate', async () => {
    const bad = h.context('pagbank', { token: `invalid_${TOKEN}` });
    const err = await failure(adapter.createCharge(bad, charge('pix')));
    assert.equal(err.kind, 'auth');
    assert.equal(err.info.status, 401);
    assert.ok(!err.message.includes(TOKEN));
    const none = await failure(adapter.createCharge(h.context('pagbank', {}), charge('pix')));
    assert.equal(none.kind, 'auth');
    assert.equal((await calls()).length, 1);
  });

  test('unknown ids -> not_found', async () => {
    const byCharge = await failure(adapter.retrieveCharge(ctx(), { externalId: 'CHAR_00000000-0000-0000-0000-000000000000', paymentMethod: 'credit_card', amount: 1999 }));
    assert.equal(byCharge.kind, 'not_found');
    const byOrder = await failure(adapter.retrieveCharge(ctx(), { externalId: 'ORDE_00000000-0000-0000-0000-000000000000', paymentMethod: 'pix', amount: 1999 }));
    assert.equal(byOrder.kind, 'not_found');
    const cancel = await failure(adapter.cancelCharge(ctx(), { externalId: 'CHAR_00000000-0000-0000-0000-000000000000', paymentMethod: 'credit_card', amount: 1999 }));
    assert.equal(cancel.kind, 'not_found');
  });

  test('an injected 500 -> http_5xx', async () => {
    await h.control.fault('pagbank', 'http500');
    const err = await failure(adapter.createCharge(ctx(), charge('credit_card')));
    assert.equal(err.kind, 'http_5xx');
    assert.equal(err.info.status, 500);
  });

  test('a Luhn-invalid card -> invalid_request naming the parameter', async () => {
    const err = await failure(adapter.createCharge(ctx(), charge('credit_card', { creditCard: { ...CARD, number: '4242424242424241' } })));
    assert.equal(err.kind, 'invalid_request');
    assert.equal(err.info.status, 400);
    assert.match(err.message, /40002 invalid_parameter \(charges\[0\]\.payment_method\.card\.number\)/);
  });
});

describe('emulator over HTTP', () => {
  const order = (extra: Record<string, unknown> = {}) => ({
    reference_id: 'ref-1', customer: { name: 'Maria Souza', email: 'maria@example.com', tax_id: '12345678909' },
    charges: [{ reference_id: 'ref-1', amount: { value: 1099, currency: 'BRL' }, payment_method: { type: 'CREDIT_CARD', installments: 1, capture: true, card: { number: CARD.number, exp_month: 12, exp_year: 2030, security_code: '123', holder: { name: 'MARIA SOUZA' } } } }],
    ...extra,
  });

  test('401 bodies for a missing and an invalid token', async () => {
    const expected = { error_messages: [{ code: 'UNAUTHORIZED', description: 'Invalid credential. Review AUTHORIZATION header.' }] };
    for (const token of [null, 'invalid_token']) {
      const res = await pagbank('POST', '/orders', order(), token);
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, expected);
    }
    assert.equal((await pagbank('GET', '/orders/ORDE_X', undefined, null)).status, 401);
  });

  test('validation errors: 400 with error_messages code, description and parameter_name', async () => {
    const cases: Array<[unknown, string, string]> = [
      [order({ customer: undefined }), '40001', 'customer'],
      [order({ customer: { name: 'Maria', email: 'maria@example.com', tax_id: '123' } }), '40002', 'customer.tax_id'],
      [order({ charges: [{ amount: { value: 10.99 }, payment_method: { type: 'CREDIT_CARD', card: {} } }] }), '40002', 'charges[0].amount.value'],
      [order({ charges: [{ amount: { value: 1000 }, payment_method: { type: 'CASH' } }] }), '40002', 'charges[0].payment_method.type'],
      [order({ charges: [{ amount: { value: 1000 }, payment_method: { type: 'BOLETO', boleto: { due_date: '2000-01-01', holder: { name: 'A', tax_id: '12345678909' } } } }] }), '40002', 'charges[0].payment_method.boleto.due_date'],
      [order({ charges: [{ amount: { value: 1000 }, payment_method: { type: 'BOLETO', boleto: { due_date: '2999-01-01', holder: { name: 'A', tax_id: '12345678909' } } } }] }), '40001', 'charges[0].payment_method.boleto.holder.address'],
      [order({ notification_urls: ['not a url'] }), '40002', 'notification_urls'],
      [order({ charges: undefined, qr_codes: [{ amount: {} }] }), '40001', 'qr_codes[0].amount.value'],
    ];
    for (const [body, code, parameter] of cases) {
      const res = await pagbank('POST', '/orders', body);
      assert.equal(res.status, 400, parameter);
      assert.deepEqual(res.body, { error_messages: [{ code, description: code === '40001' ? 'required_parameter' : 'invalid_parameter', parameter_name: parameter }] });
    }
  });

  test('cents on the wire: 1099 is R$ 10,99 and answered as 1099 with a summary', async () => {
    const res = await pagbank('POST', '/orders', order());
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.charges[0].amount, { value: 1099, currency: 'BRL', summary: { total: 1099, paid: 1099, refunded: 0 } });
    const charge = await pagbank('GET', `/charges/${res.body.charges[0].id}`);
    assert.equal(charge.status, 200);
    assert.equal(charge.body.status, 'PAID');
  });

  test('cancel needs the amount (an empty body is 40001) and never more than what is left', async () => {
    const res = await pagbank('POST', '/orders', order());
    const id = res.body.charges[0].id;
    const empty = await pagbank('POST', `/charges/${id}/cancel`, {});
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error_messages[0].parameter_name, 'amount.value');
    const over = await pagbank('POST', `/charges/${id}/cancel`, { amount: { value: 1100 } });
    assert.equal(over.status, 400);
    assert.equal(over.body.error_messages[0].code, '40002');
  });

  test('404 bodies for unknown orders and charges', async () => {
    const res = await pagbank('GET', '/orders/ORDE_00000000-0000-0000-0000-000000000000');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error_messages: [{ code: 'NOT_FOUND', description: 'resource not found', parameter_name: 'order_id' }] });
    assert.equal((await pagbank('POST', '/charges/CHAR_X/capture', { amount: { value: 1 } })).status, 404);
  });

  test('reset clears stored orders', async () => {
    const res = await pagbank('POST', '/orders', order());
    await h.control.reset();
    assert.equal((await pagbank('GET', `/orders/${res.body.id}`)).status, 404);
  });
});

describe('ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais (SPEC.md profile): adapter and emulator switch together', () => {
  test('1999 cents go out as 19.99 and come back as 1999; a refund names reais', async () => {
    const emulators = await startEmulators({ wire: { ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais', ROUTEGATE_STRIPE_API_VERSION: '2026-07-29.dahlia' } });
    try {
      const control = new EmulatorControlClient(emulators.url);
      const c = h.context('pagbank', { ...SANDBOX_CREDENTIALS.pagbank }, { baseUrl: emulators.gatewayUrl('pagbank'), wire: { ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais', ROUTEGATE_STRIPE_API_VERSION: '2026-07-29.dahlia' } });
      const out = await adapter.createCharge(c, charge('credit_card'));
      assert.deepEqual([out.normalized.amount, out.normalized.paidAmount], [1999, 1999]);
      const sent = (await control.requests('pagbank')).find((r) => r.method === 'POST' && r.path === '/orders') as any;
      assert.deepEqual(sent.body.charges[0].amount, { value: 19.99, currency: 'BRL' });
      assert.equal(sent.body.items[0].unit_amount, 19.99);
      const refund = await adapter.refundCharge({ ...c, idempotencyKey: `${c.idempotencyKey}-r` }, refOf(out, 'credit_card'), 500);
      assert.equal(refund.normalized.refundedAmount, 500);
      const cancel = (await control.requests('pagbank')).find((r) => r.path.endsWith('/cancel')) as any;
      assert.deepEqual(cancel.body, { amount: { value: 5 } });
    } finally {
      await emulators.close();
    }
  });

  test('a reais amount sent to a cents emulator is refused, never read as a hundredth of it', async () => {
    const c = ctx({ wire: { ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais', ROUTEGATE_STRIPE_API_VERSION: '2026-07-29.dahlia' } });
    const err = await failure(adapter.createCharge(c, charge('credit_card')));
    assert.equal(err.kind, 'invalid_request');
    assert.match(err.message, /40002 invalid_parameter \((items\[0\]\.unit_amount|charges\[0\]\.amount\.value)\)/);
  });
});
