import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { failure, startGatewayHarness, type GatewayHarness } from './helpers/gateway-context';
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
