import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../src/config';

const base = { ROUTEGATE_MASTER_KEY: 'ab'.repeat(32), ROUTEGATE_DB: '/tmp/routegate-config-test/rg.db' };

test('defaults follow the contract', () => {
  const c = loadConfig(base);
  assert.equal(c.port, 3000);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.publicUrl, 'http://localhost:3000');
  assert.equal(c.rateLimit, 100);
  assert.equal(c.gatewayTimeoutMs, 30000);
  assert.equal(c.bodyLimit, 1024 * 1024);
  assert.equal(c.gatewayUrls.stripe, 'https://api.stripe.com');
  assert.equal(c.production, true, 'secure by default: NODE_ENV unset is production (issue 40)');
  assert.equal(loadConfig({ ...base, ROUTEGATE_DB: undefined }).dbPath, './data/routegate.db');
});

test('overrides are read and validated', () => {
  const c = loadConfig({ ...base, PORT: '8080', ROUTEGATE_STRIPE_URL: 'http://127.0.0.1:4010/stripe/', ROUTEGATE_GATEWAY_TIMEOUT_MS: '500' });
  assert.equal(c.publicUrl, 'http://localhost:8080');
  assert.equal(c.gatewayUrls.stripe, 'http://127.0.0.1:4010/stripe');
  assert.equal(c.gatewayTimeoutMs, 500);
  assert.equal(loadConfig({ ...base, ROUTEGATE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }).masterKey.length, 32);
});

test('bad values stop start-up naming the variable', () => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ ROUTEGATE_RATE_LIMIT: '0' }, /ROUTEGATE_RATE_LIMIT/],
    [{ ROUTEGATE_PUBLIC_URL: 'ftp://x' }, /ROUTEGATE_PUBLIC_URL/],
    [{ ROUTEGATE_PAGBANK_URL: 'nope' }, /ROUTEGATE_PAGBANK_URL/],
    [{ ROUTEGATE_MASTER_KEY: 'abc' }, /ROUTEGATE_MASTER_KEY must be 32 bytes/],
    [{ ROUTEGATE_LOG_LEVEL: 'loud' }, /ROUTEGATE_LOG_LEVEL/],
  ];
  for (const [env, message] of bad) assert.throws(() => loadConfig({ ...base, ...env }), (e: unknown) => e instanceof ConfigError && message.test(e.message));
});

test('production requires ROUTEGATE_MASTER_KEY', () => {
  assert.throws(() => loadConfig({ ROUTEGATE_DB: base.ROUTEGATE_DB, NODE_ENV: 'production' }), /required when NODE_ENV=production/);
});

test('wire settings: PagBank cents and the pinned Stripe version by default; reais and another version when set; bad values stop start-up', () => {
  assert.deepEqual(loadConfig(base).wire, { ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'cents', ROUTEGATE_STRIPE_API_VERSION: '2026-07-29.dahlia' });
  const set = loadConfig({ ...base, ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais', ROUTEGATE_STRIPE_API_VERSION: '2026-10-28.endive' }).wire;
  assert.deepEqual(set, { ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'reais', ROUTEGATE_STRIPE_API_VERSION: '2026-10-28.endive' });
  assert.throws(() => loadConfig({ ...base, ROUTEGATE_PAGBANK_AMOUNT_UNIT: 'centavos' }), (e: Error) => e instanceof ConfigError && /ROUTEGATE_PAGBANK_AMOUNT_UNIT must be cents or reais/.test(e.message));
  assert.throws(() => loadConfig({ ...base, ROUTEGATE_STRIPE_API_VERSION: 'latest' }), (e: Error) => e instanceof ConfigError && /ROUTEGATE_STRIPE_API_VERSION/.test(e.message));
});

test('REDIS_URL and ROUTEGATE_REDIS_PREFIX: unset = in memory; a redis(s) URL and a key prefix; bad values stop start-up', () => {
  const c = loadConfig(base);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.redisPrefix, 'routegate:');
  const set = loadConfig({ ...base, REDIS_URL: 'redis://redis:6379/0', ROUTEGATE_REDIS_PREFIX: 'shop-a:' });
  assert.equal(set.redisUrl, 'redis://redis:6379/0');
  assert.equal(set.redisPrefix, 'shop-a:');
  assert.equal(loadConfig({ ...base, REDIS_URL: 'rediss://user:pw@cache.example.com:6380' }).redisUrl, 'rediss://user:pw@cache.example.com:6380');
  for (const [env, message] of [
    [{ REDIS_URL: 'http://redis:6379' }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_URL: 'redis' }, /REDIS_URL must be/],
    [{ ROUTEGATE_REDIS_PREFIX: 'has space' }, /ROUTEGATE_REDIS_PREFIX must be/],
    [{ ROUTEGATE_REDIS_PREFIX: 'x*' }, /ROUTEGATE_REDIS_PREFIX must be/],
  ] as Array<[Record<string, string>, RegExp]>) {
    assert.throws(() => loadConfig({ ...base, ...env }), (e: unknown) => e instanceof ConfigError && message.test(e.message));
  }
});

test('ROUTEGATE_TRUST_PROXY: unset = no proxy is believed; addresses, CIDRs and named ranges; anything else stops start-up', () => {
  assert.equal(loadConfig(base).trustProxy, false);
  assert.deepEqual(loadConfig({ ...base, ROUTEGATE_TRUST_PROXY: ' uniquelocal, 10.1.2.3 ,fd00::/8,loopback' }).trustProxy, ['uniquelocal', '10.1.2.3', 'fd00::/8', 'loopback']);
  for (const bad of ['true', '2', 'nginx', '10.0.0.0/33']) {
    assert.throws(() => loadConfig({ ...base, ROUTEGATE_TRUST_PROXY: bad }), (e: unknown) => e instanceof ConfigError && /ROUTEGATE_TRUST_PROXY must list/.test((e as Error).message), bad);
  }
});
