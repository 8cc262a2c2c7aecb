import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulators, type EmulatorServer } from '../src/sandbox/emulators';
import { EmulatorControlClient } from '../src/sandbox/control-client';
import { openSqliteStore as openStore } from '../src/store';
import { AccountService } from '../src/accounts/service';
import { CredentialVault } from '../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { call } from './helper';
import { CUSTOMER, CARD } from './helpers/e2e';
import { startRouteGate, type RouteGateProcess } from './helpers/routegate-processes';

// Issue 42 item 6: a refund left pending when RouteGate stops is settled by the next process's start-up reconciler
// pass (the pending row is in charge_attempts_unsettled), counted once. A plain stop (SIGTERM), then a restart.

const MASTER_KEY = 'f'.repeat(64);
let emulators: EmulatorServer | undefined;
let proc: RouteGateProcess | undefined;
after(async () => {
  proc?.child.kill('SIGKILL');
  await emulators?.close();
});

async function stop(p: RouteGateProcess): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

test('a pending refund survives a restart and the start-up pass settles it once Mercado Pago approved it', { timeout: 90_000 }, async () => {
  emulators = await startEmulators();
  const control = new EmulatorControlClient(emulators.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-pending-refund-'));
  const dbPath = path.join(dir, 'rg.db');
  const env: Record<string, string> = {
    HOST: '127.0.0.1', ROUTEGATE_DB: dbPath, ROUTEGATE_MASTER_KEY: MASTER_KEY, ROUTEGATE_LOG_LEVEL: 'warn', ROUTEGATE_RATE_LIMIT: '1000000',
    ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0', NODE_ENV: 'test',
    ...Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators!.gatewayUrl(g)])),
  };
  const setup = openStore(dbPath);
  const vault = new CredentialVault(setup, Buffer.from(MASTER_KEY, 'hex'));
  await vault.verifyMasterKey();
  const { id: accountId, apiKey } = await new AccountService(setup).create('Loja Reembolso', 'reembolso@example.com');
  await vault.save(accountId, 'mercadopago', SANDBOX_CREDENTIALS.mercadopago);
  await setup.accounts.saveSettings(accountId, { ...(await setup.accounts.settings(accountId)), primaryGateway: 'mercadopago', gatewayFallbacks: [] });
  await setup.close();

  proc = await startRouteGate('pending-refund', env, 0, 30_000);
  const created = await call(proc.url, 'POST', '/api/v1/charges', { key: apiKey, body: { paymentMethod: 'credit_card', amount: 10_000, customer: CUSTOMER, creditCard: CARD } });
  assert.equal(created.status, 201, created.text);
  const { id, externalId } = created.body.data;
  await control.refundOutcome('mercadopago', 'in_process');
  const pending = await call(proc.url, 'POST', `/api/v1/charges/${id}/refunds`, { key: apiKey, body: {}, headers: { 'idempotency-key': 'restart-1' } });
  assert.equal(pending.status, 202, pending.text);
  await stop(proc);

  // Mercado Pago approves it while RouteGate is down (its notification has nowhere to go).
  assert.equal(await control.settleRefunds('mercadopago', externalId, 'approved'), 1);
  proc = await startRouteGate('pending-refund', env, 0, 30_000);
  const until = Date.now() + 15_000;
  let charge: any;
  for (;;) {
    charge = (await call(proc.url, 'GET', `/api/v1/charges/${id}`, { key: apiKey })).body.data;
    if (charge.refundedAmount > 0 || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual([charge.status, charge.refundedAmount], ['refunded', 10_000], 'the start-up pass settled it');
  const rows = (charge.attempts as Array<{ operation: string; outcome: string; amount?: number }>).filter((a) => a.operation === 'refund');
  assert.deepEqual(rows.map((a) => [a.outcome, a.amount]), [['success', 10_000]]);
  const retry = await call(proc.url, 'POST', `/api/v1/charges/${id}/refunds`, { key: apiKey, body: {}, headers: { 'idempotency-key': 'restart-1' } });
  assert.equal(retry.status, 201, retry.text);
  const [entry] = (await control.ledger('mercadopago')).filter((e) => e.reference === id);
  assert.deepEqual([entry.refunds, entry.refundedAmount], [1, 10_000]);
  await stop(proc);
  proc = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});
