import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CardToken, MPAuthenticationError, MPServerError, MercadoPagoError } from 'mercadopago';
import { startE2E, type E2E } from '../helpers/e2e';
import { mercadoPagoClient, mercadoPagoCalls, type MercadoPagoClients } from '../helpers/sdk-clients';

// Issue 11: the official mercadopago SDK, unchanged but for its access token (the RouteGate key), against RouteGate in
// compatibility mode mercadopago. Its base URL is a constant, so the application sets undici's global dispatcher to
// send api.mercadopago.com to RouteGate (docs/sdk-notes.md; test/helpers/sdk-clients.ts mercadoPagoClient), exactly
// as the README tells merchants. Accounts: primary (1) mercadopago, and (2) another gateway for pix and boleto.

let e2e: E2E;
let base: string;
before(async () => {
  e2e = await startE2E();
  base = e2e.sandbox.url;
});
after(() => e2e.close());

const PAYER = {
  email: 'maria.souza@example.com', first_name: 'Maria', last_name: 'Souza', identification: { type: 'CPF', number: '12345678909' },
  phone: { area_code: '11', number: '987654321' },
  address: { zip_code: '01310100', street_name: 'Av Paulista', street_number: '100', neighborhood: 'Bela Vista', city: 'Sao Paulo', federal_unit: 'SP' },
};

/** The SDK against RouteGate; closed (the global dispatcher put back) whatever the test does. */
async function withSdk<T>(key: string, fn: (mp: MercadoPagoClients) => Promise<T>, options: Parameters<typeof mercadoPagoClient>[2] = { maxRetries: 0 }, prefix = '/compat/mercadopago'): Promise<T> {
  const mp = mercadoPagoClient(`${base}${prefix}`, key, options);
  try {
    return await fn(mp);
  } finally {
    await mp.close();
  }
}

/** MP's card_tokens flow with the SDK's own CardToken client: passed through RouteGate to Mercado Pago (the holder name picks the sandbox outcome). */
async function cardToken(mp: MercadoPagoClients, holder: string): Promise<string> {
  const token = await new CardToken(mp.config).create({
    body: { card_number: '4235647728025682', expiration_month: '11', expiration_year: '2030', security_code: '123', cardholder: { name: holder, identification: { type: 'CPF', number: '12345678909' } } } as never,
  });
  assert.match(String(token.id), /^[0-9a-f]{32}$/);
  return String(token.id);
}

/** A response header as the SDK hands it over: a record of value lists at run time (its type says a tuple). */
const header = (r: { api_response: { headers: unknown } }, name: string) => (r.api_response.headers as Record<string, string[] | undefined>)[name]?.[0];

const mpAccount = (primary: 'mercadopago' | 'pagarme' | 'stripe' | 'pagbank' | 'asaas') =>
  e2e.account({ primaryGateway: primary, gatewayFallbacks: [], compatibilityMode: 'mercadopago', compatPassthrough: true });

test('SDK on primary Mercado Pago: a card Payment.create, Payment.get, PaymentRefund.create (reais), .total and .list, all Mercado Pago\'s own objects', async () => {
  await withSdk(await mpAccount('mercadopago'), async (mp) => {
    const payment = await mercadoPagoCalls.createCardPayment(mp, { amount: 19.99, token: await cardToken(mp, 'APRO'), paymentMethodId: 'visa', payer: PAYER, externalReference: 'order-42' });
    assert.equal(payment.api_response.status, 201);
    assert.equal(header(payment, 'x-rg-gateway'), 'mercadopago');
    assert.equal(typeof payment.id, 'number', 'Mercado Pago\'s numeric id');
    assert.deepEqual([payment.status, payment.status_detail, payment.transaction_amount], ['approved', 'accredited', 19.99]);
    assert.equal(payment.external_reference, 'order-42', 'the client\'s own reference');
    assert.equal((await e2e.control.ledger('mercadopago')).find((l) => l.id === String(payment.id))?.amount, 1999, '1999 cents at the emulator');

    const read = await mercadoPagoCalls.getPayment(mp, payment.id!);
    assert.deepEqual([read.id, read.status, read.transaction_amount], [payment.id, 'approved', 19.99]);

    const partial = await mercadoPagoCalls.refundPartial(mp, payment.id!, 5);
    assert.equal(partial.api_response.status, 201);
    assert.deepEqual([partial.payment_id, partial.amount, partial.status], [payment.id, 5, 'approved']);
    const rest = await mercadoPagoCalls.refundFull(mp, payment.id!);
    assert.equal(rest.amount, 14.99);
    const listed = await mp.refund.list({ payment_id: payment.id! });
    assert.deepEqual(listed.map((r) => [r.id, r.amount]), [[partial.id, 5], [rest.id, 14.99]]);
    const one = await mp.refund.get({ payment_id: payment.id!, refund_id: partial.id! });
    assert.equal(one.amount, 5);
    assert.equal((await mercadoPagoCalls.getPayment(mp, payment.id!)).status, 'refunded');
    assert.equal((await e2e.control.ledger('mercadopago')).find((l) => l.id === String(payment.id))?.refundedAmount, 1999);
  });
});

test('SDK: pix and boleto charged on Mercado Pago and on Pagar.me; a paid Pagar.me pix refunded through PaymentRefund by RouteGate\'s id', async () => {
  for (const primary of ['mercadopago', 'pagarme'] as const) {
    await withSdk(await mpAccount(primary), async (mp) => {
      const pix = await mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: PAYER, description: 'Pedido pix' });
      assert.equal(pix.api_response.status, 201);
      assert.deepEqual([pix.status, pix.status_detail, pix.payment_method_id, pix.transaction_amount], ['pending', 'pending_waiting_transfer', 'pix', 19.99]);
      assert.match(String(pix.point_of_interaction?.transaction_data?.qr_code), /^000201/);
      const boleto = await mercadoPagoCalls.createBoletoPayment(mp, { amount: 19.99, payer: PAYER });
      assert.deepEqual([boleto.status, boleto.payment_type_id, boleto.transaction_amount], ['pending', 'ticket', 19.99]);
      assert.match(String(boleto.transaction_details?.digitable_line), /^\d{47}$/);
      if (primary === 'mercadopago') {
        assert.equal(typeof pix.id, 'number');
        return;
      }
      assert.equal(typeof pix.id, 'number', 'a charge held at Pagar.me has a numeric id, as the SDK types it');
      assert.ok(pix.id! > 5e15 && Number.isSafeInteger(pix.id), `${pix.id} is RouteGate's numeric id (migration 022)`);
      const chargeId = header(pix, 'x-rg-charge-id')!;
      assert.match(chargeId, /^chg_/);
      assert.equal((await e2e.control.ledger('pagarme')).find((l) => l.reference === chargeId)?.amount, 1999);
      const stored = (await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key: mp.config.accessToken, headers: { 'x-payload-format': 'native' } })).body.data;
      await e2e.control.pay('pagarme', stored.externalId);
      const paid = await mercadoPagoCalls.getPayment(mp, pix.id!);
      assert.deepEqual([paid.id, paid.status], [pix.id, 'approved']);
      const refund = await mercadoPagoCalls.refundPartial(mp, pix.id!, 9.99);
      assert.deepEqual([refund.payment_id, refund.amount], [pix.id, 9.99]);
      const listed = await mp.refund.list({ payment_id: pix.id! });
      assert.deepEqual(listed.map((r) => r.amount), [9.99]);
      assert.equal((await e2e.control.ledger('pagarme')).find((l) => l.id === stored.externalId)?.refundedAmount, 999);
    });
  }
});

/** A PNG in bare base64, as Mercado Pago sends qr_code_base64. */
function assertPng(base64: unknown, what: string): void {
  assert.equal(typeof base64, 'string', `${what}: qr_code_base64 is present`);
  assert.equal(Buffer.from(String(base64), 'base64').subarray(0, 8).toString('hex'), '89504e470d0a1a0a', `${what}: qr_code_base64 is a PNG`);
}

test('SDK: a charge processed by every other gateway parses with a numeric id; its pix has qr_code_base64; follow-ups accept the numeric id', async () => {
  for (const primary of ['pagarme', 'stripe', 'pagbank', 'asaas'] as const) {
    await withSdk(await mpAccount(primary), async (mp) => {
      const pix = await mercadoPagoCalls.createPixPayment(mp, { amount: 12.34, payer: PAYER, description: 'Pedido pix' });
      assert.equal(pix.api_response.status, 201, primary);
      assert.equal(header(pix, 'x-rg-gateway'), primary);
      assert.equal(typeof pix.id, 'number', `${primary}: id is a number, as the SDK's PaymentResponse types it`);
      assert.ok(Number.isSafeInteger(pix.id) && pix.id! > 5e15, `${primary}: ${pix.id}`);
      assert.match(String(pix.point_of_interaction?.transaction_data?.qr_code), /^000201/, primary);
      assertPng(pix.point_of_interaction?.transaction_data?.qr_code_base64, primary);
      const read = await mercadoPagoCalls.getPayment(mp, pix.id!);
      assert.deepEqual([read.id, read.status, read.transaction_amount], [pix.id, 'pending', 12.34], primary);
      assertPng(read.point_of_interaction?.transaction_data?.qr_code_base64, `${primary} read`);
      const found = await mp.payment.search({ options: { limit: 5 } });
      assert.ok(found.results?.some((p) => p.id === pix.id), `${primary}: search lists it by its numeric id`);
      if (primary !== 'pagbank') {
        const cancelled = await mp.payment.cancel({ id: pix.id! });
        assert.deepEqual([cancelled.id, cancelled.status], [pix.id, 'cancelled'], primary);
        return;
      }
      // PagBank cannot cancel an open pix: paid, then refunded by the numeric id instead.
      const stored = (await e2e.call('GET', `/api/v1/charges/${header(pix, 'x-rg-charge-id')}`, { key: mp.config.accessToken })).body.data;
      await e2e.control.pay('pagbank', stored.externalId);
      assert.equal((await mercadoPagoCalls.getPayment(mp, pix.id!)).status, 'approved');
      const refund = await mercadoPagoCalls.refundPartial(mp, pix.id!, 2.34);
      assert.deepEqual([refund.payment_id, refund.amount], [pix.id, 2.34], primary);
    });
  }
});

test('SDK: a decline comes back as Mercado Pago answers it, a 201 payment with status rejected, returned normally', async () => {
  await withSdk(await mpAccount('mercadopago'), async (mp) => {
    const declined = await mercadoPagoCalls.createCardPayment(mp, { amount: 19.99, token: await cardToken(mp, 'FUND'), paymentMethodId: 'visa', payer: PAYER });
    assert.equal(declined.api_response.status, 201);
    assert.deepEqual([declined.status, declined.status_detail], ['rejected', 'cc_rejected_insufficient_amount']);
    assert.equal(header(declined, 'x-rg-error-code'), 'GATEWAY_ERROR');
  });
});

test('SDK: the create\'s X-Idempotency-Key, sticky in the shared config, does not replay the create on a later refund', async () => {
  await withSdk(await mpAccount('mercadopago'), async (mp) => {
    const token = await cardToken(mp, 'APRO');
    const payment = await mercadoPagoCalls.createCardPayment(mp, { amount: 30, token, paymentMethodId: 'visa', payer: PAYER }, 'order-99-attempt-1');
    assert.equal(mp.config.options?.idempotencyKey, 'order-99-attempt-1', 'the SDK kept the key for every later call');
    const refund = await mercadoPagoCalls.refundPartial(mp, payment.id!, 10);
    assert.deepEqual([refund.payment_id, refund.amount], [payment.id, 10], 'a refund, not the stored payment');
    assert.equal((await e2e.control.ledger('mercadopago')).find((l) => l.id === String(payment.id))?.refundedAmount, 1000);
  });
});

test('SDK errors: an outage is MPServerError (maxRetries 0), a wrong key MPAuthenticationError, a missing amount MPBadRequestError naming transaction_amount', async () => {
  await withSdk(await mpAccount('mercadopago'), async (mp) => {
    await e2e.control.fault('mercadopago', 'http500', { count: 5 });
    try {
      await assert.rejects(mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: PAYER }), (err: unknown) => {
        assert.ok(err instanceof MPServerError, String(err));
        assert.ok(err.status >= 500);
        return true;
      });
    } finally {
      await e2e.control.clearFaults();
    }
    await assert.rejects(mp.payment.create({ body: { payment_method_id: 'pix', payer: PAYER } as never }), (err: unknown) => {
      assert.ok(err instanceof MercadoPagoError && err.name === 'MPBadRequestError', String(err));
      assert.equal(err.status, 400);
      assert.match(JSON.stringify(err.causes), /transaction_amount/);
      return true;
    });
  });
  // At the root, as a host-only redirection would send it.
  await withSdk('tk_not_a_real_key_000000000000', async (mp) => {
    await assert.rejects(mercadoPagoCalls.getPayment(mp, 1), (err: unknown) => err instanceof MPAuthenticationError && err.status === 401);
  }, { maxRetries: 0 }, '');
});
