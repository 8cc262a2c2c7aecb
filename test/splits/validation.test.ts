import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';

// Issue 13: split rules checked before anything is routed (400 naming each problem), and refunds of split charges.

let e2e: E2E;
let key: string;
before(async () => {
  e2e = await startE2E();
  key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
  const res = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'ana@example.com', name: 'Ana', recipients: { pagarme: 'rp_AnaAnaAnaAnaAnaA', stripe: 'acct_1AnaConnect' } } });
  assert.equal(res.status, 201, res.text);
});
after(() => e2e.close());

const card = (split: unknown, amount = 2500) => ({ paymentMethod: 'credit_card', amount, customer: CUSTOMER, creditCard: CARD, split });
const ana = (type: string, amount: number) => ({ type, amount, coproducerEmail: 'ana@example.com' });

describe('split rules', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['a percentage above 100', [ana('percentage', 500)], 2500, /split\.0\.amount must be a percentage greater than 0 and at most 100/],
    ['a percentage with three decimals', [ana('percentage', 10.555)], 2500, /at most two decimals/],
    ['percentages summing above 100', [ana('percentage', 60), { type: 'percentage', amount: 60, recipient_id: 'rp_BiaBiaBiaBiaBiaB' }], 2500, /split percentages add up to 120, more than 100/],
    ['fixed amounts reaching the charge amount', [ana('fixed', 2500)], 2500, /split fixed amounts add up to 2500 cents: they must stay below the charge amount \(2500\)/],
    ['fixed cents that are not whole', [ana('fixed', 10.5)], 2500, /split\.0\.amount must be whole cents/],
    ['a mix worth more than the charge', [ana('percentage', 60), { type: 'fixed', amount: 1500, recipient_id: 'rp_BiaBiaBiaBiaBiaB' }], 2500, /split items come to 3000 cents, more than the charge amount \(2500\)/],
    ['a percentage worth less than a cent', [ana('percentage', 0.5)], 100, /split\.0\.amount comes to less than one cent of 100/],
    ['both recipient forms', [{ ...ana('fixed', 100), recipient_id: 'rp_AnaAnaAnaAnaAnaA' }], 2500, /split\.0 needs exactly one of recipient_id or coproducerEmail/],
    ['neither recipient form', [{ type: 'fixed', amount: 100 }], 2500, /split\.0 needs recipient_id, or coproducerEmail/],
    ['an unknown coproducer', [{ type: 'fixed', amount: 100, coproducerEmail: 'nobody@example.com' }], 2500, /split\.0\.coproducerEmail nobody@example\.com is not a coproducer of this account/],
    ['a raw id not of the gateway it is given for', [{ type: 'fixed', amount: 100, recipient_id: 'acct_1AnaConnect' }], 2500, /split\.0\.recipient_id must be a Pagar\.me recipient id \(rp_ and 16 letters or digits\): pagarme is the gateway it is given for/],
    ['the same recipient twice', [ana('fixed', 100), ana('percentage', 10)], 2500, /split\.1 names the same recipient as split\.0/],
    ['an unknown type', [ana('share', 10)], 2500, /split\.0\.type must be one of: percentage, fixed, flat/],
  ];
  for (const [what, split, amount, message] of cases) {
    test(`400 for ${what}, nothing charged`, async () => {
      const before = (await e2e.control.requests()).length;
      const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(split, amount) });
      expectError(res, 'VALIDATION_ERROR', 400);
      assert.match(res.body.error.message, message);
      assert.equal(res.headers['x-rg-charge-id'], undefined, 'no charge was stored');
      assert.equal((await e2e.control.requests()).length, before, 'no gateway was called');
    });
  }

  test('flat is another name for fixed, and 100% to coproducers is allowed', async () => {
    const flat = await e2e.call('POST', '/api/v1/charges', { key, body: card([ana('flat', 300)]) });
    assert.equal(flat.status, 201, flat.text);
    assert.equal(flat.body.data.split[0].type, 'fixed');
    // Pagar.me wants someone liable and someone paying its fee: with the merchant keeping nothing, the coproducer.
    const all = await e2e.call('POST', '/api/v1/charges', { key, body: card([{ ...ana('percentage', 100), liable: true, chargeProcessingFee: true }]) });
    assert.equal(all.status, 201, all.text);
    assert.equal(all.body.data.split[0].amount, 2500);
    const nobody = await e2e.call('POST', '/api/v1/charges', { key, body: card([ana('percentage', 100)]) });
    expectError(nobody, 'GATEWAY_ERROR', 502);
    assert.equal(nobody.body.error.gateway, 'pagarme', 'Pagar.me refuses it, and a refusal never falls back');
  });
});

describe('refunds of split charges', () => {
  test('stripe: the transfer and the application fee are reversed with the refund; a plain charge sends neither', async () => {
    const k = await e2e.account({ primaryGateway: 'stripe' });
    await e2e.call('POST', '/api/v1/coproducers', { key: k, body: { email: 'ana@example.com', name: 'Ana', recipients: { stripe: 'acct_1AnaConnect' } } });
    const split = await e2e.call('POST', '/api/v1/charges', { key: k, body: card([ana('percentage', 20)]) });
    assert.equal(split.status, 201, split.text);
    const refund = await e2e.call('POST', `/api/v1/charges/${split.body.data.id}/refunds`, { key: k, body: { amount: 1000 } });
    assert.equal(refund.status, 201, refund.text);
    assert.equal(refund.body.data.refundedAmount, 1000);
    assert.deepEqual(refund.body.data.split, split.body.data.split, 'the split as applied is still shown');
    const refundCall = (await e2e.control.requests('stripe')).filter((r) => r.path === '/v1/refunds').at(-1)!.body as any;
    assert.deepEqual([refundCall.reverse_transfer, refundCall.refund_application_fee, refundCall.amount], ['true', 'true', '1000']);

    const plain = await e2e.call('POST', '/api/v1/charges', { key: k, body: { paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD } });
    const plainRefund = await e2e.call('POST', `/api/v1/charges/${plain.body.data.id}/refunds`, { key: k, body: {} });
    assert.equal(plainRefund.status, 201, plainRefund.text);
    const plainCall = (await e2e.control.requests('stripe')).filter((r) => r.path === '/v1/refunds').at(-1)!.body as any;
    assert.equal(plainCall.reverse_transfer, undefined, 'the emulator refuses reverse_transfer without a transfer, so it is never sent');
  });

  test('pagarme: refunded by its DELETE /charges/{id}, Pagar.me reversing each rule in proportion', async () => {
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card([ana('fixed', 500)]) });
    assert.equal(res.status, 201, res.text);
    const refund = await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/refunds`, { key, body: {} });
    assert.equal(refund.status, 201, refund.text);
    assert.equal(refund.body.data.status, 'refunded');
    assert.equal((await e2e.control.lastRequest('pagarme'))!.method, 'DELETE');
  });
});
