import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';

// Issue 40 item 3: every charge route checks the account before taking the charge's lock or calling a gateway, so
// an unknown id and another account's id both answer 404 at once (no 15 s wait and 409 CHARGE_BUSY for an id that
// does not exist: a timing oracle, and a cheap way to hold connections).

let e2e: E2E;
before(async () => {
  e2e = await startE2E({ ROUTEGATE_REQUEST_DEADLINE_MS: '20000' });
});
after(() => e2e.close());

async function timed(fn: () => Promise<{ status: number; text: string; body: any }>) {
  const started = performance.now();
  const res = await fn();
  return { res, ms: performance.now() - started };
}

test('unknown and foreign charge ids answer 404 at once on every charge route, the gateway never called', async () => {
  const owner = await e2e.account({ primaryGateway: 'stripe' });
  const stranger = await e2e.account({ primaryGateway: 'stripe' });
  const created = await e2e.call('POST', '/api/v1/charges', { key: owner, body: { paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, capture: false } });
  assert.equal(created.status, 201, created.text);
  const foreign = created.body.data.id;
  const before = (await e2e.control.ledger()).length;
  for (const id of [randomUUID(), foreign, 'not-a-charge-id']) {
    for (const [method, path, body] of [
      ['GET', `/api/v1/charges/${id}?refresh=true`, undefined], ['GET', `/api/v1/charges/${id}`, undefined],
      ['POST', `/api/v1/charges/${id}/capture`, {}], ['POST', `/api/v1/charges/${id}/cancel`, {}], ['POST', `/api/v1/charges/${id}/refunds`, {}],
    ] as const) {
      const { res, ms } = await timed(() => e2e.call(method, path, { key: stranger, body }));
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.ok(ms < 1000, `${method} ${path} took ${Math.round(ms)} ms`);
    }
  }
  assert.equal((await e2e.control.ledger()).length, before, 'no gateway call');
  // The owner still reaches it.
  const mine = await e2e.call('GET', `/api/v1/charges/${foreign}?refresh=true`, { key: owner });
  assert.equal(mine.status, 200, mine.text);
});
