import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';

// Issue 13: each gateway's split encoding, asserted on what its emulator received, and each emulator refusing a
// split body the real API refuses.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const ANA = {
  pagarme: 'rp_AnaAnaAnaAnaAnaA', stripe: 'acct_1AnaConnect', asaas: '48548710-9baa-4ec1-a11f-9010193527c6',
  pagbank: 'ACCO_AAAAAAAA-0000-0000-0000-000000000001', mercadopago: '123456789',
};
const BIA = {
  pagarme: 'rp_BiaBiaBiaBiaBiaB', stripe: 'acct_1BiaConnect', asaas: '0b7d4c4e-2f0c-4a57-9a1e-5d0c1a2b3c4d',
  pagbank: 'ACCO_BBBBBBBB-0000-0000-0000-000000000002',
};
const OWN_PAGARME = SANDBOX_CREDENTIALS.pagarme.recipientId;
const OWN_PAGBANK = SANDBOX_CREDENTIALS.pagbank.accountId;

type Gateway = 'pagarme' | 'stripe' | 'asaas' | 'pagbank';

/** An account on `gateway` with coproducers ana@ and bia@ known on every gateway; Asaas also gets its customer. */
async function setup(gateway: Gateway): Promise<{ key: string; base: Record<string, unknown> }> {
  const key = await e2e.account({ primaryGateway: gateway });
  for (const [email, recipients] of [['ana@example.com', ANA], ['bia@example.com', BIA]] as const) {
    const res = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email, name: email, recipients } });
    assert.equal(res.status, 201, res.text);
  }
  const base: Record<string, unknown> = { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD };
  if (gateway === 'asaas') base.customerId = (await e2e.call('POST', '/api/v1/customers', { key, body: { gateway: 'asaas', ...CUSTOMER } })).body.data.externalId;
  return { key, base };
}

/** Charge, check the answer's split and the stored one, and return the create body the gateway received. */
async function charge(gateway: Gateway, split: unknown[], expected: unknown[]): Promise<any> {
  const { key, base } = await setup(gateway);
  const res = await e2e.call('POST', '/api/v1/charges', { key, body: { ...base, split } });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.gateway, gateway);
  assert.deepEqual(res.body.data.split, expected, 'the answer shows the split as applied');
  const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
  assert.deepEqual(stored.body.data.split, expected, 'the charge row keeps it');
  const creates = (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && /\/(orders|payments|payment_intents)$/.test(r.path));
  return creates[creates.length - 1].body;
}

const applied = (recipient: string, email: string | undefined, type: string, amount: number, percentage?: number) => ({
  type, recipient_id: recipient, ...(email ? { coproducerEmail: email } : {}), ...(percentage !== undefined ? { percentage } : {}),
  amount, chargeProcessingFee: false, liable: false,
});

describe('percentage splits (30% of 19,99 = 5,99 rounded down; the merchant keeps 14,00)', () => {
  const split = [{ type: 'percentage', amount: 30, coproducerEmail: 'ana@example.com' }];
  test('pagarme: percentage rules, the account\'s own recipient with 70 and the remainder', async () => {
    const sent = await charge('pagarme', split, [applied(ANA.pagarme, 'ana@example.com', 'percentage', 599, 30)]);
    assert.deepEqual(sent.payments[0].split, [
      { amount: 70, recipient_id: OWN_PAGARME, type: 'percentage', options: { liable: true, charge_processing_fee: true, charge_remainder_fee: true } },
      { amount: 30, recipient_id: ANA.pagarme, type: 'percentage', options: { liable: false, charge_processing_fee: false, charge_remainder_fee: false } },
    ]);
  });
  test('stripe: the destination account and the merchant\'s share as application fee', async () => {
    const sent = await charge('stripe', split, [applied(ANA.stripe, 'ana@example.com', 'percentage', 599, 30)]);
    assert.deepEqual(sent.transfer_data, { destination: ANA.stripe });
    assert.equal(sent.application_fee_amount, '1400');
  });
  test('asaas: the wallet with the cents as fixedValue in reais', async () => {
    const sent = await charge('asaas', split, [applied(ANA.asaas, 'ana@example.com', 'percentage', 599, 30)]);
    assert.deepEqual(sent.split, [{ walletId: ANA.asaas, fixedValue: 5.99 }]);
  });
  test('pagbank: FIXED receivers in cents, the account itself first with the rest', async () => {
    const sent = await charge('pagbank', split, [applied(ANA.pagbank, 'ana@example.com', 'percentage', 599, 30)]);
    assert.deepEqual(sent.charges[0].splits, {
      method: 'FIXED',
      receivers: [{ account: { id: OWN_PAGBANK }, amount: { value: 1400 } }, { account: { id: ANA.pagbank }, amount: { value: 599 } }],
    });
  });
});

describe('fixed splits (5,00 to Ana, 2,50 to Bia)', () => {
  const split = [{ type: 'fixed', amount: 500, coproducerEmail: 'ana@example.com' }, { type: 'fixed', amount: 250, coproducerEmail: 'bia@example.com' }];
  const expected = (g: 'pagarme' | 'asaas' | 'pagbank') => [applied(ANA[g], 'ana@example.com', 'fixed', 500), applied(BIA[g], 'bia@example.com', 'fixed', 250)];
  test('pagarme: flat rules summing to the amount', async () => {
    const sent = await charge('pagarme', split, expected('pagarme'));
    assert.deepEqual(sent.payments[0].split.map((r: any) => [r.recipient_id, r.type, r.amount]), [[OWN_PAGARME, 'flat', 1249], [ANA.pagarme, 'flat', 500], [BIA.pagarme, 'flat', 250]]);
  });
  test('asaas: fixedValue in reais', async () => {
    const sent = await charge('asaas', split, expected('asaas'));
    assert.deepEqual(sent.split, [{ walletId: ANA.asaas, fixedValue: 5 }, { walletId: BIA.asaas, fixedValue: 2.5 }]);
  });
  test('pagbank: FIXED receivers summing to the amount', async () => {
    const sent = await charge('pagbank', split, expected('pagbank'));
    assert.deepEqual(sent.charges[0].splits.receivers.map((r: any) => [r.account.id, r.amount.value]), [[OWN_PAGBANK, 1249], [ANA.pagbank, 500], [BIA.pagbank, 250]]);
  });
  test('stripe: one fixed recipient; a raw acct_ id given for stripe works like a coproducer', async () => {
    const sent = await charge('stripe', [{ type: 'fixed', amount: 500, recipient_id: 'acct_1RawRecipient' }], [applied('acct_1RawRecipient', undefined, 'fixed', 500)]);
    assert.deepEqual([sent.transfer_data, sent.application_fee_amount], [{ destination: 'acct_1RawRecipient' }, '1499']);
  });
});

test('rounding: three thirds of 10,00 come to 3,33 each and the leftover cent stays with the merchant', async () => {
  const split = ['ana', 'bia'].map((n) => ({ type: 'percentage', amount: 33.33, coproducerEmail: `${n}@example.com` }));
  const { key, base } = await setup('pagarme');
  const cleo = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'cleo@example.com', name: 'Cleo', recipients: { pagarme: 'rp_CleoCleoCleoCleo' } } });
  assert.equal(cleo.status, 201);
  const res = await e2e.call('POST', '/api/v1/charges', { key, body: { ...base, amount: 1000, split: [...split, { type: 'percentage', amount: 33.33, coproducerEmail: 'cleo@example.com' }] } });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.body.data.split.map((s: { amount: number }) => s.amount), [333, 333, 333]);
  const sent = (await e2e.control.lastRequest('pagarme'))!.body as any;
  // Fractional percents go as flat cents, so Pagar.me applies exactly these; the account's own rule gets the cent.
  assert.deepEqual(sent.payments[0].split.map((r: any) => [r.type, r.amount]), [['flat', 1], ['flat', 333], ['flat', 333], ['flat', 333]]);
  assert.equal(sent.payments[0].split[0].recipient_id, OWN_PAGARME);
});

describe('the emulators refuse what the real APIs refuse', () => {
  const post = async (gateway: string, path: string, headers: Record<string, string>, body: string) => {
    const res = await request(`${e2e.sandbox.emulators.gatewayUrl(gateway)}${path}`, { method: 'POST', headers, body });
    return { status: res.statusCode, body: await res.body.json() as any };
  };
  const json = { 'content-type': 'application/json' };
  test('pagarme: percentage rules that do not sum to 100', async () => {
    const auth = `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}`;
    const order = {
      items: [{ amount: 1000, description: 'x', quantity: 1 }], customer: { name: 'Maria Souza', email: 'm@example.com', document: '12345678909', type: 'individual' },
      payments: [{ payment_method: 'boleto', boleto: {}, split: [{ amount: 30, recipient_id: ANA.pagarme, type: 'percentage', options: { liable: true, charge_processing_fee: true, charge_remainder_fee: true } }] }],
    };
    const res = await post('pagarme', '/core/v5/orders', { ...json, authorization: auth }, JSON.stringify(order));
    assert.equal(res.status, 422);
    assert.match(JSON.stringify(res.body.errors), /must be 100/);
  });
  test('asaas: a split above the net value', async () => {
    const customer = await post('asaas', '/v3/customers', { ...json, access_token: SANDBOX_CREDENTIALS.asaas.apiKey }, JSON.stringify({ name: 'Maria Souza', cpfCnpj: '24971563792' }));
    const due = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const res = await post('asaas', '/v3/payments', { ...json, access_token: SANDBOX_CREDENTIALS.asaas.apiKey },
      JSON.stringify({ customer: customer.body.id, billingType: 'PIX', value: 10, dueDate: due, split: [{ walletId: ANA.asaas, fixedValue: 9.5 }] }));
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'invalid_split');
    assert.match(res.body.errors[0].description, /valor líquido/);
  });
  test('stripe: an application fee above the amount, and a fee beside transfer_data[amount]', async () => {
    const auth = { authorization: `Bearer ${SANDBOX_CREDENTIALS.stripe.secretKey}`, 'content-type': 'application/x-www-form-urlencoded', 'stripe-version': '2026-07-29.dahlia' };
    const res = await post('stripe', '/v1/payment_intents', auth, 'amount=1000&currency=brl&payment_method_types[]=pix&transfer_data[destination]=acct_1X&application_fee_amount=1001');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'application_fee_amount');
    const both = await post('stripe', '/v1/payment_intents', auth, 'amount=1000&currency=brl&payment_method_types[]=pix&transfer_data[destination]=acct_1X&transfer_data[amount]=10&application_fee_amount=10');
    assert.match(both.body.error.message, /only specify one of these parameters/);
  });
  test('pagbank: FIXED receivers that do not add up to the charge', async () => {
    const res = await post('pagbank', '/orders', { ...json, authorization: `Bearer ${SANDBOX_CREDENTIALS.pagbank.token}` }, JSON.stringify({
      reference_id: 'x', customer: { name: 'Maria Souza', email: 'm@example.com', tax_id: '12345678909' },
      qr_codes: [{ amount: { value: 1000 }, splits: { method: 'FIXED', receivers: [{ account: { id: ANA.pagbank }, amount: { value: 500 } }] } }],
    }));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error_messages[0], { code: '40002', description: 'invalid_parameter', parameter_name: 'qr_codes[0].splits.receivers' });
  });
  test('mercadopago: an application fee without a seller\'s OAuth token', async () => {
    const res = await post('mercadopago', '/v1/payments', { ...json, authorization: `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}`, 'x-idempotency-key': 'split-fee-1' },
      JSON.stringify({ transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'm@example.com' }, application_fee: 1 }));
    assert.equal(res.status, 400);
    assert.equal(res.body.cause[0].code, 2059);
  });
});
