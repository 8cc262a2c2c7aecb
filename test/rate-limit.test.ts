import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError } from './helper';

test('the 101st request in a minute from one key gets 429 RATE_LIMIT_EXCEEDED with the SPEC headers', async () => {
  // The per-IP limit is raised so this exercises the per-key limit alone.
  const svc = await startService({ ROUTEGATE_RATE_LIMIT: '100' });
  try {
    const { apiKey } = await svc.createAccount();
    let last;
    for (let i = 1; i <= 100; i++) {
      last = await svc.call('GET', '/api/v1/clients/me', { key: apiKey });
      assert.equal(last.status, 200, `request ${i}`);
    }
    assert.equal(last!.headers['x-ratelimit-limit'], '100');
    assert.equal(last!.headers['x-ratelimit-remaining'], '0');
    const res = await svc.call('GET', '/api/v1/clients/me', { key: apiKey });
    expectError(res, 'RATE_LIMIT_EXCEEDED', 429);
    assert.equal(res.headers['x-ratelimit-limit'], '100');
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    const reset = Number(res.headers['x-ratelimit-reset']);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(reset > 0 && reset <= 60, `reset ${reset}`);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.match(res.body.error.message, new RegExp(`retry in ${retryAfter} seconds`));
  } finally {
    await svc.close();
  }
});

test('per-key and per-IP limits are counted separately', async () => {
  const svc = await startService({ ROUTEGATE_RATE_LIMIT: '3' });
  try {
    const a = (await svc.createAccount()).apiKey;
    const b = (await svc.createAccount()).apiKey;
    for (let i = 0; i < 3; i++) assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: a, localAddress: '127.0.0.1' })).status, 200);
    // Key a is used up, even from a fresh client IP: the key counter refuses it.
    const byKey = await svc.call('GET', '/api/v1/clients/me', { key: a, localAddress: '127.0.0.2' });
    expectError(byKey, 'RATE_LIMIT_EXCEEDED', 429);
    // IP 127.0.0.1 is used up too: a fresh key from it is refused by the IP counter...
    expectError(await svc.call('GET', '/api/v1/clients/me', { key: b, localAddress: '127.0.0.1' }), 'RATE_LIMIT_EXCEEDED', 429);
    // ...while the same fresh key from another IP still works.
    assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: b, localAddress: '127.0.0.3' })).status, 200);
    // Unauthenticated probing counts against the IP, unknown routes included.
    expectError(await svc.call('GET', '/nope', { localAddress: '127.0.0.1' }), 'RATE_LIMIT_EXCEEDED', 429);
    expectError(await svc.call('GET', '/api/v1/clients/me', { localAddress: '127.0.0.1' }), 'RATE_LIMIT_EXCEEDED', 429);
  } finally {
    await svc.close();
  }
});
