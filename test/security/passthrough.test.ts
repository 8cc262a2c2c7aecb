import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import type { GatewayId } from '../../src/gateways/registry-ids';

// Issue 40 item 1: compatibility passthrough is off unless an operator turns it on for the account, and then only the
// gateway's allowlist (src/gateways/<id>/passthrough.ts) passes; payouts, transfers, bill and pix payment, account and
// key management never do. Everything else answers the gateway's native 404, and the gateway hears nothing.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const AUTH: Record<GatewayId, (key: string) => Record<string, string>> = {
  stripe: (key) => ({ authorization: `Bearer ${key}` }),
  pagarme: (key) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }),
  asaas: (key) => ({ access_token: key }),
  mercadopago: (key) => ({ authorization: `Bearer ${key}` }),
  pagbank: (key) => ({ authorization: `Bearer ${key}` }),
};

/** Per gateway: one allowlisted read, and what must never pass (the attacks the issue found, and their kin). */
const CASES: Array<{ gateway: GatewayId; allowed: string; refused: Array<[string, string]> }> = [
  { gateway: 'stripe', allowed: '/v1/charges', refused: [['POST', '/v1/transfers'], ['POST', '/v1/payouts'], ['GET', '/v2/core/accounts'], ['POST', '/v1/accounts'], ['GET', '/v1/balance'], ['POST', '/v1/webhook_endpoints'], ['GET', '/v1/charges/..%2Fpayouts'], ['GET', '/v1/charges/%2e%2e']] },
  { gateway: 'pagarme', allowed: '/core/v5/charges', refused: [['POST', '/core/v5/transfers'], ['POST', '/core/v5/recipients'], ['GET', '/core/v5/recipients/rp_1/balance'], ['POST', '/core/v5/recipients/rp_1/withdrawals'], ['GET', '/core/v5/hooks']] },
  { gateway: 'asaas', allowed: '/v3/installments', refused: [['POST', '/v3/transfers'], ['POST', '/v3/pix/qrCodes/pay'], ['POST', '/v3/bill'], ['GET', '/v3/myAccount'], ['POST', '/v3/accounts'], ['GET', '/v3/finance/balance'], ['POST', '/v3/pix/addressKeys']] },
  { gateway: 'mercadopago', allowed: '/v1/payment_methods', refused: [['POST', '/v1/money_requests'], ['GET', '/users/me'], ['POST', '/v1/account/bank_report'], ['POST', '/oauth/token']] },
  { gateway: 'pagbank', allowed: '/public-keys/card', refused: [['POST', '/transfers'], ['POST', '/public-keys'], ['GET', '/accounts/ACCO_1'], ['POST', '/oauth2/application']] },
];

async function nothingSent(gateway: GatewayId, what: string) {
  assert.equal((await e2e.control.requests(gateway)).length, 0, `${what}: the gateway heard nothing`);
}

for (const { gateway, allowed, refused } of CASES) {
  test(`${gateway}: passthrough off by default (native 404); on, the allowlisted read passes and the rest answers 404`, async () => {
    const off = await e2e.account({ primaryGateway: gateway, compatibilityMode: gateway });
    await e2e.control.clearRequests();
    const closed = await e2e.call('GET', `/compat/${gateway}${allowed}`, { headers: AUTH[gateway](off) });
    assert.equal(closed.status, 404, closed.text);
    assert.notEqual(closed.headers['x-rg-passthrough'], 'true');
    await nothingSent(gateway, 'passthrough off');

    const on = await e2e.account({ primaryGateway: gateway, compatibilityMode: gateway, compatPassthrough: true });
    const read = await e2e.call('GET', `/compat/${gateway}${allowed}`, { headers: AUTH[gateway](on) });
    assert.equal(read.headers['x-rg-passthrough'], 'true', read.text);
    assert.equal((await e2e.control.requests(gateway)).length, 1, 'the allowed read reached the gateway');
    await e2e.control.clearRequests();
    for (const [method, path] of refused) {
      const res = await e2e.call(method, `/compat/${gateway}${path}`, { headers: { ...AUTH[gateway](on), 'content-type': 'application/json' }, rawBody: method === 'GET' ? undefined : '{"value":100}' });
      assert.notEqual(res.headers['x-rg-passthrough'], 'true', `${method} ${path}`);
      // An encoded separator is refused before any route (400); a plain path is the gateway's own 404.
      if (path.includes('%')) assert.ok([400, 404].includes(res.status), `${method} ${path}: ${res.text}`);
      else {
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
        assert.equal(res.headers['x-rg-error-code'], 'NOT_FOUND', `${method} ${path}`);
      }
    }
    await nothingSent(gateway, 'refused paths');
  });
}

test("the merchant's own API key cannot turn passthrough on", async () => {
  const key = await e2e.account({ primaryGateway: 'asaas', compatibilityMode: 'asaas' });
  const res = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { compatPassthrough: true } });
  assert.equal(res.status, 400, res.text);
  await e2e.control.clearRequests();
  const transfer = await e2e.call('POST', '/compat/asaas/v3/transfers', { headers: { access_token: key, 'content-type': 'application/json' }, rawBody: '{"value":100}' });
  assert.equal(transfer.status, 404);
  await nothingSent('asaas', 'after the refused PATCH');
});
