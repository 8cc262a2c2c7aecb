import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { failure, startGatewayHarness, useGatewayHarness, type GatewayHarness } from './helpers/gateway-context';
import { ADAPTERS } from '../src/gateways/registry';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import type { NormalizedCharge } from '../src/gateways/types';

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

// The faults that act after the handler, on one more emulator server.

describe('control: the faults that act after the gateway took the request', () => {
  const h = useGatewayHarness();

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
});
