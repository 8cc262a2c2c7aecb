import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useGatewayHarness } from '../helpers/gateway-context';
import { CARD, chargeInput, sandboxContext } from '../helpers/charge-inputs';
import { ADAPTERS } from '../../src/gateways/registry';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import type { GatewayId } from '../../src/gateways/types';

// The reads each gateway offers to find a charge by the reference the create sent, as the emulators answer them.

const h = useGatewayHarness();

describe('the emulators\' lookups answer in each gateway\'s own shape', () => {
  async function get(gateway: GatewayId, path: string, headers: Record<string, string>) {
    const res = await fetch(`${h.emulators.gatewayUrl(gateway)}${path}`, { headers });
    return { status: res.status, body: await res.json() as any };
  }
  const stripe = (query: string, extra = '') =>
    get('stripe', `/v1/payment_intents/search?query=${encodeURIComponent(query)}${extra}`, { authorization: `Bearer ${SANDBOX_CREDENTIALS.stripe.secretKey}` });

  test('stripe: search_result by metadata and status, AND-joined, newest first, paged, data.latest_charge expandable', async () => {
    const made: string[] = [];
    for (const number of ['4242424242424242', '4242424242424242', '4000000000000002']) {
      const c = sandboxContext(h, 'stripe', { chargeId: 'chg_search' });
      const out = await ADAPTERS.stripe.createCharge(c, await chargeInput(h, 'stripe', 'credit_card', { creditCard: { ...CARD, number } })).catch((e) => ({ normalized: e.info.normalized }));
      made.push(out.normalized.externalId);
    }
    await ADAPTERS.stripe.createCharge(sandboxContext(h, 'stripe', { chargeId: 'chg_other' }), await chargeInput(h, 'stripe'));
    const all = await stripe("metadata['rg_charge_id']:'chg_search'");
    assert.equal(all.status, 200);
    assert.deepEqual({ ...all.body, data: all.body.data.map((pi: any) => pi.id) }, {
      object: 'search_result', url: '/v1/payment_intents/search', has_more: false, data: [...made].reverse(), next_page: null,
    });
    assert.equal(typeof all.body.data[0].latest_charge, 'string', 'not expanded unless asked');
    const paid = await stripe(`metadata["rg_charge_id"]:"chg_search" AND status:'succeeded'`, '&expand[]=data.latest_charge&expand[]=total_count');
    assert.deepEqual(paid.body.data.map((pi: any) => pi.id), [made[1], made[0]]);
    assert.equal(paid.body.data[0].latest_charge.object, 'charge');
    assert.equal(paid.body.total_count, 2);
    const declined = await stripe("metadata['rg_charge_id']:'chg_search' -status:'succeeded'");
    assert.deepEqual(declined.body.data.map((pi: any) => pi.id), [made[2]]);
    const page1 = await stripe("metadata['rg_charge_id']:'chg_search'", '&limit=2');
    assert.equal(page1.body.has_more, true);
    const page2 = await stripe("metadata['rg_charge_id']:'chg_search'", `&limit=2&page=${page1.body.next_page}`);
    assert.deepEqual([...page1.body.data, ...page2.body.data].map((pi: any) => pi.id), [...made].reverse());
    assert.equal(page2.body.next_page, null);
    const amounts = await stripe('amount>=1999 OR currency:\'usd\'');
    assert.equal(amounts.body.data.length, 4);
  });

  test('stripe: a query Stripe would refuse is a 400 naming the query', async () => {
    for (const query of ["rg_charge_id:'x'", "metadata:'x'", "status:succeeded", "status:'a' AND status:'b' OR status:'c'", "amount:'10'", '']) {
      const res = await stripe(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.param, 'query', query);
      assert.equal(res.body.error.type, 'invalid_request_error', query);
    }
  });

  test('pagarme: GET /orders?code= is {data: [orders], paging: {total}}, newest first, paged', async () => {
    const auth = { authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}` };
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await ADAPTERS.pagarme.createCharge(sandboxContext(h, 'pagarme', { chargeId: 'chg_listed' }), await chargeInput(h, 'pagarme'))).normalized.externalId);
    }
    await ADAPTERS.pagarme.createCharge(sandboxContext(h, 'pagarme'), await chargeInput(h, 'pagarme'));
    const all = await get('pagarme', '/core/v5/orders?code=chg_listed', auth);
    assert.deepEqual(all.body.paging, { total: 3 });
    assert.deepEqual(all.body.data.map((o: any) => [o.id, o.code, o.charges[0].status]), [...ids].reverse().map((id) => [id, 'chg_listed', 'paid']));
    const page = await get('pagarme', '/core/v5/orders?code=chg_listed&page=2&size=2', auth);
    assert.deepEqual(page.body.data.map((o: any) => o.id), [ids[0]]);
    assert.equal(page.body.paging.total, 3);
    assert.match(page.body.paging.previous, /page=1&size=2$/);
    assert.equal((await get('pagarme', '/core/v5/orders?code=chg_listed&status=failed', auth)).body.paging.total, 0);
    assert.equal((await get('pagarme', '/core/v5/orders?page=0', auth)).status, 422);
  });

  test('asaas: GET /v3/payments?externalReference= is the list envelope; mercadopago search is {paging, results} sorted as asked', async () => {
    await ADAPTERS.asaas.createCharge(sandboxContext(h, 'asaas', { chargeId: 'chg_asaas' }), await chargeInput(h, 'asaas'));
    const asaas = await get('asaas', '/v3/payments?externalReference=chg_asaas', { access_token: SANDBOX_CREDENTIALS.asaas.apiKey });
    assert.deepEqual({ ...asaas.body, data: asaas.body.data.map((p: any) => p.externalReference) }, {
      object: 'list', hasMore: false, totalCount: 1, limit: 10, offset: 0, data: ['chg_asaas'],
    });

    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      ids.push((await ADAPTERS.mercadopago.createCharge(sandboxContext(h, 'mercadopago', { chargeId: 'chg_mp' }), await chargeInput(h, 'mercadopago', 'pix'))).normalized.externalId);
    }
    const auth = { authorization: `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}` };
    const asc = await get('mercadopago', '/v1/payments/search?external_reference=chg_mp&sort=date_created&criteria=asc', auth);
    assert.deepEqual(asc.body.paging, { total: 2, limit: 30, offset: 0 });
    assert.deepEqual(asc.body.results.map((p: any) => String(p.id)), ids);
    const desc = await get('mercadopago', '/v1/payments/search?external_reference=chg_mp&sort=date_created&criteria=desc&limit=1', auth);
    assert.deepEqual(desc.body.results.map((p: any) => String(p.id)), [ids[1]]);
    assert.equal((await get('mercadopago', '/v1/payments/search?sort=amount', auth)).status, 400);
  });
});
