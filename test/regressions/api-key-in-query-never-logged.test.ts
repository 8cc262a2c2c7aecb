import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, callRaw, type Service } from '../helper';
import { safeUrl } from '../../src/lib/redact';

// Found by the fuzz test: only five query names (api_key, apiKey, ...) were redacted, so `?token=`,
// `?api%5Fkey=`, `?API-KEY=` and the like wrote the key into the "incoming request" log line.

let svc: Service;
let key: string;
before(async () => {
  svc = await startService({ ROUTEGATE_LOG_LEVEL: 'trace' });
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

test('no query name, case or percent-encoding puts an API key into a log line', async () => {
  const names = ['token', 'api%5Fkey', 'API_KEY', 'Api-Key', '%61pi_key', 'access_token', 'x', '', 'a[b]', 'api_key%00'];
  const paths = ['/api/v1/clients/me', '/api/v1/charges', '/api/v1/charges/abc', '/health', '/docs/json', '/nowhere', '/api/v1/credentials/__proto__'];
  for (const path of paths) {
    for (const name of names) {
      const res = await callRaw(svc.url, 'GET', `${path}?${name}=${key}&limit=5`, { headers: { 'x-api-key': key } });
      assert.notEqual(res.status, 500, res.text);
    }
    await callRaw(svc.url, 'GET', `${path}?${key}`);
  }
  const logs = svc.logs.join('');
  assert.ok(!logs.includes(key), 'the key reached a log line');
  assert.ok(logs.includes('"url":"/api/v1/charges?[REDACTED]"'), 'requests are logged with their path');
});

test('an x-request-id holding an API key is replaced by a generated one', async () => {
  const res = await callRaw(svc.url, 'GET', '/api/v1/clients/me', { headers: { 'x-api-key': key, 'x-request-id': key } });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const ok = await callRaw(svc.url, 'GET', '/health', { headers: { 'x-request-id': 'support-1700000000000' } });
  assert.equal(ok.headers['x-request-id'], 'support-1700000000000');
  assert.ok(!svc.logs.join('').includes(key));
});

test('the logged URL keeps the path and drops the whole query string', () => {
  assert.equal(safeUrl('/api/v1/charges'), '/api/v1/charges');
  assert.equal(safeUrl('/api/v1/charges?status=approved&token=tk_x'), '/api/v1/charges?[REDACTED]');
  assert.equal(safeUrl('/api/v1/charges?'), '/api/v1/charges?[REDACTED]');
});
