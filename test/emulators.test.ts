import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { failure, startGatewayHarness, useGatewayHarness, type GatewayHarness } from './helpers/gateway-context';
import { chargeInput, sandboxContext } from './helpers/charge-inputs';
import { ADAPTERS } from '../src/gateways/registry';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import type { ChargeOutcome, NormalizedCharge, PaymentMethod } from '../src/gateways/types';

// Two emulator servers in one process (a user's test suite may start several) keep separate state.

const harnesses: GatewayHarness[] = [];
after(async () => {
  for (const h of harnesses) await h.close();
});

test('a charge made on one emulator server is unknown to another in the same process, on every gateway', async () => {
  const [a, b] = [await startGatewayHarness(), await startGatewayHarness()];
  harnesses.push(a, b);
  for (const gateway of GATEWAY_IDS) {
    const adapter = ADAPTERS[gateway];
    let customerId: string | undefined;
    if (gateway === 'asaas') {
      customerId = (await adapter.createCustomer(a.context(gateway, SANDBOX_CREDENTIALS[gateway]), {
        name: 'Maria Souza', email: 'maria@example.com', document: '12345678909',
      })).normalized.externalId;
    }
    const charge: NormalizedCharge = {
      paymentMethod: 'pix', amount: 1999, currency: 'BRL', capture: true, customerId, pix: { expiresInSeconds: 600 },
      customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', phone: '11987654321' },
    };
    const created = await adapter.createCharge(a.context(gateway, SANDBOX_CREDENTIALS[gateway]), charge);
    const ref = { externalId: created.normalized.externalId, paymentMethod: 'pix' as const, amount: 1999, refs: created.normalized.refs };
    assert.equal((await adapter.retrieveCharge(a.context(gateway, SANDBOX_CREDENTIALS[gateway]), ref)).normalized.externalId, ref.externalId);
    const elsewhere = await failure(adapter.retrieveCharge(b.context(gateway, SANDBOX_CREDENTIALS[gateway]), ref));
    assert.equal(elsewhere.kind, 'not_found', `${gateway}: ${elsewhere.message}`);
  }
});

// The control API's ledger and after-handler faults, on one more emulator server.

describe('control: the ledger and the faults that act after the gateway took the request', () => {
  const h = useGatewayHarness();
  const refOf = (out: ChargeOutcome, paymentMethod: PaymentMethod) => ({
    externalId: out.normalized.externalId, paymentMethod, amount: out.normalized.amount, refs: out.normalized.refs,
  });

  test('the ledger lists each gateway\'s charges in cents, with the reference the create carried', async () => {
    const made: Array<[string, string, string]> = [];
    for (const gateway of GATEWAY_IDS) {
      const c = sandboxContext(h, gateway);
      const out = await ADAPTERS[gateway].createCharge(c, await chargeInput(h, gateway, 'pix', { amount: 1999 }));
      made.push([gateway, out.normalized.externalId, c.chargeId]);
    }
    const entries = await h.control.ledger();
    assert.deepEqual(
      entries.map((e) => [e.gateway, e.id, e.reference, e.paymentMethod, e.amount, e.paidAmount, e.refundedAmount, e.refunds]),
      made.map(([gateway, id, reference]) => [gateway, id, reference, 'pix', 1999, 0, 0, 0]),
    );
    assert.deepEqual((await h.control.ledger('asaas')).map((e) => e.gateway), ['asaas']);
    assert.deepEqual(entries.map((e) => e.status), ['requires_action', 'pending', 'PENDING', 'pending', 'WAITING'], 'native statuses');
  });

  test('refundedAmount and refunds follow a partial then a full refund, as each adapter reads them back', async () => {
    for (const gateway of GATEWAY_IDS) {
      const adapter = ADAPTERS[gateway];
      const created = await adapter.createCharge(sandboxContext(h, gateway), await chargeInput(h, gateway));
      const ref = refOf(created, 'credit_card');
      const entry = async () => (await h.control.ledger(gateway)).find((e) => e.id === created.normalized.externalId)!;
      assert.deepEqual([(await entry()).paidAmount, (await entry()).refundedAmount], [1999, 0], gateway);
      const partly = await adapter.refundCharge(sandboxContext(h, gateway), ref, 500);
      assert.deepEqual([(await entry()).refundedAmount, (await entry()).refunds], [500, 1], gateway);
      assert.equal(partly.normalized.refundedAmount, (await entry()).refundedAmount, gateway);
      const fully = await adapter.refundCharge(sandboxContext(h, gateway), ref);
      assert.deepEqual([(await entry()).refundedAmount, (await entry()).refunds, (await entry()).paidAmount], [1999, 2, 1999], gateway);
      assert.equal(fully.normalized.refundedAmount, (await entry()).refundedAmount, gateway);
    }
  });

  test('a voided pre-authorization took and returned no money: nothing paid, nothing refunded', async () => {
    for (const gateway of GATEWAY_IDS) {
      const adapter = ADAPTERS[gateway];
      const created = await adapter.createCharge(sandboxContext(h, gateway), await chargeInput(h, gateway, 'credit_card', { capture: false }));
      const voided = await adapter.cancelCharge(sandboxContext(h, gateway), refOf(created, 'credit_card'));
      const entry = (await h.control.ledger(gateway)).find((e) => e.id === created.normalized.externalId)!;
      assert.deepEqual([entry.amount, entry.paidAmount, entry.refundedAmount, entry.refunds], [1999, 0, 0, 0], gateway);
      assert.equal(voided.normalized.refundedAmount, entry.refundedAmount, gateway);
    }
  });

  test('late answers in full only after latencyMs; lose answers nothing; method and path aim a fault at one call', async () => {
    const url = `${h.emulators.gatewayUrl('mercadopago')}/v1/payments/search`;
    const headers = { authorization: `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}` };
    await h.control.fault('mercadopago', 'late', { latencyMs: 400 });
    const started = Date.now();
    const late = await fetch(url, { headers });
    assert.ok(Date.now() - started >= 380, `answered after ${Date.now() - started} ms`);
    assert.deepEqual(await late.json(), { paging: { total: 0, limit: 30, offset: 0 }, results: [] });

    await h.control.fault('mercadopago', 'lose');
    await assert.rejects(fetch(url, { headers }));

    await h.control.fault('mercadopago', 'http500', { method: 'POST', path: '/v1/payments' });
    assert.equal((await fetch(url, { headers })).status, 200, 'a GET is not the aimed call');
    assert.equal((await fetch(`${url}?external_reference=x`, { headers })).status, 200, 'the path is compared without its query');
    const aimed = await fetch(`${h.emulators.gatewayUrl('mercadopago')}/v1/payments`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(aimed.status, 500);
  });

  test('closing the server does not wait out a late answer', async () => {
    const other = await startGatewayHarness();
    await other.control.fault('stripe', 'late', { latencyMs: 60_000 });
    const pending = fetch(`${other.emulators.gatewayUrl('stripe')}/v1/payment_intents/pi_x`, { headers: { authorization: 'Bearer sk_test_x' } }).catch(() => 'dropped');
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await other.close();
    assert.equal(await pending, 'dropped');
    assert.ok(Date.now() - started < 5000);
  });

  test('GET /__control/ledger refuses a gateway it does not know', async () => {
    const res = await fetch(`${h.emulators.url}/__control/ledger?gateway=paypal`);
    assert.equal(res.status, 400);
  });
});
