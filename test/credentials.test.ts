import { storedText } from './helpers/test-db';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from './helper';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';

let svc: Service;
let key: string;
before(async () => {
  svc = await startService();
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

const SECRETS = {
  stripe: { secretKey: 'sk_test_51HsEcReTStRiPeKeY9a1b2', webhookSecret: 'whsec_StRiPeSiGnInGsEcReT77' },
  pagarme: { secretKey: 'sk_test_PaGaRmEsEcReTkEy0001', webhookSecret: 'PaGaRmEhMaCsEcReT0002' },
  asaas: { apiKey: '$aact_AsAaSaPiKeYsEcReT0003', webhookSecret: 'AsAaSwEbHoOkToKeN0004' },
  mercadopago: { accessToken: 'TEST-MeRcAdOpAgOtOkEn0005', webhookSecret: 'MeRcAdOpAgOsIgNiNg0006' },
  pagbank: { token: 'PaGbAnKbEaReRtOkEn0007' },
};

test('credentials are stored per gateway and listed masked only', async () => {
  for (const [gateway, credentials] of Object.entries(SECRETS)) {
    const res = await svc.call('POST', '/api/v1/credentials', { key, body: { gateway, credentials } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.gateway, gateway);
  }
  const list = await svc.call('GET', '/api/v1/credentials', { key });
  assert.equal(list.status, 200);
  const stripe = list.body.data.find((c: { gateway: string }) => c.gateway === 'stripe');
  assert.deepEqual(stripe.credentials, { secretKey: 'sk_…a1b2', webhookSecret: 'whsec_…eT77' });
  assert.ok(stripe.updatedAt);
  assert.deepEqual(list.body.data.map((c: { gateway: string }) => c.gateway).sort(), ['asaas', 'mercadopago', 'pagarme', 'pagbank', 'stripe']);
  for (const creds of Object.values(SECRETS)) for (const secret of Object.values(creds)) assert.ok(!list.text.includes(secret));
});

test('the stored rows (the SQLite file, or every PostgreSQL row) contain none of the stored secrets', async () => {
  const stored = await storedText(svc.app.store);
  assert.ok(stored.length > 0);
  for (const creds of Object.values(SECRETS)) {
    for (const secret of Object.values(creds)) assert.ok(!stored.includes(secret), `${secret.slice(0, 6)}… found in the database`);
  }
});

test('posting again replaces the gateway credentials (upsert) and the aliases resolve', async () => {
  const res = await svc.call('POST', '/api/v1/credentials', { key, body: { gateway: 'gateway_5', credentials: { token: 'PaGbAnKnEwToKeN0000zz99', webhookSecret: 'PaGbAnKwHsEcReT00' } } });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.gateway, 'pagbank');
  assert.deepEqual(res.body.data.credentials, { token: '…zz99', webhookSecret: '…eT00' });
  const list = await svc.call('GET', '/api/v1/credentials', { key });
  assert.equal(list.body.data.filter((c: { gateway: string }) => c.gateway === 'pagbank').length, 1);
});

test('each gateway validates its own credential fields', async () => {
  const cases: Array<[string, unknown, string]> = [
    ['stripe', { secretKey: 'pk_test_123456789', webhookSecret: 'whsec_1234567890' }, 'credentials.secretKey'],
    ['stripe', { secretKey: 'sk_test_123456789', webhookSecret: 'secret_1234567890' }, 'credentials.webhookSecret'],
    ['stripe', { secretKey: 'sk_test_123456789' }, 'credentials.webhookSecret'],
    ['pagarme', { secretKey: 'ak_test_123456789', webhookSecret: 'x1234567890' }, 'credentials.secretKey'],
    ['asaas', { webhookSecret: 'x1234567890' }, 'credentials.apiKey'],
    ['mercadopago', { accessToken: 'TEST-1234567890' }, 'credentials.webhookSecret'],
    ['pagbank', { token: 'tok123456789', extra: 'x' }, 'credentials.extra'],
    ['paypal', { token: 'tok123456789' }, 'gateway'],
  ];
  for (const [gateway, credentials, field] of cases) {
    const res = await svc.call('POST', '/api/v1/credentials', { key, body: { gateway, credentials } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.ok(res.body.error.details.errors.some((e: { field: string }) => e.field === field), `${gateway}: ${res.text}`);
    assert.ok(!res.text.includes('123456789'), 'the rejected secret is not echoed back');
  }
});

test('pagbank webhookSecret is optional', async () => {
  const res = await svc.call('POST', '/api/v1/credentials', { key, body: { gateway: 'pagbank', credentials: { token: 'PaGbAnKoNlYtOkEn1234' } } });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.body.data.credentials), ['token']);
});

test('deleting credentials removes them; deleting again is 404', async () => {
  const other = (await svc.createAccount()).apiKey;
  await svc.call('POST', '/api/v1/credentials', { key: other, body: { gateway: 'asaas', credentials: SECRETS.asaas } });
  assert.equal((await svc.call('DELETE', '/api/v1/credentials/gateway_3', { key: other })).status, 200);
  assert.deepEqual((await svc.call('GET', '/api/v1/credentials', { key: other })).body.data, []);
  expectError(await svc.call('DELETE', '/api/v1/credentials/asaas', { key: other }), 'NOT_FOUND', 404);
});

test('one account never sees another account\'s credentials', async () => {
  const other = (await svc.createAccount()).apiKey;
  assert.deepEqual((await svc.call('GET', '/api/v1/credentials', { key: other })).body.data, []);
});

test('decrypted credentials round-trip and a wrong master key stops start-up with a clear error', async () => {
  const account = await svc.createAccount();
  await svc.call('POST', '/api/v1/credentials', { key: account.apiKey, body: { gateway: 'stripe', credentials: SECRETS.stripe } });
  const { CredentialVault } = await import('../src/accounts/credential-vault');
  assert.deepEqual(await new CredentialVault(svc.app.store, svc.config.masterKey).reveal(account.id, 'stripe'), SECRETS.stripe);
  const wrong = loadConfig({ ROUTEGATE_DB: svc.dbPath, ...(svc.config.databaseUrl ? { DATABASE_URL: svc.config.databaseUrl } : {}), ROUTEGATE_MASTER_KEY: 'b'.repeat(64) });
  await assert.rejects(buildApp({ config: wrong }), /ROUTEGATE_MASTER_KEY does not match/);
});

test('no credential value reaches a log line, even at debug level', async () => {
  const dbg = await startService({ ROUTEGATE_LOG_LEVEL: 'trace' });
  try {
    const k = (await dbg.createAccount()).apiKey;
    for (const [gateway, credentials] of Object.entries(SECRETS)) {
      await dbg.call('POST', '/api/v1/credentials', { key: k, body: { gateway, credentials } });
    }
    await dbg.call('POST', '/api/v1/credentials', { key: k, body: { gateway: 'stripe', credentials: { secretKey: 'pk_live_LeAkEdKeY12345' } } });
    const logs = dbg.logs.join('');
    assert.ok(logs.includes('/api/v1/credentials'), 'requests were logged');
    for (const creds of Object.values(SECRETS)) for (const secret of Object.values(creds)) assert.ok(!logs.includes(secret), `${secret.slice(0, 6)}… logged`);
    assert.ok(!logs.includes('pk_live_LeAkEdKeY12345'));
    assert.ok(!logs.includes(k));
  } finally {
    await dbg.close();
  }
});
