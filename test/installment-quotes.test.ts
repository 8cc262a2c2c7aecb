import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/demo-account';

// Gateway-priced installment quotes over real HTTP: GET /api/v1/installments with gateway=mercadopago|pagbank and a
// card's bin asks the gateway's own quote endpoint (the emulators implement them as the real APIs answer), and every
// plan is checked to the cent against an independent computation of the emulators' published rate tables.

const SETTINGS = { maxCount: 12, interestFreeCount: 3, monthlyInterestRate: 1.99, minInstallmentAmount: 0 };

/** Half up to the whole: the nearest integer to num / den, halves away from zero (both positive). */
const halfUp = (num: bigint, den: bigint): number => {
  const q = num / den;
  return Number(2n * (num % den) >= den ? q + 1n : q);
};

/**
 * Mercado Pago's emulated issuers (src/gateways/mercadopago/emulator-installments.ts): installment_rate is the percent
 * over the amount for the whole plan; the bin's sixth digit even picks the first table, odd the second.
 */
const MP_RATES = {
  even: [0, 0, 0, 5.99, 7.49, 8.99, 10.49, 11.99, 13.49, 14.99, 16.49, 17.99],
  odd: [0, 0, 0, 0, 0, 0, 9.99, 11.49, 12.99, 14.49, 15.99, 17.49],
};

function expectedMercadoPago(amount: number, bin: string) {
  const rates = Number(bin[5]) % 2 === 0 ? MP_RATES.even : MP_RATES.odd;
  return rates.map((rate, i) => {
    const count = i + 1;
    const basisPoints = BigInt(Math.round(rate * 100));
    const totalAmount = halfUp(BigInt(amount) * (10_000n + basisPoints), 10_000n);
    return { count, installmentAmount: halfUp(BigInt(totalAmount), BigInt(count)), totalAmount, interestFree: rate === 0, monthlyInterestRate: rate === 0 ? 0 : null };
  });
}

/** PagBank's emulated brands (emulator-installments.ts): a monthly rate, compound, beyond the interest-free counts. */
const PAGBANK_RATES: Record<string, number> = { visa: 2.99, mastercard: 2.99, elo: 3.49, amex: 3.99 };

/** P = amount x i / (1 - (1 + i)^-n), i = rate / 100 as an exact fraction (rate in ten-thousandths over 10^6). */
function priceInstallment(amount: number, count: number, ratePercent: number): number {
  const r = BigInt(Math.round(ratePercent * 10_000));
  const d = 1_000_000n;
  const g = (d + r) ** BigInt(count);
  return halfUp(BigInt(amount) * r * g, d * (g - d ** BigInt(count)));
}

function expectedPagBank(amount: number, brand: string, maxCount: number, freeCount: number) {
  const plans = [];
  for (let count = 1; count <= maxCount; count++) {
    const free = count === 1 || count <= freeCount;
    const installmentAmount = free ? Math.ceil(amount / count) : priceInstallment(amount, count, PAGBANK_RATES[brand]);
    if (count > 1 && installmentAmount < 500) continue; // PagBank's smallest installment, R$ 5,00
    plans.push({ count, installmentAmount, totalAmount: free ? amount : installmentAmount * count, interestFree: free, monthlyInterestRate: free ? 0 : null });
  }
  return plans;
}

let e2e: E2E;
let key: string;
before(async () => {
  e2e = await startE2E();
  key = await e2e.account({ primaryGateway: 'mercadopago' });
  const saved = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { installments: SETTINGS } });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
});
after(async () => {
  await e2e?.close();
});

const quote = (query: string, as = key) => e2e.call('GET', `/api/v1/installments?${query}`, { key: as });

describe('Mercado Pago quotes (GET /v1/payment_methods/installments)', () => {
  for (const [bin, issuer] of [['42222200', 'even'], ['411111', 'odd'], ['555553', 'odd']]) {
    test(`1 to 12 installments for bin ${bin} (${issuer} issuer), to the cent`, async () => {
      await e2e.control.clearRequests();
      for (const amount of [123457, 100000, 1999]) {
        const res = await quote(`amount=${amount}&gateway=mercadopago&bin=${bin}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data.source, 'gateway');
        assert.equal(res.body.data.gateway, 'mercadopago');
        assert.equal(res.body.data.amount, amount);
        assert.deepEqual(res.body.data.plans, expectedMercadoPago(amount, bin), `amount ${amount}`);
      }
      const asked = (await e2e.control.requests('mercadopago')).filter((r) => r.path.startsWith('/v1/payment_methods/installments'));
      assert.equal(asked.length, 3, 'one quote call per request');
      const params = new URLSearchParams(asked[0].path.split('?')[1]);
      assert.equal(params.get('amount'), '1234.57', 'Mercado Pago is asked in reais');
      assert.equal(params.get('bin'), bin);
      assert.equal(asked[0].headers.authorization, `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}`, 'with the account\'s stored token');
    });
  }

  test('the account\'s settings choose which of the gateway\'s plans are shown (maxCount, minInstallmentAmount)', async () => {
    const narrow = await e2e.account({ primaryGateway: 'mercadopago' });
    await e2e.call('PATCH', '/api/v1/clients/settings', { key: narrow, body: { installments: { maxCount: 8, interestFreeCount: 2, minInstallmentAmount: 15000 } } });
    const res = await quote('amount=100000&gateway=mercadopago&bin=422222', narrow);
    const expected = expectedMercadoPago(100000, '422222').filter((p) => p.count <= 8 && p.installmentAmount >= 15000);
    assert.ok(expected.length >= 2 && expected.length < 8, 'the filter leaves some plans out');
    assert.deepEqual(res.body.data.plans, expected, 'the gateway\'s own plans, only filtered');
  });

  test('without a bin the quote is computed from the settings, and says so', async () => {
    const res = await quote('amount=100000&gateway=mercadopago');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.source, 'settings');
    assert.equal(res.body.data.plans[3].monthlyInterestRate, 1.99);
  });
});

describe('PagBank quotes (GET /charges/fees/calculate)', () => {
  for (const [bin, brand] of [['555566', 'mastercard'], ['636368', 'elo'], ['411111', 'visa']]) {
    test(`1 to 12 installments for a ${brand} bin, to the cent; the interest-free counts are the account's`, async () => {
      await e2e.control.clearRequests();
      for (const amount of [123457, 100000, 2999]) {
        const res = await quote(`amount=${amount}&gateway=pagbank&bin=${bin}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data.source, 'gateway');
        assert.equal(res.body.data.gateway, 'pagbank');
        assert.deepEqual(res.body.data.plans, expectedPagBank(amount, brand, 12, 3), `amount ${amount}`);
      }
      const asked = (await e2e.control.requests('pagbank')).filter((r) => r.path.startsWith('/charges/fees/calculate'));
      const params = new URLSearchParams(asked[0].path.split('?')[1]);
      assert.deepEqual(Object.fromEntries(params), {
        payment_methods: 'CREDIT_CARD', value: '123457', max_installments: '12', max_installments_no_interest: '3', credit_card_bin: bin,
      }, 'value in cents, the account\'s counts');
      assert.equal(asked[0].headers.authorization, `Bearer ${SANDBOX_CREDENTIALS.pagbank.token}`);
    });
  }

  test('a small amount: plans under R$ 5,00 an installment are not quoted', async () => {
    const res = await quote('amount=2000&gateway=pagbank&bin=411111');
    assert.deepEqual(res.body.data.plans.map((p: { count: number }) => p.count), [1, 2, 3, 4]);
  });
});

describe('charging after a gateway quote', () => {
  const charge = (count: number, installmentsTotal: number) => e2e.call('POST', '/api/v1/charges', {
    key, body: { paymentMethod: 'credit_card', amount: 100000, gateway: 'mercadopago', customer: CUSTOMER, creditCard: { ...CARD, installments: count, installmentsTotal } },
  });

  test('the total charged is the total the charge names, or nothing moves', async () => {
    const plans = (await quote('amount=100000&gateway=mercadopago&bin=422222')).body.data.plans as Array<{ count: number; totalAmount: number }>;
    const before = (await e2e.control.ledger('mercadopago')).length;
    // 4x: the issuer's 5.99% over the amount is not the account's plan (1.99% a month): refused before any call.
    const withInterest = plans.find((p) => p.count === 4)!;
    assert.equal(withInterest.totalAmount, 105990);
    const refused = await charge(4, withInterest.totalAmount);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
    assert.match(refused.body.error.message, /totals 105024 cents, not the 105990 quoted/);
    assert.equal((await e2e.control.ledger('mercadopago')).length, before, 'nothing reached the gateway');
    // 3x: interest-free at the gateway and in the settings, the same total: charged exactly that.
    const free = plans.find((p) => p.count === 3)!;
    const res = await charge(3, free.totalAmount);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.amount, free.totalAmount);
    const held = (await e2e.control.ledger('mercadopago')).filter((e) => e.reference === res.body.data.id);
    assert.deepEqual(held.map((e) => e.amount), [free.totalAmount]);
  });
});

describe('property', () => {
  test('for any amount, card, gateway quote and settings: the total charged is the quoted total, or nothing moves', async () => {
    const seen = { charged: 0, refused: 0 };
    const settings = fc.record({
      interestFreeCount: fc.integer({ min: 1, max: 12 }),
      monthlyInterestRate: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40_000 }).map((n) => n / 10_000)),
    });
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1_000, max: 3_000_000 }), fc.integer({ min: 2, max: 12 }), fc.constantFrom('422222', '411111', '555566', '636368'),
      fc.constantFrom('mercadopago', 'pagbank'), settings,
      async (amount, count, bin, gateway, s) => {
        const as = await e2e.account({ primaryGateway: gateway });
        await e2e.call('PATCH', '/api/v1/clients/settings', { key: as, body: { installments: { maxCount: 12, minInstallmentAmount: 0, ...s } } });
        const q = await quote(`amount=${amount}&gateway=${gateway}&bin=${bin}`, as);
        assert.equal(q.status, 200, q.text);
        const plan = q.body.data.plans.find((p: { count: number }) => p.count === count);
        if (!plan) return;
        const before = (await e2e.control.ledger(gateway)).length;
        const res = await e2e.call('POST', '/api/v1/charges', {
          key: as, body: { paymentMethod: 'credit_card', amount, gateway, customer: CUSTOMER, creditCard: { ...CARD, installments: count, installmentsTotal: plan.totalAmount } },
        });
        const id = res.status === 201 ? res.body.data.id : res.headers['x-rg-charge-id'];
        const held = typeof id === 'string' ? (await e2e.control.ledger(gateway)).filter((e) => e.reference === id).map((e) => e.amount) : [];
        if (res.status === 201) {
          seen.charged++;
          assert.equal(res.body.data.amount, plan.totalAmount);
          assert.deepEqual(held, [plan.totalAmount], 'the gateway holds the quoted total');
        } else {
          seen.refused++;
          assert.equal(res.status, 400, res.text);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.deepEqual(held, [], 'a refused charge holds no money');
          assert.equal((await e2e.control.ledger(gateway)).length, before, 'nothing reached the gateway');
        }
      },
    ), { numRuns: Number(process.env.INSTALLMENT_RUNS ?? 25), seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 45, endOnFailure: true, includeErrorInReport: true });
    assert.ok(seen.charged > 0 && seen.refused > 0, `both outcomes were exercised: ${JSON.stringify(seen)}`);
  });
});

describe('errors', () => {
  test('no credentials for the gateway: MISSING_CREDENTIALS, never a quote from settings in its place', async () => {
    const other = await e2e.account({ primaryGateway: 'pagarme' }, ['pagarme']);
    for (const gateway of ['mercadopago', 'pagbank']) {
      const res = await quote(`amount=100000&gateway=${gateway}&bin=411111`, other);
      assert.equal(res.status, 400, gateway);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'MISSING_CREDENTIALS');
      assert.match(res.body.error.message, new RegExp(gateway));
    }
  });

  test('credentials the gateway refuses: the gateway\'s auth error', async () => {
    const refused = await e2e.account({}, ['mercadopago', 'pagbank'], { mercadopago: { accessToken: 'APP_USR-invalid' }, pagbank: { token: 'invalid-token' } });
    for (const gateway of ['mercadopago', 'pagbank']) {
      const res = await quote(`amount=100000&gateway=${gateway}&bin=411111`, refused);
      assert.equal(res.body.success, false, gateway);
      assert.equal(res.body.error.code, 'GATEWAY_AUTH_ERROR', gateway);
    }
  });

  test('a card the gateway has no plans for: 422 naming the bin', async () => {
    const res = await quote('amount=100000&gateway=mercadopago&bin=999999');
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'GATEWAY_UNSUPPORTED_OPERATION');
    assert.match(res.body.error.message, /mercadopago quotes no installment plans for the card with bin 999999/);
    const pb = await quote('amount=100000&gateway=pagbank&bin=999999');
    assert.equal(pb.status, 502);
    assert.equal(pb.body.error.code, 'GATEWAY_ERROR', 'PagBank refuses an unknown bin (40002), and RouteGate says what PagBank said');
    assert.match(pb.body.error.message, /credit_card_bin/);
  });

  test('a gateway that fails: the error envelope', async () => {
    await e2e.control.fault('mercadopago', 'http500', { count: 10, path: '/v1/payment_methods/installments' });
    const res = await quote('amount=100000&gateway=mercadopago&bin=411111');
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'GATEWAY_ERROR');
    await e2e.control.clearFaults('mercadopago');
  });

  test('the emulators refuse what the real APIs refuse', async () => {
    const base = e2e.sandbox.emulators.url;
    const mp = (q: string) => fetch(`${base}/mercadopago/v1/payment_methods/installments${q}`, { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}` } });
    let res = await mp('?bin=411111');
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(await res.json() as object).sort(), ['cause', 'error', 'message', 'status']);
    assert.equal((await mp('?amount=100')).status, 400, 'no bin and no payment_method_id');
    assert.equal((await mp('?amount=-1&bin=411111')).status, 400);
    assert.deepEqual(await (await mp('?amount=100&bin=999999')).json(), [], 'an unknown card: an empty list');
    assert.equal((await fetch(`${base}/mercadopago/v1/payment_methods/installments?amount=100&bin=411111`)).status, 401);

    const pb = (q: string) => fetch(`${base}/pagbank/charges/fees/calculate${q}`, { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.pagbank.token}` } });
    for (const q of ['?value=10000', '?payment_methods=CREDIT_CARD', '?payment_methods=CREDIT_CARD&value=100.5',
      '?payment_methods=CREDIT_CARD&value=10000&max_installments=19', '?payment_methods=CREDIT_CARD&value=10000&max_installments=3&max_installments_no_interest=4']) {
      res = await pb(q);
      assert.equal(res.status, 400, q);
      assert.equal((await res.json() as { error_messages: Array<{ code: string }> }).error_messages[0].code, '40002', q);
    }
    const all = await (await pb('?payment_methods=CREDIT_CARD&value=10000&max_installments=2')).json() as { payment_methods: { credit_card: object } };
    assert.deepEqual(Object.keys(all.payment_methods.credit_card).sort(), ['amex', 'elo', 'hipercard', 'mastercard', 'visa'], 'without a bin, every brand');
    assert.equal((await fetch(`${base}/pagbank/charges/fees/calculate?payment_methods=CREDIT_CARD&value=10000`)).status, 401);
  });
});

describe('PagBank in the reais profile (ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais)', () => {
  let reais: E2E;
  before(async () => {
    reais = await startE2E({ ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais' });
  });
  after(async () => {
    await reais?.close();
  });

  test('the value goes in reais and the plans come back in cents, the same to the cent', async () => {
    const as = await reais.account({ primaryGateway: 'pagbank' });
    await reais.call('PATCH', '/api/v1/clients/settings', { key: as, body: { installments: SETTINGS } });
    const res = await reais.call('GET', '/api/v1/installments?amount=123457&gateway=pagbank&bin=555566', { key: as });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.plans, expectedPagBank(123457, 'mastercard', 12, 3));
    const asked = (await reais.control.requests('pagbank')).find((r) => r.path.startsWith('/charges/fees/calculate'));
    assert.equal(new URLSearchParams(asked!.path.split('?')[1]).get('value'), '1234.57');
  });
});
