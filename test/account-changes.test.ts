import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { AccountService } from '../src/accounts/service';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import type { Reply } from './helper';

// Issue 18: account changes while requests are in flight never break a request. Charges, refunds and reads run
// in parallel with credential replace/delete, settings changes, key rotation and deactivate/activate on the same
// account; every answer must be a documented status with the envelope, and what RouteGate stored must match
// what the gateways hold afterwards.

let e2e: E2E;
before(async () => {
  e2e = await startE2E({ ROUTEGATE_RECONCILE_INTERVAL_MS: '0' });
});
after(() => e2e.close());

/** What each status may mean while the account changes under the request. */
const DOCUMENTED: Record<number, string[]> = {
  400: ['MISSING_CREDENTIALS', 'VALIDATION_ERROR'],
  401: ['INVALID_API_KEY'],
  403: ['CLIENT_INACTIVE'],
  409: ['CHARGE_BUSY'],
  422: ['GATEWAY_UNSUPPORTED_OPERATION'],
};

test('charges, refunds and reads stay correct while credentials, settings, keys and activation change', async (t) => {
  let apiKey = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
  const me = await e2e.call('GET', '/api/v1/clients/me', { key: apiKey });
  const accountId = me.body.data.id as string;
  const accounts = new AccountService(e2e.sandbox.app.store);
  const seen = new Map<string, number>();
  const problems: string[] = [];
  const created: string[] = [];
  const check = (what: string, res: Reply) => {
    const label = res.status < 300 ? String(res.status) : `${res.status} ${res.body?.error?.code}`;
    seen.set(label, (seen.get(label) ?? 0) + 1);
    if (res.status < 300) return;
    const allowed = DOCUMENTED[res.status] ?? [];
    if (res.body?.success !== false || !allowed.includes(res.body.error?.code) || typeof res.body.error.message !== 'string') {
      problems.push(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  };

  // Three seconds of traffic, and on a loaded machine as long as it takes (at most 60 s) for enough charges to land.
  const until = Date.now() + 3_000;
  const hardStop = Date.now() + 60_000;
  const running = () => Date.now() < until || (created.length < 30 && Date.now() < hardStop);
  const charger = async (n: number) => {
    while (running()) {
      const body = n % 2 === 0
        ? { paymentMethod: 'pix', amount: 1500, customer: CUSTOMER }
        : { paymentMethod: 'credit_card', amount: 5000, customer: CUSTOMER, creditCard: CARD };
      const res = await e2e.call('POST', '/api/v1/charges', { key: apiKey, body });
      check('charge', res);
      if (res.status === 201) created.push(res.body.data.id);
    }
  };
  const refunder = async () => {
    while (running()) {
      const id = created[Math.floor(Math.random() * created.length)];
      if (!id) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const res = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key: apiKey, body: { amount: 100 } });
      check('refund', res);
    }
  };
  const preAuthorizer = async (captureIt: boolean) => {
    while (running()) {
      const res = await e2e.call('POST', '/api/v1/charges', { key: apiKey, body: { paymentMethod: 'credit_card', amount: 3000, capture: false, customer: CUSTOMER, creditCard: CARD } });
      check('pre-authorization', res);
      if (res.status !== 201) continue;
      created.push(res.body.data.id);
      const follow = captureIt ? 'capture' : 'cancel';
      check(follow, await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/${follow}`, { key: apiKey }));
    }
  };
  const reader = async () => {
    while (running()) {
      const id = created[created.length - 1];
      check('read', await e2e.call('GET', id ? `/api/v1/charges/${id}` : '/api/v1/charges', { key: apiKey }));
      check('list', await e2e.call('GET', '/api/v1/charges?limit=5', { key: apiKey }));
    }
  };
  const changer = async () => {
    let round = 0;
    while (running()) {
      round += 1;
      const key = apiKey;
      check('delete credentials', await e2e.call('DELETE', '/api/v1/credentials/pagarme', { key }));
      check('store credentials', await e2e.call('POST', '/api/v1/credentials', { key, body: { gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme } }));
      const settings = round % 2 === 0
        ? { primaryGateway: 'stripe', gatewayFallbacks: ['pagarme'], responseFormat: 'normalized' }
        : { primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'], responseFormat: 'full' };
      check('settings', await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: settings }));
      if (round % 3 === 0) apiKey = (await accounts.rotateKey(accountId))!.apiKey;
      if (round % 4 === 0) {
        await accounts.setActive(accountId, false);
        await new Promise((r) => setTimeout(r, 5));
        await accounts.setActive(accountId, true);
      }
    }
  };
  await Promise.all([charger(0), charger(1), charger(2), charger(3), refunder(), refunder(), preAuthorizer(true), preAuthorizer(false), reader(), changer()]);

  t.diagnostic(`answers seen: ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.deepEqual(problems, [], `undocumented answers; seen: ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.ok((seen.get('201') ?? 0) > 20, `charges went through meanwhile: ${JSON.stringify(Object.fromEntries(seen))}`);

  // What RouteGate stored matches what the gateways hold, charge by charge.
  const ledger = await e2e.control.ledger();
  const store = e2e.sandbox.app.store;
  for (const id of created) {
    const charge = (await store.charges.getById(id))!;
    const atGateway = ledger.filter((entry) => entry.reference === id);
    assert.equal(atGateway.length, 1, `${id}: one charge at the gateways`);
    assert.equal(atGateway[0].gateway, charge.gateway, `${id}: stored at the gateway that holds it`);
    assert.equal(atGateway[0].refundedAmount, charge.refundedAmount, `${id}: refunded amount agrees with ${charge.gateway}`);
    assert.equal(atGateway[0].amount, charge.amount);
    assert.equal(atGateway[0].paidAmount, charge.paidAmount, `${id}: paid amount agrees with ${charge.gateway}`);
  }
});
