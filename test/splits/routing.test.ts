import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import type { GatewayId } from '../../src/gateways/registry-ids';

// Issue 13: a split is resolved on every attempt; a gateway that cannot apply it is skipped with its reason and
// never charged without it.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const ANA = { pagarme: 'rp_AnaAnaAnaAnaAnaA', stripe: 'acct_1AnaConnect' };
const card = (split: unknown[], extra: Record<string, unknown> = {}) => ({ paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, split, ...extra });
const toAna = [{ type: 'percentage', amount: 20, coproducerEmail: 'ana@example.com' }];

async function account(settings: Record<string, unknown>, recipients: Record<string, string> = ANA, gateways?: GatewayId[], credentials = {}): Promise<string> {
  const key = await e2e.account(settings, gateways, credentials);
  const res = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'ana@example.com', name: 'Ana', recipients } });
  assert.equal(res.status, 201, res.text);
  return key;
}
const creates = async (gateway: GatewayId) => (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && /\/(orders|payments|payment_intents)$/.test(r.path));
const attemptsOf = async (key: string, id: string) => (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data.attempts
  .map((a: { gateway: string; outcome: string; errorCode: string | null }) => `${a.gateway}:${a.errorCode ?? a.outcome}`);

describe('fallback keeps the split', () => {
  test('primary down: the fallback charges with the coproducer\'s recipient there', async () => {
    const key = await account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
    await e2e.control.fault('pagarme', 'http429', { method: 'POST', path: '/core/v5/orders' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(toAna) });
    await e2e.control.clearFaults();
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'stripe');
    assert.equal(res.body.data.gatewayFallbackUsed, true);
    assert.deepEqual(res.body.data.split, [{ type: 'percentage', recipient_id: ANA.stripe, coproducerEmail: 'ana@example.com', percentage: 20, amount: 500, chargeProcessingFee: false, liable: false }]);
    const sent = (await creates('stripe')).at(-1)!.body as any;
    assert.deepEqual([sent.transfer_data, sent.application_fee_amount], [{ destination: ANA.stripe }, '2000']);
    assert.deepEqual(await attemptsOf(key, res.body.data.id), ['pagarme:GATEWAY_ERROR', 'stripe:success']);
  });

  test('a fallback where the coproducer has no recipient is skipped with SPLIT_RECIPIENT_UNAVAILABLE, the next one charges', async () => {
    const key = await account({ primaryGateway: 'pagarme', gatewayFallbacks: ['asaas', 'stripe'] });
    const asaasBefore = (await creates('asaas')).length;
    await e2e.control.fault('pagarme', 'http429', { method: 'POST', path: '/core/v5/orders' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(toAna) });
    await e2e.control.clearFaults();
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'stripe');
    assert.equal((await creates('asaas')).length, asaasBefore, 'asaas was never called');
    const stored = await e2e.call('GET', `/api/v1/charges/${res.body.data.id}`, { key });
    const skipped = stored.body.data.attempts[1];
    assert.deepEqual([skipped.gateway, skipped.outcome, skipped.errorCode], ['asaas', 'skipped', 'SPLIT_RECIPIENT_UNAVAILABLE']);
    assert.match(skipped.message, /coproducer ana@example\.com has no asaas recipient/);
  });

  test('no gateway left: 422 naming which coproducer lacks which gateway, nothing charged', async () => {
    const key = await account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagbank'] }, {});
    const before = (await creates('asaas')).length + (await creates('pagbank')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(toAna) });
    expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(res.body.error.message, /coproducer ana@example\.com has no asaas recipient/);
    assert.match(res.body.error.message, /pagbank \(SPLIT_RECIPIENT_UNAVAILABLE: coproducer ana@example\.com has no pagbank recipient/);
    assert.equal((await creates('asaas')).length + (await creates('pagbank')).length, before);
    assert.deepEqual(await attemptsOf(key, res.headers['x-rg-charge-id'] as string), ['asaas:SPLIT_RECIPIENT_UNAVAILABLE', 'pagbank:SPLIT_RECIPIENT_UNAVAILABLE']);
  });

  test('a raw recipient_id with the primary down: no split-less charge anywhere', async () => {
    const key = await account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe', 'asaas'] });
    const before = (await creates('stripe')).length + (await creates('asaas')).length;
    await e2e.control.fault('pagarme', 'http429', { method: 'POST', path: '/core/v5/orders' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card([{ type: 'fixed', amount: 700, recipient_id: 'rp_RawRawRawRawRawR' }]) });
    await e2e.control.clearFaults();
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.equal((await creates('stripe')).length + (await creates('asaas')).length, before, 'no fallback was called');
    assert.deepEqual(await attemptsOf(key, res.headers['x-rg-charge-id'] as string), ['pagarme:GATEWAY_ERROR', 'stripe:SPLIT_RECIPIENT_UNAVAILABLE', 'asaas:SPLIT_RECIPIENT_UNAVAILABLE']);
    const sent = (await creates('pagarme')).at(-1)!.body as any;
    assert.equal(sent.payments[0].split[1].recipient_id, 'rp_RawRawRawRawRawR', 'even the refused call carried the split');
  });
});

describe('gateways that cannot apply the split are skipped before any call', () => {
  test('mercado pago cannot split: skipped, the fallback charges', async () => {
    const key = await account({ primaryGateway: 'mercadopago', gatewayFallbacks: ['pagarme'] });
    const before = (await creates('mercadopago')).length;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(toAna) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, 'pagarme');
    assert.equal((await creates('mercadopago')).length, before);
    assert.deepEqual(await attemptsOf(key, res.body.data.id), ['mercadopago:GATEWAY_UNSUPPORTED_OPERATION', 'pagarme:success']);
  });

  test('stripe takes one recipient: two skip it; an option it cannot express skips it too', async () => {
    const key = await account({ primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'] });
    const two = [{ type: 'fixed', amount: 100, coproducerEmail: 'ana@example.com' }, { type: 'fixed', amount: 100, recipient_id: 'acct_1Other' }];
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(two) });
    expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(res.body.error.message, /stripe takes at most 1 split recipient\(s\) per charge; this split has 2/);
    const liable = await e2e.call('POST', '/api/v1/charges', { key, body: card([{ ...toAna[0], liable: true }]) });
    assert.equal(liable.status, 201, liable.text);
    assert.equal(liable.body.data.gateway, 'pagarme', 'Pagar.me can make a coproducer liable');
    const sent = (await creates('pagarme')).at(-1)!.body as any;
    assert.deepEqual(sent.payments[0].split.map((r: any) => r.options.liable), [false, true]);
  });

  test('without its own recipient stored, a gateway whose rules cover the whole payment is skipped', async () => {
    const { recipientId: _own, ...noRecipient } = SANDBOX_CREDENTIALS.pagarme;
    const key = await account({ primaryGateway: 'pagarme' }, ANA, ['pagarme'], { pagarme: noRecipient });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card(toAna) });
    expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
    assert.match(res.body.error.message, /store it as recipientId in the pagarme credentials/);
  });

  test('an item naming the account\'s own recipient is the merchant\'s share: left out', async () => {
    const key = await account({ primaryGateway: 'pagarme' });
    const own = SANDBOX_CREDENTIALS.pagarme.recipientId;
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card([{ type: 'fixed', amount: 2000, recipient_id: own }, { type: 'fixed', amount: 500, recipient_id: 'rp_PartnerRecip0002' }]) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.split.map((s: { recipient_id: string; amount: number }) => [s.recipient_id, s.amount]), [['rp_PartnerRecip0002', 500]]);
    const sent = (await creates('pagarme')).at(-1)!.body as any;
    assert.deepEqual(sent.payments[0].split.map((r: any) => [r.recipient_id, r.amount]), [[own, 2000], ['rp_PartnerRecip0002', 500]]);
  });
});
