import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../helper';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { pagarmeCase } from '../compat/cases/pagarme';

// Issue 40 item 9: what the fuzzer found answering 500. Webhook receivers check what they read from the body
// before it reaches SQL; a mapping that fails on the client's input is the client's 400 (native-shaped in
// compatibility mode); `__proto__` query keys are harmless.

let svc: Service;
let key: string;
const tokens = {} as Record<GatewayId, string>;
before(async () => {
  svc = await startService({ ROUTEGATE_RATE_LIMIT: '1000000', ROUTEGATE_PAGARME_URL: 'http://127.0.0.1:9' });
  const account = await svc.createAccount();
  key = account.apiKey;
  for (const g of GATEWAY_IDS) await svc.app.vault.save(account.id, g, SANDBOX_CREDENTIALS[g]);
  await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { primaryGateway: 'pagarme', compatibilityMode: 'pagarme' } });
  const token = (await svc.app.store.accounts.get(account.id))!.webhookToken;
  for (const g of GATEWAY_IDS) tokens[g] = token;
});
after(() => svc.close());

const ODD_IDS: unknown[] = [{ a: 1 }, ['x', 'y'], [1, 2, 3], 12, 1.5, true, null, { __proto__: { x: 1 } }, 'x'.repeat(5000), ''];

/** A body each gateway's webhook mapping reads its charge ids from, with `id` in place of those ids. */
function eventWith(gateway: GatewayId, id: unknown): unknown {
  switch (gateway) {
    case 'stripe': return { id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', created: 1700000000, data: { object: { id, object: 'payment_intent', amount: id, status: 'succeeded', metadata: { routegate_charge_id: id } } } };
    case 'pagarme': return { id: 'hook_1', type: 'order.paid', created_at: '2030-01-01T00:00:00Z', data: { id, code: id, amount: id, status: 'paid', charges: [{ id, amount: id, status: 'paid' }] } };
    case 'asaas': return { id: 'evt_1', event: 'PAYMENT_RECEIVED', payment: { object: 'payment', id, externalReference: id, value: id, billingType: 'PIX', status: 'RECEIVED' } };
    case 'mercadopago': return { id: 1, type: 'payment', action: 'payment.updated', data: { id } };
    case 'pagbank': return { id, reference_id: id, charges: [{ id, reference_id: id, status: 'PAID', amount: { value: id } }] };
  }
}

test('webhook receivers: ids that are objects, arrays, numbers or too long never reach SQL; no 5xx', async () => {
  const found: string[] = [];
  for (const g of GATEWAY_IDS) {
    for (const id of ODD_IDS) {
      for (const path of [`/api/v1/webhooks/${g}`, `/api/v1/webhooks/${g}/${tokens[g]}`]) {
        const res = await svc.call('POST', path, { rawBody: JSON.stringify(eventWith(g, id)), headers: { 'content-type': 'application/json' } });
        if (res.status >= 500) found.push(`${path.replace(tokens[g], 'TOKEN')} ${JSON.stringify(id).slice(0, 40)} -> ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test("a compatibility-mode create whose mapping fails on the client's values answers the gateway's own 400", async () => {
  const headers = pagarmeCase.headers(key);
  const card = pagarmeCase.payloads.card as Record<string, any>;
  const odd = [
    { ...card, items: [{ ...card.items[0], amount: 1e300 }] },
    { ...card, items: [{ ...card.items[0], amount: -1e308 }] },
    { ...card, payments: [{ ...card.payments[0], credit_card: { ...card.payments[0].credit_card, card: { ...card.payments[0].credit_card.card, holder_name: 12 } } }] },
    { ...card, payments: [{ ...card.payments[0], payment_method: { x: 1 } }] },
    { ...card, customer: { name: { first: 'a' }, document: 1e30, email: [] } },
    { ...card, currency: 12 },
    { ...card, items: [{ ...card.items[0], amount: '9'.repeat(400) }] },
    { ...card, payments: [{ ...card.payments[0], credit_card: { ...card.payments[0].credit_card, card: { ...card.payments[0].credit_card.card, billing_address: { line_1: 'x', state: 35, country: ['BR'] } } } }] },
  ];
  for (const body of odd) {
    const res = await svc.call('POST', '/core/v5/orders', { rawBody: JSON.stringify(body), headers });
    assert.ok(res.status < 500 || ['GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT', 'GATEWAY_ERROR'].includes(String(res.headers['x-rg-error-code'])), `${JSON.stringify(body).slice(0, 120)} -> ${res.status} ${res.text}`);
    if (res.status === 400 || res.status === 422) assert.equal(res.body?.success, undefined, 'the native shape, not RouteGate\'s envelope');
  }
});

test('__proto__ and constructor query keys are harmless on every route', async () => {
  for (const q of ['__proto__[polluted]=1', '__proto__.polluted=1', 'constructor[prototype][polluted]=1', '__proto__=1', 'a[__proto__][b]=1']) {
    for (const [method, path, body] of [['POST', '/api/v1/charges', { paymentMethod: 'pix', amount: 1000 }], ['GET', '/api/v1/charges', undefined], ['GET', '/api/v1/clients/me', undefined], ['GET', '/core/v5/orders', undefined]] as const) {
      const headers = path.startsWith('/core') ? pagarmeCase.headers(key) : {};
      const res = await svc.call(method, `${path}?${q}`, { key: path.startsWith('/core') ? undefined : key, body, headers });
      assert.ok(res.status < 500 || ['GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT', 'GATEWAY_ERROR'].includes(String(res.headers['x-rg-error-code'] ?? res.body?.error?.code)), `${method} ${path}?${q} -> ${res.status} ${res.text}`);
    }
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
