import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/demo-account';
import type { GatewayId } from '../src/gateways/registry-ids';
import { ASAAS_CUSTOMER, asaasCard, asaasHeaders } from './compat/cases/asaas';

// Charging a gateway's own quoted plan over real HTTP (docs/installments.md, "Charging a gateway's quote"): the quote
// is stored and named by the charge (creditCard.installmentsQuoteId); the quoting gateway charges the plan as its own
// (Mercado Pago: the price with installments and issuer_id, the buyer's total from its answer; PagBank: the total with
// amount.fees.buyer.interest), and every fallback charges the quoted total. A bad quote is refused before any call.

const SETTINGS = { maxCount: 12, interestFreeCount: 3, monthlyInterestRate: 1.99, minInstallmentAmount: 0 };
/** The test card's bin (4242 4242...): visa; for Mercado Pago's emulator the even issuer (id 25). */
const BIN = '424242';

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(async () => {
  await e2e?.close();
});

interface Plan { count: number; installmentAmount: number; totalAmount: number; interestFree: boolean }

async function account(primaryGateway: GatewayId, gatewayFallbacks: GatewayId[] = [], settings: object = SETTINGS): Promise<string> {
  const key = await e2e.account({ primaryGateway, gatewayFallbacks });
  const saved = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { installments: settings } });
  assert.equal(saved.status, 200, saved.text);
  return key;
}

async function quote(key: string, amount: number, gateway: GatewayId, bin = BIN): Promise<{ quoteId: string; expiresAt: string; plans: Plan[] }> {
  const res = await e2e.call('GET', `/api/v1/installments?amount=${amount}&gateway=${gateway}&bin=${bin}`, { key });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.source, 'gateway');
  return res.body.data;
}

const charge = (key: string, amount: number, creditCard: Record<string, unknown>) => e2e.call('POST', '/api/v1/charges', {
  key, body: { paymentMethod: 'credit_card', amount, customer: CUSTOMER, creditCard: { ...CARD, ...creditCard } },
});

/** Every gateway's ledger entries of one charge, as [gateway, amount, buyerTotal?]. */
async function held(chargeId: string): Promise<Array<[string, number, number | undefined]>> {
  return (await e2e.control.ledger()).filter((e) => e.reference === chargeId).map((e) => [e.gateway, e.amount, e.buyerTotal]);
}

const creates = async (gateway: GatewayId, path: string) => (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && r.path === path);

describe('the quote answer', () => {
  test('a gateway quote carries its quoteId and expiresAt (30 minutes); a quote from settings carries neither', async () => {
    const key = await account('mercadopago');
    const before = Date.now();
    const q = await quote(key, 100000, 'mercadopago');
    assert.match(q.quoteId, /^iq_[0-9a-f]{32}$/);
    const expires = Date.parse(q.expiresAt);
    assert.ok(expires >= before + 30 * 60_000 - 1000 && expires <= Date.now() + 30 * 60_000 + 1000, q.expiresAt);
    const fromSettings = await e2e.call('GET', '/api/v1/installments?amount=100000', { key });
    assert.equal(fromSettings.body.data.quoteId, undefined);
    assert.equal(fromSettings.body.data.expiresAt, undefined);
  });
});

describe('on the quoting gateway', () => {
  test('Mercado Pago: the price with installments and issuer_id; the buyer pays the quoted total, read from the answer', async () => {
    const key = await account('mercadopago', ['pagarme']);
    const q = await quote(key, 100000, 'mercadopago');
    const plan = q.plans.find((p) => p.count === 6)!;
    assert.equal(plan.totalAmount, 108990, 'the issuer\'s 8.99% over the price');
    await e2e.control.clearRequests();
    const res = await charge(key, 100000, { installments: 6, installmentsQuoteId: q.quoteId, installmentsTotal: plan.totalAmount });
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.equal(c.gateway, 'mercadopago');
    assert.equal(c.amount, 100000, 'the charge is the price: Mercado Pago finances the interest');
    const expected = { count: 6, installmentAmount: plan.installmentAmount, totalAmount: plan.totalAmount, interestFree: false, quoteId: q.quoteId, financedBy: 'mercadopago' };
    assert.deepEqual(c.installments, expected);
    const [sent] = await creates('mercadopago', '/v1/payments');
    const body = sent.body as Record<string, unknown>;
    assert.deepEqual([body.transaction_amount, body.installments, body.issuer_id], [1000, 6, '25'], 'the wire: price in reais, the count, the quote\'s issuer');
    assert.deepEqual(await held(c.id), [['mercadopago', 100000, plan.totalAmount]], 'Mercado Pago took the price; the buyer pays the quoted total');
    const read = await e2e.call('GET', `/api/v1/charges/${c.id}`, { key });
    assert.deepEqual(read.body.data.installments, expected);
  });

  test('Mercado Pago charging another total than it quoted: its figure is kept, the quoted one beside it, nothing sent again', async () => {
    const key = await account('mercadopago');
    // The odd issuer's quote (7x at 9.99%), charged on a card of the even issuer (7x at 10.49%).
    const q = await quote(key, 100000, 'mercadopago', '411111');
    const plan = q.plans.find((p) => p.count === 7)!;
    assert.equal(plan.totalAmount, 109990);
    const res = await charge(key, 100000, { installments: 7, installmentsQuoteId: q.quoteId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.installments.totalAmount, 110490, 'what Mercado Pago says the buyer pays');
    assert.equal(res.body.data.installments.quotedTotalAmount, 109990);
    assert.deepEqual(await held(res.body.data.id), [['mercadopago', 100000, 110490]], 'one payment, never a second');
  });

  test('PagBank: the total with amount.fees.buyer.interest (repasse de taxa ao comprador)', async () => {
    const key = await account('pagbank');
    const q = await quote(key, 100000, 'pagbank');
    const plan = q.plans.find((p) => p.count === 6)!;
    assert.equal(plan.interestFree, false);
    await e2e.control.clearRequests();
    const res = await charge(key, 100000, { installments: 6, installmentsQuoteId: q.quoteId });
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.equal(c.amount, plan.totalAmount);
    assert.deepEqual(c.installments, { count: 6, installmentAmount: plan.installmentAmount, totalAmount: plan.totalAmount, interestFree: false, quoteId: q.quoteId, financedBy: 'pagbank' });
    const [sent] = await creates('pagbank', '/orders');
    const wire = (sent.body as { charges: Array<{ amount: unknown; payment_method: { installments: number } }> }).charges[0];
    assert.deepEqual(wire.amount, { value: plan.totalAmount, currency: 'BRL', fees: { buyer: { interest: { total: plan.totalAmount - 100000, installments: 6 } } } });
    assert.equal(wire.payment_method.installments, 6);
    assert.deepEqual(await held(c.id), [['pagbank', plan.totalAmount, undefined]]);
  });

  test('the PagBank emulator refuses an interest its fees table does not give, as the real API: 400 40002 naming the field', async () => {
    const url = e2e.sandbox.app.config.gatewayUrls.pagbank;
    const order = (interest: { total: number; installments: number }) => ({
      reference_id: 'ref-fees', customer: { name: 'Maria Souza', email: 'maria@example.com', tax_id: '12345678909' },
      charges: [{
        reference_id: 'ref-fees', amount: { value: 100000 + interest.total, currency: 'BRL', fees: { buyer: { interest } } },
        payment_method: { type: 'CREDIT_CARD', installments: 6, capture: true, card: { number: CARD.number, exp_month: 12, exp_year: 2030, security_code: '123', holder: { name: 'MARIA SOUZA' } } },
      }],
    });
    const post = async (body: unknown) => {
      const res = await fetch(`${url}/orders`, { method: 'POST', headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.pagbank.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() as { error_messages?: Array<{ code: string; parameter_name: string }> } };
    };
    const key = await account('pagbank');
    const right = (await quote(key, 100000, 'pagbank')).plans.find((p) => p.count === 6)!.totalAmount - 100000;
    for (const [interest, field] of [
      [{ total: right + 1, installments: 6 }, 'charges[0].amount.fees.buyer.interest.total'],
      [{ total: right, installments: 5 }, 'charges[0].amount.fees.buyer.interest.installments'],
    ] as const) {
      const res = await post(order(interest));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual([res.body.error_messages?.[0].code, res.body.error_messages?.[0].parameter_name], ['40002', field]);
    }
    assert.equal((await post(order({ total: right, installments: 6 }))).status, 201, 'the table\'s own interest is taken');
  });
});

describe('on a fallback, or another gateway than the quote\'s', () => {
  test('Mercado Pago refuses the create (429): the fallback charges exactly the quoted total', async () => {
    const key = await account('mercadopago', ['pagarme']);
    const q = await quote(key, 100000, 'mercadopago');
    const plan = q.plans.find((p) => p.count === 6)!;
    await e2e.control.fault('mercadopago', 'http429', { count: 1, method: 'POST', path: '/v1/payments' });
    const res = await charge(key, 100000, { installments: 6, installmentsQuoteId: q.quoteId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.equal(res.body.data.amount, plan.totalAmount);
    assert.deepEqual(res.body.data.installments, { count: 6, installmentAmount: plan.installmentAmount, totalAmount: plan.totalAmount, interestFree: false, quoteId: q.quoteId });
    assert.deepEqual(await held(res.body.data.id), [['pagarme', plan.totalAmount, undefined]]);
  });

  test('a PagBank quote, Stripe skipped for BRL, Mercado Pago charging: the quoted total, no issuer plan', async () => {
    const key = await account('stripe', ['mercadopago', 'pagbank']);
    const q = await quote(key, 100000, 'pagbank');
    const plan = q.plans.find((p) => p.count === 5)!;
    await e2e.control.clearRequests();
    const res = await charge(key, 100000, { installments: 5, installmentsQuoteId: q.quoteId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'mercadopago');
    assert.equal(res.body.data.amount, plan.totalAmount);
    const [sent] = await creates('mercadopago', '/v1/payments');
    const body = sent.body as Record<string, unknown>;
    assert.deepEqual([body.transaction_amount, body.installments, body.issuer_id], [plan.totalAmount / 100, 5, undefined]);
    assert.deepEqual(await held(res.body.data.id), [['mercadopago', plan.totalAmount, undefined]]);
    const attempts = (await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key })).body.data.attempts;
    assert.deepEqual(attempts.map((a: { gateway: string; outcome: string }) => [a.gateway, a.outcome]), [['stripe', 'skipped'], ['mercadopago', 'success']]);
  });
});

describe('a bad quote is refused before any gateway call', () => {
  test('unknown, another account\'s, expired, another amount, a count it lacks, another total', async () => {
    const key = await account('mercadopago', ['pagbank']);
    const other = await account('mercadopago');
    const mine = await quote(key, 100000, 'mercadopago');
    const theirs = await quote(other, 100000, 'mercadopago');
    const small = await quote(key, 2000, 'pagbank');
    assert.deepEqual(small.plans.map((p) => p.count), [1, 2, 3, 4]);
    const expired = await quote(key, 100000, 'mercadopago');
    await e2e.sandbox.app.store.query('UPDATE installment_quotes SET expires_at = ? WHERE id = ? RETURNING id', ['2020-01-01T00:00:00.000Z', expired.quoteId]);
    await e2e.control.clearRequests();
    const ledger = (await e2e.control.ledger()).length;
    const cases: Array<[number, Record<string, unknown>, RegExp, string]> = [
      [100000, { installments: 6, installmentsQuoteId: 'iq_nope' }, /installment quote iq_nope is not one of this account's quotes/, 'creditCard.installmentsQuoteId'],
      [100000, { installments: 6, installmentsQuoteId: theirs.quoteId }, /is not one of this account's quotes/, 'creditCard.installmentsQuoteId'],
      [100000, { installments: 6, installmentsQuoteId: expired.quoteId }, /expired at 2020-01-01T00:00:00.000Z/, 'creditCard.installmentsQuoteId'],
      [100001, { installments: 6, installmentsQuoteId: mine.quoteId }, /the charge is for 100001 cents but installment quote iq_\w+ priced 100000 cents/, 'amount'],
      [2000, { installments: 6, installmentsQuoteId: small.quoteId }, /has no plan of 6 installments \(it quotes 1, 2, 3, 4\)/, 'creditCard.installments'],
      [100000, { installments: 6, installmentsQuoteId: mine.quoteId, installmentsTotal: 100000 }, /totals 108990 cents, not the 100000 quoted/, ''],
    ];
    for (const [amount, card, message, field] of cases) {
      const res = await charge(key, amount, card);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.match(res.body.error.message, message);
      if (field) assert.equal(res.body.error.details.errors[0].field, field);
    }
    const schema = await charge(key, 100000, { installments: 6, installmentsQuoteId: 'bad id!' });
    assert.equal(schema.status, 400);
    assert.equal(schema.body.error.code, 'VALIDATION_ERROR', 'the schema\'s envelope');
    assert.deepEqual((await e2e.control.requests()).filter((r) => r.method === 'POST'), [], 'no gateway was called');
    assert.equal((await e2e.control.ledger()).length, ledger, 'no money moved');
  });
});

describe('compatibility mode', () => {
  test('an Asaas create with installmentCount charged on another gateway answers its plan as Asaas links installments', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', compatibilityMode: 'asaas' });
    const post = (path: string, body: unknown) => e2e.call('POST', path, { rawBody: JSON.stringify(body), headers: asaasHeaders(key) });
    const customer = (await post('/compat/asaas/v3/customers', ASAAS_CUSTOMER)).body.id;
    const { value: _value, ...card } = asaasCard();
    const res = await post('/compat/asaas/v3/payments', { ...card, customer, totalValue: 129.9, installmentCount: 3 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-rg-gateway'], 'pagarme');
    const chargeId = String(res.headers['x-rg-charge-id']);
    assert.deepEqual([res.body.installment, res.body.installmentNumber, res.body.installmentCount, res.body.value], [chargeId, 1, 3, 129.9]);
    assert.deepEqual(await held(chargeId), [['pagarme', 12990, undefined]], 'one payment for the whole value');
    const read = await e2e.call('GET', `/compat/asaas/v3/payments/${chargeId}`, { headers: asaasHeaders(key) });
    assert.deepEqual([read.body.installment, read.body.installmentNumber, read.body.installmentCount], [chargeId, 1, 3], 'read back natively');
    const normalized = await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key });
    assert.deepEqual(normalized.body.data.installments, { count: 3, installmentAmount: 4330, totalAmount: 12990, interestFree: true });
    const single = await post('/compat/asaas/v3/payments', { ...asaasCard(), customer });
    assert.deepEqual([single.body.installment, single.body.installmentNumber, single.body.installmentCount], [null, null, undefined]);
  });
});

describe('property', () => {
  test('for any amount, count, quoting gateway and failure of it: the buyer pays the quoted total, or nothing moves', async () => {
    const seen = { own: 0, fallback: 0, refused: 0 };
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1_000, max: 2_000_000 }), fc.integer({ min: 2, max: 13 }), fc.constantFrom<GatewayId>('mercadopago', 'pagbank'),
      fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.integer({ min: -1, max: 1 }),
      async (amount, count, gateway, refuses, interestFreeCount, amountDrift) => {
        const key = await account(gateway, ['pagarme'], { ...SETTINGS, interestFreeCount });
        const q = await quote(key, amount, gateway);
        const plan = q.plans.find((p) => p.count === count);
        if (refuses) await e2e.control.fault(gateway, 'http429', { count: 1, method: 'POST', path: gateway === 'mercadopago' ? '/v1/payments' : '/orders' });
        const before = (await e2e.control.ledger()).length;
        const res = await charge(key, amount + amountDrift, { installments: count, installmentsQuoteId: q.quoteId });
        await e2e.control.clearFaults(gateway);
        if (res.status === 201) {
          assert.ok(plan && amountDrift === 0, 'only a quoted plan, for the quoted amount, is charged');
          const c = res.body.data;
          const entries = await held(c.id);
          assert.equal(entries.length, 1, 'one payment');
          const [where, took, buyerTotal] = entries[0];
          assert.equal(c.installments.totalAmount, plan.totalAmount);
          if (where === 'mercadopago') {
            assert.deepEqual([took, buyerTotal ?? took], [amount, plan.totalAmount], 'Mercado Pago took the price; the buyer pays the quoted total');
            seen.own++;
          } else {
            assert.equal(took, plan.totalAmount, `${where} holds the quoted total`);
            if (where === gateway) seen.own++;
            else seen.fallback++;
          }
        } else {
          seen.refused++;
          assert.equal(res.status, 400, res.text);
          assert.equal((await e2e.control.ledger()).length, before, 'a refused charge moved no money');
        }
      },
    ), { numRuns: Number(process.env.INSTALLMENT_RUNS ?? 20), seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 46, endOnFailure: true, includeErrorInReport: true });
    assert.ok(seen.own > 0 && seen.fallback > 0 && seen.refused > 0, `every outcome was exercised: ${JSON.stringify(seen)}`);
  });
});
