import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, ADDRESS, DECLINES, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { STRIPE_API_VERSION } from '../../src/gateways/stripe/wire';

// Issue 9 (real-API fidelity) end to end: RouteGate over real HTTP against the five emulators, which refuse
// what the real gateways refuse.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const dueDate = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
const post = (key: string, body: unknown) => e2e.call('POST', '/api/v1/charges', { key, body });
const attemptsOf = async (key: string, id: string) => (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data.attempts as Array<{ gateway: string; outcome: string; errorCode?: string; message?: string }>;

/** CRC16-CCITT (0x1021, init 0xFFFF) over everything up to and including "6304", as the BR Code spec says. */
function emvCrcValid(emv: string): boolean {
  const body = emv.slice(0, -4);
  let crc = 0xffff;
  for (const ch of Buffer.from(body, 'utf8')) {
    crc ^= ch << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return body.endsWith('6304') && crc.toString(16).toUpperCase().padStart(4, '0') === emv.slice(-4);
}

async function customerIdFor(key: string, gateway: GatewayId, extra: Record<string, unknown> = {}): Promise<string | undefined> {
  if (gateway !== 'asaas') return undefined;
  const res = await e2e.call('POST', '/api/v1/customers', { key, body: { gateway, ...CUSTOMER, ...extra } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.externalId;
}

describe('one meaning per normalized field on all five gateways', () => {
  for (const gateway of GATEWAY_IDS) {
    test(`${gateway}: pix is EMV text with a valid CRC16 plus an image, with pix.expiresAt`, async () => {
      const key = await e2e.account({ primaryGateway: gateway });
      const customerId = await customerIdFor(key, gateway);
      const res = await post(key, { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, customerId, pix: { expiresInSeconds: 3600 } });
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.equal(d.gateway, gateway);
      assert.match(d.pixCopyPaste, /^000201/);
      assert.ok(emvCrcValid(d.pixCopyPaste), `CRC16 of ${d.pixCopyPaste}`);
      assert.match(d.pixQrCode, /^(https?:\/\/|data:image\/png;base64,)/, 'pixQrCode is an image (URL or PNG data URI)');
      assert.ok(!Number.isNaN(Date.parse(d.pix.expiresAt)) && d.pix.expiresAt.endsWith('Z'), JSON.stringify(d.pix));
    });

    test(`${gateway}: boleto is the 47-digit typeable line with boleto.dueDate`, async () => {
      const key = await e2e.account({ primaryGateway: gateway });
      const customerId = await customerIdFor(key, gateway);
      const due = dueDate();
      const res = await post(key, { paymentMethod: 'boleto', amount: 1999, customer: CUSTOMER, customerId, boleto: { dueDate: due } });
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.match(d.boletoBarcode, /^\d{47}$/);
      if (d.boletoBarcodeNumber !== undefined) assert.match(d.boletoBarcodeNumber, /^\d{44}$/);
      assert.match(d.boleto.dueDate, /^\d{4}-\d{2}-\d{2}$/);
      if (gateway !== 'stripe') assert.equal(d.boleto.dueDate, due, 'the due date asked for'); // Stripe counts days to 23:59 Sao Paulo
    });

    test(`${gateway}: a card answer carries card {brand, last4} in one vocabulary and metadata as given`, async () => {
      const key = await e2e.account({ primaryGateway: gateway });
      const customerId = await customerIdFor(key, gateway);
      const metadata = { order: '1001', 'cart-id': 'c-42' };
      const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, customerId, creditCard: CARD, metadata });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.card.brand, 'visa');
      assert.equal(res.body.data.card.last4, '4242');
      assert.deepEqual(res.body.data.metadata, metadata);
      const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
      assert.deepEqual(stored.body.data.metadata, metadata, 'stored and read back as given');
    });

    test(`${gateway}: a decline carries error.declineCode beside the message that starts with it`, async () => {
      const key = await e2e.account({ primaryGateway: gateway });
      const customerId = await customerIdFor(key, gateway);
      const [number, code] = DECLINES[1];
      const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, customerId, creditCard: { ...CARD, number } });
      expectError(res, 'GATEWAY_ERROR', 502);
      assert.equal(res.body.error.declineCode, code);
      assert.ok(res.body.error.message.startsWith(`${code}: `));
    });
  }

  test('a refund answers status in one vocabulary and the gateway word in gatewayStatus', async () => {
    for (const gateway of ['stripe', 'pagarme', 'mercadopago', 'pagbank'] as const) {
      const key = await e2e.account({ primaryGateway: gateway });
      const created = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
      const refund = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/refunds`, { key, body: { amount: 500 } });
      assert.equal(refund.status, 201, refund.text);
      assert.equal(refund.body.data.refund.status, 'succeeded', gateway);
      assert.equal(typeof refund.body.data.refund.gatewayStatus, 'string', gateway);
    }
  });

  test('metadata goes to the gateways that have a metadata field', async () => {
    const metadata = { order: '1001' };
    const sent: Record<string, unknown> = {};
    for (const gateway of ['stripe', 'pagarme', 'mercadopago', 'pagbank'] as const) {
      const key = await e2e.account({ primaryGateway: gateway });
      await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD, metadata });
      const create = (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && /payment_intents$|orders$|v1\/payments$/.test(r.path)).at(-1)!;
      sent[gateway] = (create.body as { metadata?: Record<string, string> }).metadata?.order;
    }
    assert.deepEqual(sent, { stripe: '1001', pagarme: '1001', mercadopago: '1001', pagbank: '1001' });
  });
});

describe('PagBank on the wire', () => {
  test('integer cents and notification_urls with the account PagBank webhook URL on every order', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank' });
    const me = await e2e.call('GET', '/api/v1/clients/me', { key });
    for (const [paymentMethod, extra] of [['credit_card', { creditCard: CARD }], ['pix', {}], ['boleto', { boleto: { dueDate: dueDate() } }]] as const) {
      const res = await post(key, { paymentMethod, amount: 30000, customer: CUSTOMER, ...extra });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.amount, 30000, 'R$ 300,00 stays R$ 300,00');
      const order = (await e2e.control.lastRequest('pagbank'))!.body as any;
      assert.deepEqual(order.notification_urls, [me.body.data.webhookUrls.pagbank]);
      const value = paymentMethod === 'pix' ? order.qr_codes[0].amount.value : order.charges[0].amount.value;
      assert.equal(value, 30000, `${paymentMethod}: R$ 300,00 is 30000 cents, not 300`);
    }
  });

  test('ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais switches service and emulator to SPEC.md reais together', async () => {
    const reais = await startE2E({ ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais' });
    try {
      const key = await reais.account({ primaryGateway: 'pagbank' });
      const res = await reais.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.amount, 1999);
      assert.equal(((await reais.control.lastRequest('pagbank'))!.body as any).charges[0].amount.value, 19.99);
    } finally {
      await reais.close();
    }
  });
});

describe('Stripe version and raw cards', () => {
  test('every Stripe call pins Stripe-Version', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const before = (await e2e.control.requests('stripe')).length;
    const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    assert.equal(res.status, 201, res.text);
    await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/refunds`, { key, body: {} });
    const calls = (await e2e.control.requests('stripe')).slice(before);
    assert.ok(calls.length >= 4, calls.map((c) => c.path).join(', '));
    for (const c of calls) assert.equal(c.headers['stripe-version'], STRIPE_API_VERSION, `${c.method} ${c.path}`);
  });

  test('without stripeRawCardData a raw card skips Stripe (RAW_CARD_NOT_ACCEPTED) and the fallback charges it', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'], stripeRawCardData: false });
    const before = (await e2e.control.requests('stripe')).length;
    const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    const attempts = await attemptsOf(key, res.body.data.id);
    assert.deepEqual(attempts.map((a) => `${a.gateway}:${a.outcome}:${a.errorCode ?? ''}`), ['stripe:skipped:RAW_CARD_NOT_ACCEPTED', 'pagarme:success:']);
    assert.equal((await e2e.control.requests('stripe')).length, before, 'no call reached Stripe');
  });

  test('Stripe alone: 422 GATEWAY_UNSUPPORTED_OPERATION asking for a Stripe paymentMethodId; a pm_ id charges', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', stripeRawCardData: false });
    const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(res.body.error.message, /paymentMethodId/);
    const pm = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: { paymentMethodId: 'pm_card_visa' } });
    assert.equal(pm.status, 201, pm.text);
  });

  test('PATCH settings stripeRawCardData true lets raw cards through', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', stripeRawCardData: false });
    const patched = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { stripeRawCardData: true } });
    assert.equal(patched.body.data.stripeRawCardData, true);
    const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    assert.equal(res.status, 201, res.text);
  });
});

describe('payer data: validated before any call, required where the real API requires it', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a CPF with wrong check digits', { document: '12345678900' }, 'customer.document'],
    ['a CNPJ with wrong check digits', { document: '12345678000199' }, 'customer.document'],
    ['a CEP of 7 digits', { address: { ...ADDRESS, postalCode: '0131010' } }, 'customer.address.postalCode'],
    ['a lower-case UF', { address: { ...ADDRESS, state: 'sp' } }, 'customer.address.state'],
  ];
  for (const [what, change, field] of cases) {
    test(`${what} is 400 VALIDATION_ERROR naming ${field}`, async () => {
      const key = await e2e.account({ primaryGateway: 'pagarme' });
      const before = (await e2e.control.requests()).length;
      const res = await post(key, { paymentMethod: 'pix', amount: 1999, customer: { ...CUSTOMER, ...change } });
      expectError(res, 'VALIDATION_ERROR', 400);
      assert.ok(res.body.error.details.errors.some((e: { field: string }) => e.field === field), res.text);
      assert.equal((await e2e.control.requests()).length, before, 'no gateway call');
    });
  }

  test('metadata within Stripe limits once RouteGate adds its two keys: 48 keys, 40-character keys, 500-character string values', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const tooMany = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    const bad: Array<[Record<string, unknown>, string]> = [
      [tooMany, 'metadata'], [{ ['k'.repeat(41)]: 'v' }, 'metadata'], [{ note: 'x'.repeat(501) }, 'metadata.note'], [{ n: 1 }, 'metadata.n'],
    ];
    for (const [metadata, field] of bad) {
      const res = await post(key, { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, metadata });
      expectError(res, 'VALIDATION_ERROR', 400);
      assert.ok(res.body.error.details.errors.some((e: { field: string }) => e.field === field), res.text);
    }
    const ok = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`${'k'.repeat(38)}${String(i).padStart(2, '0')}`, 'x'.repeat(500)]));
    const res = await post(key, { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, metadata: ok });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.metadata, ok);
    assert.equal(Object.keys(((await e2e.control.lastRequest('stripe'))!.body as any).metadata).length, 50, 'the most Stripe takes');
  });

  test('customers validate the document the same way', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const res = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER, document: '12345678900' } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.equal(res.body.error.details.errors[0].field, 'document');
  });

  for (const gateway of ['stripe', 'pagarme', 'mercadopago', 'pagbank'] as const) {
    test(`${gateway} boleto without an address: 400 naming the field alone, a MISSING_PAYER_DATA skip with a fallback`, async () => {
      const { address: _drop, ...noAddress } = CUSTOMER;
      const alone = await e2e.account({ primaryGateway: gateway });
      const before = (await e2e.control.requests(gateway)).length;
      const res = await post(alone, { paymentMethod: 'boleto', amount: 1999, customer: noAddress, boleto: { dueDate: dueDate() } });
      expectError(res, 'VALIDATION_ERROR', 400);
      assert.match(res.body.error.message, /customer\.address\.\w+ is missing/);
      assert.equal((await e2e.control.requests(gateway)).length, before, 'no call reached the gateway');
      const fallback = gateway === 'pagarme' ? 'stripe' : 'pagarme';
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [fallback] });
      const skipped = await post(key, { paymentMethod: 'boleto', amount: 1999, customer: { ...noAddress, address: undefined }, boleto: { dueDate: dueDate() } });
      expectError(skipped, 'VALIDATION_ERROR', 400); // the fallback needs the address too
      const attempts = await attemptsOf(key, skipped.headers['x-rg-charge-id'] as string);
      assert.deepEqual(attempts.map((a) => a.errorCode), ['MISSING_PAYER_DATA', 'MISSING_PAYER_DATA']);
    });
  }

  test('Pagar.me pix without a phone skips to the fallback with MISSING_PAYER_DATA', async () => {
    const { phone: _drop, ...noPhone } = CUSTOMER;
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['mercadopago'] });
    const res = await post(key, { paymentMethod: 'pix', amount: 1999, customer: noPhone });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'mercadopago');
    const attempts = await attemptsOf(key, res.body.data.id);
    assert.equal(attempts[0].errorCode, 'MISSING_PAYER_DATA');
    assert.match(attempts[0].message!, /customer\.phone/);
  });

  test('Asaas card: holder postal code, address number, phone and remoteIp come from the stored customer and the client IP', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas' });
    const customerId = await customerIdFor(key, 'asaas');
    const res = await post(key, { paymentMethod: 'credit_card', amount: 1999, customerId, creditCard: CARD });
    assert.equal(res.status, 201, res.text);
    const body = (await e2e.control.lastRequest('asaas'))!.body as any;
    assert.deepEqual(
      [body.creditCardHolderInfo.postalCode, body.creditCardHolderInfo.addressNumber, body.creditCardHolderInfo.mobilePhone, body.creditCardHolderInfo.cpfCnpj],
      ['01310100', '100', '11987654321', '12345678909'],
    );
    assert.equal(body.remoteIp, '127.0.0.1', 'the IP the client called RouteGate from');
    const withIp = await post(key, { paymentMethod: 'credit_card', amount: 1999, customerId, customer: { ...CUSTOMER, ip: '203.0.113.10' }, creditCard: CARD });
    assert.equal(withIp.status, 201, withIp.text);
    assert.equal(((await e2e.control.lastRequest('asaas'))!.body as any).remoteIp, '203.0.113.10', 'customer.ip when given');
  });

  test('the customer resource keeps the address and metadata it was created with', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const res = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER, metadata: { crm: 'x-1' } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.address, ADDRESS);
    assert.deepEqual(res.body.data.metadata, { crm: 'x-1' });
    const sent = (await e2e.control.lastRequest('stripe'))!.body as any;
    assert.equal(sent.metadata.crm, 'x-1');
    assert.equal(sent.address.postal_code, '01310-100');
  });
});

describe('debit cards as the real APIs allow', () => {
  test('Pagar.me debit without 3-D Secure data: 422 naming debitCard.authentication; with it, approved', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const res = await post(key, { paymentMethod: 'debit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(res.body.error.message, /debitCard\.authentication/);
    const attempts = await attemptsOf(key, res.headers['x-rg-charge-id'] as string);
    assert.equal(attempts[0].errorCode, 'AUTHENTICATION_REQUIRED');
    const ok = await post(key, { paymentMethod: 'debit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD, debitCard: { authentication: { eci: '05', cavv: 'AAABBJg0VhI0VniQEjRWAAAAAAA=' } } });
    assert.equal(ok.status, 201, ok.text);
    const sent = (await e2e.control.lastRequest('pagarme'))!.body as any;
    assert.deepEqual(sent.payments[0].debit_card.authentication, { type: 'threed_secure', threed_secure: { mpi: 'third_party', eci: '05', cavv: 'AAABBJg0VhI0VniQEjRWAAAAAAA=' } });
  });

  test('Asaas has no debit over its API: 422 alone, a recorded skip with a fallback', async () => {
    const alone = await e2e.account({ primaryGateway: 'asaas' });
    const customerId = await customerIdFor(alone, 'asaas');
    expectError(await post(alone, { paymentMethod: 'debit_card', amount: 1999, customerId, creditCard: CARD }), 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: ['mercadopago'] });
    const res = await post(key, { paymentMethod: 'debit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'mercadopago');
    const attempts = await attemptsOf(key, res.body.data.id);
    assert.deepEqual(attempts.map((a) => `${a.gateway}:${a.errorCode ?? a.outcome}`), ['asaas:GATEWAY_UNSUPPORTED_OPERATION', 'mercadopago:success']);
  });
});
