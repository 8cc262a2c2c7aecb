import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from './helper';

let svc: Service;
before(async () => {
  svc = await startService();
});
after(() => svc.close());

test('a request without x-api-key gets 401 MISSING_API_KEY', async () => {
  expectError(await svc.call('GET', '/api/v1/clients/me'), 'MISSING_API_KEY', 401);
});

test('unknown, malformed and mistyped keys get 401 INVALID_API_KEY', async () => {
  const { apiKey } = await svc.createAccount();
  for (const key of ['tk_' + 'x'.repeat(40), 'not-a-key', 'tk_short', apiKey.slice(0, -1) + (apiKey.endsWith('a') ? 'b' : 'a')]) {
    expectError(await svc.call('GET', '/api/v1/clients/me', { key }), 'INVALID_API_KEY', 401);
  }
});

test('a valid key reaches the account', async () => {
  const { id, apiKey } = await svc.createAccount('Padaria Central', 'contato@padaria.com.br');
  const res = await svc.call('GET', '/api/v1/clients/me', { key: apiKey });
  assert.equal(res.status, 200);
  assert.equal(res.body.success, true);
  assert.equal(res.body.data.id, id);
  assert.equal(res.body.data.name, 'Padaria Central');
  assert.equal(res.body.data.email, 'contato@padaria.com.br');
  assert.match(res.body.data.webhookToken, /^wh_[A-Za-z0-9]{32}$/);
  const token = res.body.data.webhookToken;
  assert.deepEqual(res.body.data.webhookUrls, {
    stripe: `https://pay.example.com/api/v1/webhooks/stripe/${token}`,
    pagarme: `https://pay.example.com/api/v1/webhooks/pagarme/${token}`,
    asaas: `https://pay.example.com/api/v1/webhooks/asaas/${token}`,
    mercadopago: `https://pay.example.com/api/v1/webhooks/mercadopago/${token}`,
    pagbank: `https://pay.example.com/api/v1/webhooks/pagbank/${token}`,
  });
  assert.deepEqual(res.body.data.settings, {
    primaryGateway: null, gatewayFallbacks: [], compatibilityMode: null, responseFormat: 'full', webhookForwardUrl: null, orphanPolicy: 'refund',
    installments: { maxCount: 12, interestFreeCount: 12, monthlyInterestRate: 0, minInstallmentAmount: 0 }, stripeRawCardData: false,
  });
  assert.equal(res.body.data.apiKey, undefined, 'the key is never returned');
});

test('keys are tk_ followed by at least 32 base62 characters and differ every time', async () => {
  const a = (await svc.createAccount()).apiKey;
  const b = (await svc.createAccount()).apiKey;
  assert.match(a, /^tk_[A-Za-z0-9]{32,}$/);
  assert.notEqual(a, b);
});

test('rotating a key revokes the previous one at once', async () => {
  const { id, apiKey: oldKey } = await svc.createAccount();
  const rotated = (await svc.accounts.rotateKey(id))!;
  assert.notEqual(rotated.apiKey, oldKey);
  expectError(await svc.call('GET', '/api/v1/clients/me', { key: oldKey }), 'INVALID_API_KEY', 401);
  assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: rotated.apiKey })).status, 200);
});

test('a deactivated account gets 403 CLIENT_INACTIVE until it is activated again', async () => {
  const { id, apiKey } = await svc.createAccount();
  await svc.accounts.setActive(id, false);
  expectError(await svc.call('GET', '/api/v1/clients/me', { key: apiKey }), 'CLIENT_INACTIVE', 403);
  await svc.accounts.setActive(id, true);
  assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: apiKey })).status, 200);
});

test('a key in the query string is refused with 400 and never written to the log', async () => {
  const { apiKey } = await svc.createAccount();
  for (const param of ['api_key', 'x-api-key']) {
    const res = await svc.call('GET', `/api/v1/clients/me?${param}=${apiKey}`);
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.match(res.body.error.message, /x-api-key header/);
  }
  await svc.call('GET', '/api/v1/clients/me', { key: apiKey });
  const logs = svc.logs.join('');
  assert.ok(logs.includes('/api/v1/clients/me'), 'requests are logged');
  assert.ok(!logs.includes(apiKey), 'the key never appears in a log line');
});

test('only the SHA-256 of a key is stored', async () => {
  const { apiKey } = await svc.createAccount();
  const rows = (await svc.app.store.query('SELECT key_hash, key_hint FROM api_keys')) as Array<{ key_hash: string; key_hint: string }>;
  assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash)));
  assert.ok(rows.every((r) => !r.key_hint.includes(apiKey.slice(3, 20))));
});
