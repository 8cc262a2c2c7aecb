import { SQLITE_ONLY } from './helpers/test-db';
import type { SqliteStore } from '../src/store';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { startService, expectError } from './helper';
import { MAPPINGS_DIR } from '../src/lib/paths';

// GET /metrics in Prometheus format, /health and /ready, over real HTTP against the emulators.

const TOKEN = 'metrics-token-0123456789abcdef';
let e2e: E2E;
before(async () => {
  e2e = await startE2E({ ROUTEGATE_METRICS_TOKEN: TOKEN });
});
after(() => e2e.close());

/** `name{labels} value` lines of the exposition text, as name -> [{labels, value}]. */
function parse(text: string): Map<string, Array<{ labels: Record<string, string>; value: number }>> {
  const out = new Map<string, Array<{ labels: Record<string, string>; value: number }>>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (!out.has(m[1])) out.set(m[1], []);
    out.get(m[1])!.push({ labels, value: Number(m[3]) });
  }
  return out;
}
const value = (m: ReturnType<typeof parse>, name: string, labels: Record<string, string>) =>
  (m.get(name) ?? []).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

async function scrape() {
  const res = await e2e.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parse(res.text);
}

test('/metrics counts requests by route and status, gateway attempts with latency, fallbacks, declines and the reconciler backlog', async () => {
  const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] });
  const pix = { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER };
  assert.equal((await e2e.call('POST', '/api/v1/charges', { key, body: pix })).status, 201);
  const declined = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: { ...CARD, number: '4000000000009995' } } });
  assert.equal(declined.status, 502, declined.text);
  const closed = await e2e.closedPortUrl();
  const fellBack = await e2e.withGatewayUrl('pagarme', closed, () => e2e.call('POST', '/api/v1/charges', { key, body: pix, headers: { 'idempotency-key': 'metrics-fallback' } }));
  assert.equal(fellBack.status, 201, fellBack.text);
  assert.equal(fellBack.headers['x-rg-fallback-used'], 'true');
  // A replay of the same answer is not a second fallback.
  await e2e.call('POST', '/api/v1/charges', { key, body: pix, headers: { 'idempotency-key': 'metrics-fallback' } });
  await e2e.call('GET', '/api/v1/charges/chg_nothing', { key });
  await e2e.call('GET', '/no/such/route');

  const m = await scrape();
  assert.ok(value(m, 'routegate_http_requests_total', { method: 'POST', route: '/api/v1/charges', status_code: '201' }) >= 3);
  assert.ok(value(m, 'routegate_http_requests_total', { method: 'POST', route: '/api/v1/charges', status_code: '502' }) >= 1);
  assert.ok(value(m, 'routegate_http_requests_total', { method: 'GET', route: '/api/v1/charges/:id', status_code: '404' }) >= 1);
  assert.ok(value(m, 'routegate_http_requests_total', { route: 'unmatched', status_code: '404' }) >= 1, 'unknown paths share one label');
  assert.ok(value(m, 'routegate_http_request_duration_seconds_count', { route: '/api/v1/charges' }) >= 4);

  assert.ok(value(m, 'routegate_gateway_attempts_total', { gateway: 'pagarme', operation: 'charge', outcome: 'success' }) >= 1);
  assert.ok(value(m, 'routegate_gateway_attempts_total', { gateway: 'pagarme', operation: 'charge', outcome: 'failed' }) >= 1, 'the unreachable attempt');
  assert.ok(value(m, 'routegate_gateway_attempts_total', { gateway: 'stripe', operation: 'charge', outcome: 'success' }) >= 1);
  assert.ok(value(m, 'routegate_gateway_attempts_total', { outcome: 'decline' }) >= 1);
  assert.ok(value(m, 'routegate_gateway_attempt_duration_seconds_count', { gateway: 'pagarme', operation: 'charge', outcome: 'success' }) >= 1);
  assert.ok((m.get('routegate_gateway_attempt_duration_seconds_bucket') ?? []).some((s) => s.labels.le === '0.1'), 'latency histogram buckets');

  assert.equal(value(m, 'routegate_charge_fallbacks_total', { gateway: 'stripe' }), 1);
  assert.equal(value(m, 'routegate_declines_total', { gateway: 'pagarme', code: 'insufficient_funds' }), 1);
  assert.equal((m.get('routegate_reconciler_backlog') ?? [])[0]?.value, await e2e.sandbox.app.reconciler.backlog());
  assert.ok(m.has('routegate_process_cpu_seconds_total'), 'process metrics too');
  assert.ok(!m.has('routegate_webhook_deliveries_total'), 'no webhook metrics before webhooks exist');
});

test('ROUTEGATE_METRICS_TOKEN protects /metrics: no token or another one is 401 UNAUTHORIZED in the envelope', async () => {
  expectError(await e2e.call('GET', '/metrics'), 'UNAUTHORIZED', 401);
  expectError(await e2e.call('GET', '/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } }), 'UNAUTHORIZED', 401);
  expectError(await e2e.call('GET', '/metrics', { headers: { authorization: TOKEN } }), 'UNAUTHORIZED', 401);
  const open = await startService();
  try {
    assert.equal((await open.call('GET', '/metrics')).status, 200, 'without the variable /metrics is open');
  } finally {
    await open.close();
  }
});

test('/health and /ready answer without a key and are not rate-limited', async () => {
  const svc = await startService({ ROUTEGATE_RATE_LIMIT: '2' });
  try {
    for (let i = 0; i < 4; i++) {
      assert.deepEqual((await svc.call('GET', '/health')).body, { status: 'ok', database: 'ok' });
      const { mappingSet, ...ready } = (await svc.call('GET', '/ready')).body;
      assert.deepEqual(ready, { status: 'ready', database: 'writable', mappings: 'loaded' });
      assert.equal(mappingSet.failingFixtures.length, 0, 'the mapping set in use is reported');
      assert.equal((await svc.call('GET', '/metrics')).status, 200);
    }
    // The probe's write is rolled back.
    assert.equal(await svc.app.store.meta.get('ready_probe'), undefined);
  } finally {
    await svc.close();
  }
});

test('/ready is 503 when a gateway has no mappings, and when the database is not writable', { skip: SQLITE_ONLY }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-ready-'));
  fs.cpSync(path.join(MAPPINGS_DIR, 'stripe'), path.join(dir, 'stripe'), { recursive: true });
  const partial = await startService({ ROUTEGATE_MAPPINGS_DIR: dir });
  try {
    const res = await partial.call('GET', '/ready');
    expectError(res, 'SERVICE_UNAVAILABLE', 503);
    assert.match(res.body.error.message, /no charge mappings loaded for pagarme, asaas, mercadopago, pagbank/);
    assert.equal((await partial.call('GET', '/health')).status, 200, 'alive, but not ready');
  } finally {
    await partial.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const svc = await startService();
  try {
    // Another connection holds the write lock, as a stuck writer or a long backup would.
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(svc.dbPath, { timeout: 0 });
    other.prepare('BEGIN IMMEDIATE').run();
    (svc.app.store as SqliteStore).db.pragma('busy_timeout = 0');
    try {
      const res = await svc.call('GET', '/ready');
      expectError(res, 'SERVICE_UNAVAILABLE', 503);
      assert.match(res.body.error.message, /the database is not writable/);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    assert.equal((await svc.call('GET', '/ready')).status, 200);
  } finally {
    await svc.close();
  }
});
