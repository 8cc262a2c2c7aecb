import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, useGatewayHarness } from '../helpers/gateway-context';
import { CARD, CREATE_PATH, chargeInput, sandboxContext } from '../helpers/charge-inputs';
import { ADAPTERS } from '../../src/gateways/registry';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import type { ChargeOutcome, GatewayAdapter, GatewayId } from '../../src/gateways/types';

// lookupCharge (find RouteGate's charge at a gateway by the reference the create sent) and the emulator
// faults that leave a create's outcome unknown, over real HTTP against the emulators.

const h = useGatewayHarness();

const WITH_LOOKUP = ['stripe', 'pagarme', 'asaas', 'mercadopago'] as const;
const WITH_KEYS = ['stripe', 'pagarme', 'mercadopago', 'pagbank'] as const;

function lookup(gateway: GatewayId): NonNullable<GatewayAdapter['lookupCharge']> {
  const fn = ADAPTERS[gateway].lookupCharge;
  assert.ok(fn, `${gateway} has lookupCharge`);
  return fn;
}

/** Calls the emulators received while `run` ran. */
async function callsDuring(gateway: GatewayId, run: () => Promise<unknown>) {
  const before = (await h.control.requests(gateway)).length;
  await run();
  return (await h.control.requests(gateway)).slice(before);
}

describe('lookupCharge by RouteGate reference', () => {
  test('stripe, pagarme, asaas and mercadopago look up; pagbank (no documented search by reference_id) does not', () => {
    assert.deepEqual(
      Object.fromEntries(Object.values(ADAPTERS).map((a) => [a.id, [typeof a.lookupCharge, a.lookupProvesAbsence]])),
      {
        stripe: ['function', false], // its search index lags writes by up to a minute
        pagarme: ['function', true], asaas: ['function', true], mercadopago: ['function', true],
        pagbank: ['undefined', undefined],
      },
    );
  });

  for (const gateway of WITH_LOOKUP) {
    test(`${gateway}: finds the charge the create made, normalized as the create was, with read calls only`, async () => {
      const c = sandboxContext(h, gateway);
      const created = await ADAPTERS[gateway].createCharge(c, await chargeInput(h, gateway));
      let found: ChargeOutcome | null = null;
      const calls = await callsDuring(gateway, async () => {
        found = await lookup(gateway)(sandboxContext(h, gateway), c.chargeId, 'credit_card');
      });
      assert.ok(found, 'found');
      const { normalized } = found as ChargeOutcome;
      assert.equal(normalized.externalId, created.normalized.externalId);
      assert.equal(normalized.status, 'approved');
      assert.equal(normalized.status, created.normalized.status);
      assert.equal(normalized.amount, 1999);
      assert.equal(normalized.paidAmount, created.normalized.paidAmount);
      assert.deepEqual(calls.map((r) => r.method), calls.map(() => 'GET'), 'a lookup only reads');
      assert.equal((await h.control.ledger()).length, 1, 'and creates nothing');
    });

    test(`${gateway}: an unknown reference is null, even with other charges at the gateway`, async () => {
      await ADAPTERS[gateway].createCharge(sandboxContext(h, gateway), await chargeInput(h, gateway));
      assert.equal(await lookup(gateway)(sandboxContext(h, gateway), 'chg_never_sent_anywhere', 'credit_card'), null);
    });
  }

  for (const gateway of ['stripe', 'pagarme', 'mercadopago'] as const) {
    test(`${gateway}: a declined card's lookup is the same decline, with the declined charge`, async () => {
      const c = sandboxContext(h, gateway);
      const input = await chargeInput(h, gateway, 'credit_card', { creditCard: { ...CARD, number: '4000000000009995' } });
      const declined = await failure(ADAPTERS[gateway].createCharge(c, input));
      assert.equal(declined.kind, 'decline');
      const looked = await failure(lookup(gateway)(sandboxContext(h, gateway), c.chargeId, 'credit_card'));
      assert.equal(looked.kind, 'decline');
      assert.equal(looked.info.declineCode, 'insufficient_funds');
      assert.equal(looked.info.normalized?.status, 'declined');
      assert.equal(looked.info.normalized?.externalId, declined.info.normalized?.externalId);
    });
  }

  test('asaas: a declined card leaves nothing at Asaas, so its lookup is null', async () => {
    const c = sandboxContext(h, 'asaas');
    const input = await chargeInput(h, 'asaas', 'credit_card', { creditCard: { ...CARD, number: '4000000000009995' } });
    assert.equal((await failure(ADAPTERS.asaas.createCharge(c, input))).kind, 'decline');
    assert.deepEqual(await h.control.ledger('asaas'), []);
    assert.equal(await lookup('asaas')(sandboxContext(h, 'asaas'), c.chargeId, 'credit_card'), null);
  });

  test('several charges under one reference: the lookup answers the newest', async () => {
    for (const gateway of WITH_LOOKUP) {
      const input = await chargeInput(h, gateway, 'pix');
      const reference = `chg_twice_${gateway}`;
      const first = await ADAPTERS[gateway].createCharge(sandboxContext(h, gateway, { chargeId: reference }), input);
      const second = await ADAPTERS[gateway].createCharge(sandboxContext(h, gateway, { chargeId: reference }), { ...input, amount: 2500 });
      assert.notEqual(first.normalized.externalId, second.normalized.externalId, `${gateway}: two charges`);
      const found = await lookup(gateway)(sandboxContext(h, gateway), reference, 'pix');
      assert.equal(found?.normalized.externalId, second.normalized.externalId, gateway);
      assert.equal(found?.normalized.amount, 2500, gateway);
    }
  });

  test('pix found by lookup carries what the payer needs, like a retrieve', async () => {
    for (const gateway of WITH_LOOKUP) {
      const c = sandboxContext(h, gateway);
      const created = await ADAPTERS[gateway].createCharge(c, await chargeInput(h, gateway, 'pix'));
      const found = await lookup(gateway)(sandboxContext(h, gateway), c.chargeId, 'pix');
      assert.equal(found?.normalized.status, 'pending', gateway);
      assert.equal(found?.normalized.paymentMethod, 'pix', gateway);
      assert.equal(found?.normalized.pixCopyPaste, created.normalized.pixCopyPaste, gateway);
    }
  });
});

describe('unknown create outcomes at the emulators', () => {
  for (const gateway of WITH_KEYS) {
    const adapter = ADAPTERS[gateway];
    const onCreate = { method: 'POST', path: CREATE_PATH[gateway] };

    test(`${gateway}: late — the create times out, the gateway holds the charge, the same key replays it`, async () => {
      await h.control.fault(gateway, 'late', { latencyMs: 3000, ...onCreate });
      const c = sandboxContext(h, gateway, { timeoutMs: 300 });
      const input = await chargeInput(h, gateway);
      const timedOut = await failure(adapter.createCharge(c, input));
      assert.equal(timedOut.kind, 'timeout');
      assert.equal(timedOut.info.ambiguous, true);
      const held = await h.control.ledger();
      assert.deepEqual(held.map((e) => [e.gateway, e.reference]), [[gateway, c.chargeId]]);
      if (adapter.lookupCharge) assert.equal((await adapter.lookupCharge(sandboxContext(h, gateway), c.chargeId, 'credit_card'))?.normalized.externalId, held[0].id);
      const replay = await adapter.createCharge({ ...c, timeoutMs: 5000 }, input);
      assert.equal(replay.normalized.externalId, held[0].id);
      assert.equal(replay.normalized.status, 'approved');
      assert.equal((await h.control.ledger()).length, 1, 'no second charge');
    });

    test(`${gateway}: lose — the connection drops after the gateway took the charge, the same key replays it`, async () => {
      await h.control.fault(gateway, 'lose', onCreate);
      const c = sandboxContext(h, gateway);
      const input = await chargeInput(h, gateway);
      const lost = await failure(adapter.createCharge(c, input));
      assert.equal(lost.kind, 'unreachable');
      assert.equal(lost.info.ambiguous, true);
      const held = await h.control.ledger();
      assert.deepEqual(held.map((e) => [e.gateway, e.reference]), [[gateway, c.chargeId]]);
      const replay = await adapter.createCharge(c, input);
      assert.equal(replay.normalized.externalId, held[0].id);
      assert.equal((await h.control.ledger()).length, 1, 'no second charge');
    });

    test(`${gateway}: reset — the gateway never saw the create, the same key makes exactly one`, async () => {
      await h.control.fault(gateway, 'reset', onCreate);
      const c = sandboxContext(h, gateway);
      const input = await chargeInput(h, gateway);
      assert.equal((await failure(adapter.createCharge(c, input))).kind, 'unreachable');
      assert.deepEqual(await h.control.ledger(), []);
      if (adapter.lookupCharge) assert.equal(await adapter.lookupCharge(sandboxContext(h, gateway), c.chargeId, 'credit_card'), null);
      const replay = await adapter.createCharge(c, input);
      assert.deepEqual((await h.control.ledger()).map((e) => [e.id, e.reference]), [[replay.normalized.externalId, c.chargeId]]);
    });
  }

  test('asaas (no idempotency keys): after late the lookup finds the charge; after reset it proves there is none', async () => {
    const onCreate = { method: 'POST', path: CREATE_PATH.asaas };
    await h.control.fault('asaas', 'late', { latencyMs: 3000, ...onCreate });
    const late = sandboxContext(h, 'asaas', { timeoutMs: 300 });
    assert.equal((await failure(ADAPTERS.asaas.createCharge(late, await chargeInput(h, 'asaas')))).kind, 'timeout');
    const [held] = await h.control.ledger('asaas');
    assert.equal(held.reference, late.chargeId);
    const found = await lookup('asaas')(sandboxContext(h, 'asaas'), late.chargeId, 'credit_card');
    assert.equal(found?.normalized.externalId, held.id);
    assert.equal(found?.normalized.status, 'approved');

    await h.control.fault('asaas', 'reset', onCreate);
    const reset = sandboxContext(h, 'asaas');
    assert.equal((await failure(ADAPTERS.asaas.createCharge(reset, await chargeInput(h, 'asaas')))).kind, 'unreachable');
    assert.equal(await lookup('asaas')(sandboxContext(h, 'asaas'), reset.chargeId, 'credit_card'), null);
    assert.equal((await h.control.ledger('asaas')).length, 1);
  });
});

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
