import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startEmulators, type EmulatorServer } from '../src/sandbox/emulators';
import { EmulatorControlClient } from '../src/sandbox/control-client';
import { openSqliteStore as openStore } from '../src/store';
import { AccountService } from '../src/accounts/service';
import { CredentialVault } from '../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { call, type Reply } from './helper';
import { startRouteGate as startRouteGateProcess } from './helpers/routegate-processes';
import { CUSTOMER, CARD } from './helpers/e2e';

// Issue 8: a RouteGate process killed with SIGKILL during 200 concurrent charges. After a restart, one reconciler
// pass (the one at start-up) leaves no charge `processing`, every charge matches its gateway, and every
// Idempotency-Key retry answers the charge's state without charging twice.

const MASTER_KEY = 'e'.repeat(64);
const DEADLINE_MS = 2_000;
const LEASE_MS = DEADLINE_MS + Math.min(5_000, DEADLINE_MS); // ChargeService's lease

let emulators: EmulatorServer | undefined;
let child: ChildProcess | undefined;
after(async () => {
  child?.kill('SIGKILL');
  await emulators?.close();
});

/** RouteGate as its own process on a port it picks and reports (port 0), answering /health. */
async function startRouteGate(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const proc = await startRouteGateProcess('crash', env, 0, 30_000);
  return { child: proc.child, url: proc.url };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SIGKILL during 200 concurrent charges: after a restart every charge is settled to its gateway, none twice', { timeout: 60_000 }, async () => {
  emulators = await startEmulators();
  const control = new EmulatorControlClient(emulators.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-crash-'));
  const dbPath = path.join(dir, 'rg.db');
  const env: Record<string, string> = {
    HOST: '127.0.0.1', ROUTEGATE_DB: dbPath, ROUTEGATE_MASTER_KEY: MASTER_KEY, ROUTEGATE_LOG_LEVEL: 'warn',
    ROUTEGATE_RATE_LIMIT: '1000000', ROUTEGATE_REQUEST_DEADLINE_MS: String(DEADLINE_MS), ROUTEGATE_GATEWAY_TIMEOUT_MS: '1500',
    ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0', NODE_ENV: 'test',
    // A lookup's "none" proves a create absent only once the settle horizon has passed since it was last sent
    // (docs/charges.md): 2 s here, so the restart, which comes later than that, settles the creates Pagar.me never
    // got as failed instead of leaving them processing for the default 10 minutes.
    ROUTEGATE_SETTLE_HORIZON_MS: '2000',
    ...Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators!.gatewayUrl(g)])),
  };

  // The account is made in the database file before the service starts, as the CLI would.
  const setup = openStore(dbPath);
  const vault = new CredentialVault(setup, Buffer.from(MASTER_KEY, 'hex'));
  await vault.verifyMasterKey();
  const { id: accountId, apiKey } = await new AccountService(setup).create('Loja Crash', 'crash@example.com');
  await vault.save(accountId, 'pagarme', SANDBOX_CREDENTIALS.pagarme);
  await setup.accounts.saveSettings(accountId, { ...(await setup.accounts.settings(accountId)), primaryGateway: 'pagarme', gatewayFallbacks: [] });
  await setup.close();

  let url: string;
  ({ child, url } = await startRouteGate(env));
  // Pagar.me holds each create for 250 ms before taking it, so the kill lands with many in flight at every stage.
  await control.fault('pagarme', 'latency', { count: 1000, latencyMs: 250 });

  const body = (i: number) => ({ paymentMethod: 'credit_card', amount: 1000 + i, customer: CUSTOMER, creditCard: CARD });
  const answers: Array<Reply | undefined> = new Array(200);
  const inFlight = Array.from({ length: 200 }, (_, i) => call(url, 'POST', '/api/v1/charges', { key: apiKey, body: body(i), headers: { 'idempotency-key': `crash-${i}` } })
    .then((r) => { answers[i] = r; }, () => { answers[i] = undefined; }));
  // Kill once some charges are acknowledged and the rest are at every stage of their way.
  const killBy = Date.now() + 10_000;
  while (answers.filter((r) => r?.status === 201).length < 10 && Date.now() < killBy) await sleep(10);
  child.kill('SIGKILL');
  await Promise.all(inFlight);
  const acknowledged = answers.map((r, i) => ({ r, i })).filter((x) => x.r?.status === 201);
  assert.ok(acknowledged.length > 0 && acknowledged.length < 200, `the kill landed mid-load (${acknowledged.length} acknowledged)`);

  // Let Pagar.me take what it was holding, and let the dead process's leases run out.
  await sleep(LEASE_MS + 500);
  await control.clearFaults();
  const before = openStore(dbPath);
  const leftProcessing = before.db.prepare("SELECT id FROM charges WHERE status = 'processing'").pluck().all() as string[];
  await before.close();
  assert.ok(leftProcessing.length > 0, 'the crash left charges processing');

  ({ child, url } = await startRouteGate(env));
  const store = openStore(dbPath);
  try {
    const processing = () => store.db.prepare("SELECT COUNT(*) FROM charges WHERE status = 'processing'").pluck().get() as number;
    const until = Date.now() + 15_000;
    while (processing() > 0 && Date.now() < until) await sleep(100);
    assert.equal(processing(), 0, 'the start-up pass settled every charge');
    const settled = store.db.prepare(`SELECT status, COUNT(*) AS n FROM charges WHERE id IN (${leftProcessing.map(() => '?').join(',')}) GROUP BY status`).all(...leftProcessing) as Array<{ status: string; n: number }>;
    assert.ok(settled.some((s) => s.status === 'approved'), `some were paid at Pagar.me after the kill: ${JSON.stringify(settled)}`);

    const ledger = (await control.ledger('pagarme')).filter((e) => e.reference?.startsWith('chg_'));
    const rows = store.db.prepare('SELECT id, status, amount, external_id FROM charges').all() as Array<{ id: string; status: string; amount: number; external_id: string | null }>;
    for (const { r, i } of acknowledged) {
      const row = rows.find((x) => x.id === r!.body.data.id);
      assert.ok(row, `acknowledged charge ${i} is stored`);
      assert.equal(row.status, 'approved');
    }
    for (const row of rows) {
      const atGateway = ledger.filter((e) => e.reference === row.id);
      if (row.status === 'approved') {
        assert.equal(atGateway.length, 1, `${row.id} is one charge at Pagar.me`);
        assert.equal(atGateway[0].id, row.external_id);
        assert.equal(atGateway[0].amount, row.amount);
      } else {
        assert.equal(row.status, 'failed', `${row.id}: ${row.status}`);
        assert.equal(atGateway.length, 0, `${row.id} failed and Pagar.me holds nothing for it`);
      }
    }
    assert.equal(ledger.length, rows.filter((r) => r.status === 'approved').length, 'no charge at the gateway that RouteGate does not know');

    // Every client retries with its Idempotency-Key: the acknowledged ones replay, the others get the charge's state
    // (or, if their first request died before creating anything, are charged now, once).
    for (let i = 0; i < 200; i++) {
      const retry = await call(url, 'POST', '/api/v1/charges', { key: apiKey, body: body(i), headers: { 'idempotency-key': `crash-${i}` } });
      assert.ok([201, 502, 504].includes(retry.status), `retry ${i}: ${retry.status} ${retry.text.slice(0, 200)}`);
      if (answers[i]?.status === 201) assert.equal(retry.body.data.id, answers[i]!.body.data.id);
    }
    const after = (await control.ledger('pagarme')).filter((e) => e.reference?.startsWith('chg_'));
    const byKey = store.db.prepare('SELECT key, charge_id FROM idempotency_keys WHERE charge_id IS NOT NULL').all() as Array<{ key: string; charge_id: string }>;
    const keysOf = new Map(byKey.map((k) => [k.charge_id, k.key]));
    const chargedKeys = after.map((e) => keysOf.get(e.reference ?? ""));
    assert.equal(new Set(chargedKeys).size, after.length, 'no Idempotency-Key was charged twice');
  } finally {
    await store.close();
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
