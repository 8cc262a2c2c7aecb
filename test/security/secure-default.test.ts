import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../helper';
import { loadConfig } from '../../src/config';

// Issue 40 item 8: production behaviour unless NODE_ENV says development; /metrics closed in production without its
// token; webhookForwardUrl checked when saved with the send-time policy, refused with 400 naming the rule.

const services: Service[] = [];
after(async () => {
  for (const s of services) await s.close();
});

test('NODE_ENV unset is production; only development or test relax it', () => {
  const base = { ROUTEGATE_MASTER_KEY: 'a'.repeat(64), ROUTEGATE_DB: '/tmp/routegate-secure-default/rg.db' };
  assert.equal(loadConfig(base).production, true);
  assert.equal(loadConfig({ ...base, NODE_ENV: '' }).production, true);
  assert.equal(loadConfig({ ...base, NODE_ENV: 'staging' }).production, true);
  assert.equal(loadConfig({ ...base, NODE_ENV: 'development' }).production, false);
  assert.equal(loadConfig({ ...base, NODE_ENV: 'test' }).production, false);
});

test('in production GET /metrics needs its token: closed without one configured, open with the right one', async () => {
  const prod = await startService({ NODE_ENV: 'production' });
  services.push(prod);
  const closed = await prod.call('GET', '/metrics');
  assert.equal(closed.status, 401, closed.text);
  assert.equal(closed.body.error.code, 'UNAUTHORIZED');
  assert.doesNotMatch(closed.text, /routegate_/);
  const withToken = await startService({ NODE_ENV: 'production', ROUTEGATE_METRICS_TOKEN: 'm'.repeat(24) });
  services.push(withToken);
  assert.equal((await withToken.call('GET', '/metrics')).status, 401);
  const open = await withToken.call('GET', '/metrics', { headers: { authorization: `Bearer ${'m'.repeat(24)}` } });
  assert.equal(open.status, 200);
  const dev = await startService();
  services.push(dev);
  assert.equal((await dev.call('GET', '/metrics')).status, 200, 'development keeps /metrics open without a token');
});

test('in production a webhookForwardUrl the send-time policy refuses is refused when saved, naming the rule', async () => {
  const prod = await startService({ NODE_ENV: 'production' });
  services.push(prod);
  const { apiKey } = await prod.createAccount();
  const cases: Array<[string, RegExp]> = [
    ['http://hooks.example.com/x', /http refused/],
    ['https://169.254.169.254/latest/meta-data/', /metadata/],
    ['https://127.0.0.1/x', /loopback/],
    ['https://[::ffff:127.0.0.1]/x', /IPv4-mapped loopback/],
    ['https://10.0.0.1/x', /private/],
    ['https://100.64.0.1/x', /CGNAT/],
    ['https://169.254.10.1/x', /link-local/],
    ['https://[::1]/x', /loopback/],
  ];
  for (const [url, rule] of cases) {
    const res = await prod.call('PATCH', '/api/v1/clients/settings', { key: apiKey, body: { webhookForwardUrl: url } });
    assert.equal(res.status, 400, `${url}: ${res.text}`);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.match(res.body.error.message, /webhookForwardUrl/);
    assert.match(res.body.error.message, rule, url);
  }
  const me = await prod.call('GET', '/api/v1/clients/me', { key: apiKey });
  assert.equal(me.body.data.settings.webhookForwardUrl, null, 'nothing refused was saved');
  const ok = await prod.call('PATCH', '/api/v1/clients/settings', { key: apiKey, body: { webhookForwardUrl: 'https://8.8.8.8/hooks' } });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.data.webhookForwardUrl, 'https://8.8.8.8/hooks');
});

test('ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS lets a private https target be saved; outside production http to loopback is saved', async () => {
  const allowed = await startService({ NODE_ENV: 'production', ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS: 'true' });
  services.push(allowed);
  const a = await allowed.createAccount();
  assert.equal((await allowed.call('PATCH', '/api/v1/clients/settings', { key: a.apiKey, body: { webhookForwardUrl: 'https://10.0.0.1/x' } })).status, 200);
  assert.equal((await allowed.call('PATCH', '/api/v1/clients/settings', { key: a.apiKey, body: { webhookForwardUrl: 'http://10.0.0.1/x' } })).status, 400);
  const dev = await startService();
  services.push(dev);
  const d = await dev.createAccount();
  assert.equal((await dev.call('PATCH', '/api/v1/clients/settings', { key: d.apiKey, body: { webhookForwardUrl: 'http://127.0.0.1:8000/hooks' } })).status, 200);
});
