import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { openSqliteStore as openStore } from '../../src/store';
import { AccountService } from '../../src/accounts/service';
import { CredentialVault } from '../../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { call } from '../helper';
import { startRouteGate } from '../helpers/routegate-processes';
import { MerchantBackend } from '../helpers/merchant-backend';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';

// Issue 12 item 5: nothing is lost when the service dies. Two events wait in the outbox of a RouteGate process that
// is killed with SIGKILL: one the backend refused (the gateway got 502), one whose delivery was in flight when the
// process died. A new process delivers both once the backend is back, signed as before.

const MASTER_KEY = 'f'.repeat(64);
let child: ChildProcess | undefined;
const backend = new MerchantBackend();
after(async () => {
  child?.kill('SIGKILL');
  await backend.stop();
});

/** RouteGate as its own process on a port it picks and reports (port 0), answering /health. */
async function start(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const proc = await startRouteGate('outbox', env, 0, 30_000);
  return { child: proc.child, url: proc.url };
}

test('SIGKILL with deliveries in the outbox: after a restart both events reach the backend, signed', { timeout: 90_000 }, async () => {
  await backend.start();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-outbox-'));
  const dbPath = path.join(dir, 'rg.db');
  let url = '';
  const env = {
    HOST: '127.0.0.1', ROUTEGATE_DB: dbPath, ROUTEGATE_MASTER_KEY: MASTER_KEY, ROUTEGATE_LOG_LEVEL: 'warn', NODE_ENV: 'test',
    // Short enough for a test, as an operator could set them: a 1 s backend timeout, retries from 200 ms, the worker every 100 ms.
    ROUTEGATE_WEBHOOK_TIMEOUT_MS: '1000', ROUTEGATE_WEBHOOK_RETRY_BASE_MS: '200', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '100',
  };

  const setup = openStore(dbPath);
  const vault = new CredentialVault(setup, Buffer.from(MASTER_KEY, 'hex'));
  await vault.verifyMasterKey();
  const account = await new AccountService(setup, Buffer.from(MASTER_KEY, 'hex')).create('Loja Outbox', 'outbox@example.com');
  await vault.save(account.id, 'stripe', SANDBOX_CREDENTIALS.stripe);
  await setup.accounts.saveSettings(account.id, { ...(await setup.accounts.settings(account.id)), webhookForwardUrl: backend.url });
  const token = (await setup.accounts.get(account.id))!.webhookToken;
  await setup.close();

  const send = (n: number) => {
    const body = stripeEvent(`evt_outbox_${n}`, 'payment_intent.succeeded', { id: `pi_outbox_${n}`, object: 'payment_intent', amount: 1000 * n, amount_received: 1000 * n, currency: 'brl', status: 'succeeded', metadata: {} });
    return call(url, 'POST', `/api/v1/webhooks/stripe/${token}`, { rawBody: body, headers: stripeHeaders(body, SANDBOX_CREDENTIALS.stripe.webhookSecret) });
  };

  ({ child, url } = await start(env));
  backend.failWith = 503;
  const refused = await send(1);
  assert.equal(refused.status, 502, refused.text);
  // The second event's delivery is in flight (the backend took the request and never answers) when the process dies.
  backend.failWith = undefined;
  backend.hang = true;
  const inFlight = send(2).catch(() => undefined);
  const until = Date.now() + 10_000;
  while (backend.hung === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.equal(backend.hung, 1, 'the second delivery reached the backend');
  child.kill('SIGKILL');
  await inFlight;
  assert.equal(backend.received.length, 0);

  const store = openStore(dbPath);
  const pending = store.db.prepare("SELECT COUNT(*) FROM deliveries WHERE status = 'pending'").pluck().get();
  await store.close();
  assert.equal(pending, 2, 'both deliveries are in the outbox on disk');

  backend.hang = false;
  ({ child, url } = await start(env));
  const got = await backend.waitFor(2, 30_000);
  const ids = got.map((r) => JSON.parse(r.body).gatewayEvent.id).sort();
  assert.deepEqual(ids, ['evt_outbox_1', 'evt_outbox_2']);
  for (const r of got) new Webhook(account.webhookSigningSecret!).verify(r.body, r.headers as Record<string, string>);
  const check = openStore(dbPath);
  try {
    assert.equal(check.db.prepare("SELECT COUNT(*) FROM deliveries WHERE status = 'delivered'").pluck().get(), 2);
  } finally {
    await check.close();
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
