import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { testDatabase } from './helpers/test-db';
import { call, expectError, type Reply } from './helper';
import { startEmulators, type EmulatorServer } from '../src/sandbox/emulators';
import { EmulatorControlClient } from '../src/sandbox/control-client';
import { openStore } from '../src/store/open';
import { AccountService } from '../src/accounts/service';
import { CredentialVault } from '../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { GATEWAY_IDS, type GatewayId } from '../src/gateways/registry-ids';
import { ROOT } from '../src/lib/paths';

// Issue 39, deliverable 3: a refund, capture or cancel is idempotent end to end. Over real HTTP against the
// emulators, on the suite's store (ROUTEGATE_TEST_DB=postgres for PostgreSQL); every money assertion reads the
// gateways' own ledgers (/__control/ledger), not RouteGate's figures. The gateway timeout is 400 ms, so a
// `latency` of 1500 ms is a gateway that holds the request past the timeout, then applies it.

const TIMEOUT_MS = 400;
const HELD_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let e2e: E2E;
before(async () => {
  e2e = await startE2E({
    ROUTEGATE_GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS), ROUTEGATE_REQUEST_DEADLINE_MS: '4000', ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0',
  });
});
after(() => e2e.close());
beforeEach(() => e2e.control.reset());

/** A card charge of 100.00 at `gateway` (Asaas needs a customer first), captured unless `capture: false`. */
async function cardCharge(gateway: GatewayId, key: string, capture = true): Promise<{ id: string; externalId: string }> {
  const customerId = gateway === 'asaas' ? (await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId : undefined;
  const body = { paymentMethod: 'credit_card', amount: 10_000, customer: CUSTOMER, creditCard: CARD, capture, ...(customerId ? { customerId } : {}) };
  const res = await e2e.call('POST', '/api/v1/charges', { key, body });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.data.id, externalId: res.body.data.externalId };
}

async function atGateway(gateway: GatewayId, id: string) {
  const entries = (await e2e.control.ledger(gateway)).filter((c) => c.reference === id);
  assert.equal(entries.length, 1, `one ${gateway} charge for ${id}`);
  return entries[0];
}

const refund = (key: string, id: string, idempotencyKey: string, amount?: number) =>
  e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: amount === undefined ? {} : { amount }, headers: { 'idempotency-key': idempotencyKey } });

async function attemptsOf(key: string, id: string, operation: string) {
  const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
  return (stored.body.data.attempts as Array<{ operation: string; outcome: string; seq: number; externalId?: string; amount?: number }>).filter((a) => a.operation === operation);
}

/** The path of each gateway's refund call for a charge, for faults aimed at it alone. */
function refundCall(gateway: GatewayId, externalId: string): { method: string; path?: string } {
  if (gateway === 'pagarme') return { method: 'DELETE' }; // only a refund deletes at Pagar.me here
  if (gateway === 'asaas') return { method: 'POST', path: `/v3/payments/${externalId}/refund` };
  if (gateway === 'stripe') return { method: 'POST', path: '/v1/refunds' };
  if (gateway === 'mercadopago') return { method: 'POST', path: `/v1/payments/${externalId}/refunds` };
  if (gateway === 'pagbank') return { method: 'POST' }; // past the create, PagBank's only POSTs here are refunds (cancels)
  throw new Error(`no refund path for ${gateway}`);
}

describe('a slow refund (held by the gateway past the timeout, then applied) is never applied twice', () => {
  for (const gateway of ['pagarme', 'asaas', 'stripe', 'mercadopago', 'pagbank'] as const) {
    test(`${gateway}: 504, a different key is 409 OPERATION_UNSETTLED, the retry of the same key settles that refund; one refund at the gateway`, async () => {
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
      const { id, externalId } = await cardCharge(gateway, key);
      const target = refundCall(gateway, externalId);
      // Where the gateway keeps keys, the refund and its immediate same-key replay are both held, and so is the replay
      // the second client's request makes to settle it. Asaas keeps none: its refund is held once.
      await e2e.control.fault(gateway, 'latency', { count: 3, latencyMs: HELD_MS, ...target });

      const first = await refund(key, id, 'refund-a', 700);
      assert.ok([502, 504].includes(first.status), `the refund's outcome is unknown: ${first.status} ${first.text}`);
      assert.deepEqual((await attemptsOf(key, id, 'refund')).map((a) => a.outcome), ['unknown'], 'unknown, not reconciled from a read made before the gateway applied it');

      const other = await refund(key, id, 'refund-b', 300);
      expectError(other, 'OPERATION_UNSETTLED', 409);
      assert.match(other.body.error.message, /Idempotency-Key/);

      await sleep(HELD_MS + 300); // the gateway applies what it held
      await e2e.control.clearFaults();
      const settled = await refund(key, id, 'refund-a', 700);
      assert.equal(settled.status, 201, settled.text);
      assert.equal(settled.body.data.refund.amount, 700);
      const again = await refund(key, id, 'refund-a', 700);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body.data.refund, settled.body.data.refund, 'the same refund, not another');

      let ledger = await atGateway(gateway, id);
      assert.equal(ledger.refunds, 1, 'one refund at the gateway');
      assert.equal(ledger.refundedAmount, 700);

      const second = await refund(key, id, 'refund-b', 300);
      assert.equal(second.status, 201, `the refused request ran nothing, so its key runs now: ${second.text}`);
      ledger = await atGateway(gateway, id);
      assert.equal(ledger.refunds, 2);
      assert.equal(ledger.refundedAmount, 1000);
      const refreshed = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
      assert.equal(refreshed.body.data.refundedAmount, ledger.refundedAmount, 'RouteGate agrees with the gateway');
      assert.deepEqual((await attemptsOf(key, id, 'refund')).map((a) => a.outcome), ['success', 'success']);
    });
  }

  test('asaas: an unknown refund is settled by its own identity (the operation key in its description), never by totals', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge('asaas', key);
    await e2e.control.fault('asaas', 'late', { latencyMs: HELD_MS, ...refundCall('asaas', externalId) });
    // The answer is late, but the refund is made: found at once by the operation key it carries.
    const res = await refund(key, id, 'late-1', 2500);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.refund.amount, 2500);
    const sent = (await e2e.control.requests('asaas')).find((r) => r.method === 'POST' && r.path.endsWith('/refund'))!;
    const { seq } = (await attemptsOf(key, id, 'refund'))[0];
    assert.equal((sent.body as { description: string }).description, `RouteGate refund of ${id} (${id}-partial_refund-${seq})`);
    assert.equal((await atGateway('asaas', id)).refunds, 1);
  });
});

describe('the reconciler settles unknown follow-ups', () => {
  test('a refund left unknown without an Idempotency-Key is settled by the next reconciler pass (replayed under its gateway key): one refund', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge('stripe', key);
    await e2e.control.fault('stripe', 'latency', { count: 2, latencyMs: HELD_MS, ...refundCall('stripe', externalId) });
    const first = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 400 } });
    assert.ok([502, 504].includes(first.status), `${first.status} ${first.text}`);
    assert.deepEqual((await attemptsOf(key, id, 'refund')).map((a) => a.outcome), ['unknown']);
    await sleep(HELD_MS + 300);
    await e2e.control.clearFaults();
    await e2e.sandbox.app.reconciler.pass();
    const [row] = await attemptsOf(key, id, 'refund');
    assert.equal(row.outcome, 'success');
    assert.equal(row.amount, 400);
    assert.ok(row.externalId?.startsWith('re_'), 'the refund id, from the replay');
    const ledger = await atGateway('stripe', id);
    assert.equal(ledger.refunds, 1);
    assert.equal(ledger.refundedAmount, 400);
    const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.refundedAmount, 400, 'the charge follows the replay\'s read');
  });
});

describe('a refund the gateway made is a success even when the read after it fails', () => {
  for (const [gateway, readPath] of [['stripe', (x: string) => `/v1/payment_intents/${x}`], ['mercadopago', (x: string) => `/v1/payments/${x}`]] as const) {
    test(`${gateway}: the read-back answers 500; the refund is answered 201 with ${gateway}'s refund, and a retry refunds nothing more`, async () => {
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
      const { id, externalId } = await cardCharge(gateway, key);
      await e2e.control.fault(gateway, 'http500', { count: 5, method: 'GET', path: readPath(externalId) });
      const res = await refund(key, id, 'rb-1', 1200);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.refund.amount, 1200);
      assert.ok(res.body.data.refund.refundId, 'the gateway\'s refund id');
      assert.equal(res.body.data.refundedAmount, 1200, 'the stored amounts follow the refund the gateway reported, read-back or not');
      await e2e.control.clearFaults();
      const retry = await refund(key, id, 'rb-1', 1200);
      assert.equal(retry.status, 201);
      assert.equal(retry.body.data.refund.refundId, res.body.data.refund.refundId);
      const ledger = await atGateway(gateway, id);
      assert.equal(ledger.refunds, 1);
      assert.equal(ledger.refundedAmount, 1200);
      const refreshed = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
      assert.equal(refreshed.body.data.refundedAmount, 1200, 'the amounts follow the next read');
      assert.deepEqual((await attemptsOf(key, id, 'refund')).map((a) => a.outcome), ['success']);
    });
  }
});

describe('a retry of the same key answers the same operation', () => {
  test('refund: replayed with the same refund; the ledger holds one', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const { id } = await cardCharge('pagarme', key);
    const first = await refund(key, id, 'same-1', 500);
    assert.equal(first.status, 201, first.text);
    const second = await refund(key, id, 'same-1', 500);
    assert.equal(second.status, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body.data.refund, first.body.data.refund);
    const conflict = await refund(key, id, 'same-1', 600);
    expectError(conflict, 'IDEMPOTENCY_CONFLICT', 409);
    assert.equal((await atGateway('pagarme', id)).refunds, 1);
  });

  for (const gateway of ['pagarme', 'stripe'] as const) {
    test(`${gateway} capture held past the timeout: 504, a cancel meanwhile is 409, the retry settles the one capture`, async () => {
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
      const { id, externalId } = await cardCharge(gateway, key, false);
      // Past the create, Pagar.me's only POSTs here are captures.
      const capture = gateway === 'pagarme' ? { method: 'POST' } : { method: 'POST', path: `/v1/payment_intents/${externalId}/capture` };
      await e2e.control.fault(gateway, 'latency', { count: 3, latencyMs: HELD_MS, ...capture });
      const headers = { 'idempotency-key': 'cap-1' };
      const first = await e2e.call('POST', `/api/v1/charges/${id}/capture`, { key, body: {}, headers });
      assert.ok([502, 504].includes(first.status), `${first.status} ${first.text}`);
      const cancel = await e2e.call('POST', `/api/v1/charges/${id}/cancel`, { key, headers: { 'idempotency-key': 'cancel-1' } });
      expectError(cancel, 'OPERATION_UNSETTLED', 409);
      await sleep(HELD_MS + 300);
      await e2e.control.clearFaults();
      const settled = await e2e.call('POST', `/api/v1/charges/${id}/capture`, { key, body: {}, headers });
      assert.equal(settled.status, 200, settled.text);
      assert.equal(settled.body.data.captured, true);
      const ledger = await atGateway(gateway, id);
      assert.equal(ledger.paidAmount, 10_000, 'captured once, in full');
      assert.deepEqual((await attemptsOf(key, id, 'capture')).map((a) => a.outcome), ['success']);
      // The cancel was refused having done nothing; now the charge is captured, so it is refused for that.
      const cancelAgain = await e2e.call('POST', `/api/v1/charges/${id}/cancel`, { key, headers: { 'idempotency-key': 'cancel-1' } });
      expectError(cancelAgain, 'VALIDATION_ERROR', 400);
    });
  }

  test('asaas cancel of a pre-authorization whose answer is late: found by the charge\'s state, answered 200, released once', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    const { id, externalId } = await cardCharge('asaas', key, false);
    await e2e.control.fault('asaas', 'late', { latencyMs: HELD_MS, ...refundCall('asaas', externalId) });
    const res = await e2e.call('POST', `/api/v1/charges/${id}/cancel`, { key, headers: { 'idempotency-key': 'void-1' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'cancelled');
    const retry = await e2e.call('POST', `/api/v1/charges/${id}/cancel`, { key, headers: { 'idempotency-key': 'void-1' } });
    assert.equal(retry.status, 200);
    const ledger = await atGateway('asaas', id);
    assert.equal(ledger.paidAmount, 0);
    assert.equal((await e2e.control.requests('asaas')).filter((r) => r.method === 'POST' && r.path.endsWith('/refund')).length, 1, 'one release sent');
  });
});

describe('compatibility mode: a native follow-up\'s Idempotency-Key is bound the same way', () => {
  test('stripe: a native refund held past the timeout, retried with its key, is that one refund', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: [], compatibilityMode: 'stripe' });
    const form = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded', ...extra });
    const created = await e2e.call('POST', '/compat/stripe/v1/payment_intents', {
      rawBody: 'amount=5000&currency=brl&payment_method=pm_card_visa&payment_method_types[]=card&confirm=true', headers: form(),
    });
    assert.equal(created.status, 200, created.text);
    const pi = created.body.id as string;
    await e2e.control.fault('stripe', 'latency', { count: 2, latencyMs: HELD_MS, method: 'POST', path: '/v1/refunds' });
    const headers = form({ 'idempotency-key': 'native-refund-1' });
    const first = await e2e.call('POST', '/compat/stripe/v1/refunds', { rawBody: `payment_intent=${pi}&amount=700`, headers });
    assert.ok(first.status >= 500, `unknown outcome: ${first.status} ${first.text}`);
    await sleep(HELD_MS + 300);
    await e2e.control.clearFaults();
    const retry = await e2e.call('POST', '/compat/stripe/v1/refunds', { rawBody: `payment_intent=${pi}&amount=700`, headers });
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual([retry.body.object, retry.body.amount], ['refund', 700]);
    const ledger = (await e2e.control.ledger('stripe')).find((c) => c.id === pi)!;
    assert.equal(ledger.refunds, 1);
    assert.equal(ledger.refundedAmount, 700);
  });
});

// ------------------------------------------------------------------------------------------------ SIGKILL

let emulators: EmulatorServer | undefined;
let child: ChildProcess | undefined;
after(async () => {
  child?.kill('SIGKILL');
  await emulators?.close();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForHealth(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await call(url, 'GET', '/health')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error('RouteGate did not start');
    await sleep(50);
  }
}

describe('a refund in flight when the service is killed', () => {
  for (const gateway of ['pagarme', 'asaas'] as const) {
    test(`${gateway}: SIGKILL while the refund's answer is late, restart, the same key and body settle that refund: one refund in the ledger`, { timeout: 60_000 }, async () => {
      emulators = await startEmulators();
      const control = new EmulatorControlClient(emulators.url);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-followup-crash-'));
      const database = await testDatabase();
      const masterKey = 'f'.repeat(64);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const deadlineMs = 2_000;
      const leaseMs = deadlineMs + Math.min(5_000, deadlineMs);
      const env: Record<string, string> = {
        PORT: String(port), HOST: '127.0.0.1', ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: masterKey, ROUTEGATE_LOG_LEVEL: 'warn',
        ROUTEGATE_RATE_LIMIT: '1000000', ROUTEGATE_REQUEST_DEADLINE_MS: String(deadlineMs), ROUTEGATE_GATEWAY_TIMEOUT_MS: '1500',
        ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0', NODE_ENV: 'test', ...database.env,
        ...Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators!.gatewayUrl(g)])),
      };
      const setup = await openStore({ dbPath: env.ROUTEGATE_DB, databaseUrl: env.DATABASE_URL });
      const vault = new CredentialVault(setup, Buffer.from(masterKey, 'hex'));
      await vault.verifyMasterKey();
      const { id: accountId, apiKey } = await new AccountService(setup).create('Loja Crash', 'crash@example.com');
      await vault.save(accountId, gateway, SANDBOX_CREDENTIALS[gateway]);
      await setup.accounts.saveSettings(accountId, { ...(await setup.accounts.settings(accountId)), primaryGateway: gateway, gatewayFallbacks: [] });
      await setup.close();
      const start = () => spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
      try {
        child = start();
        await waitForHealth(url);
        const customerId = gateway === 'asaas' ? (await call(url, 'POST', '/api/v1/customers', { key: apiKey, body: CUSTOMER })).body.data.externalId : undefined;
        const created = await call(url, 'POST', '/api/v1/charges', {
          key: apiKey, body: { paymentMethod: 'credit_card', amount: 10_000, customer: CUSTOMER, creditCard: CARD, ...(customerId ? { customerId } : {}) },
        });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id as string;
        const target = gateway === 'pagarme' ? { method: 'DELETE' } : { method: 'POST', path: `/v3/payments/${created.body.data.externalId}/refund` };
        // The gateway applies the refund at once and answers 10 s later: the kill lands with the refund made.
        await control.fault(gateway, 'late', { latencyMs: 10_000, ...target });
        const body = { amount: 700 };
        const headers = { 'idempotency-key': 'crash-refund-1' };
        const inFlight = call(url, 'POST', `/api/v1/charges/${id}/refunds`, { key: apiKey, body, headers }).catch(() => undefined);
        const until = Date.now() + 10_000;
        while (Date.now() < until && ((await control.ledger(gateway)).find((c) => c.reference === id)?.refunds ?? 0) === 0) await sleep(20);
        assert.equal((await control.ledger(gateway)).find((c) => c.reference === id)!.refunds, 1, 'the gateway made the refund');
        child.kill('SIGKILL');
        await inFlight;
        await control.clearFaults();

        child = start();
        await waitForHealth(url);
        // Until the dead request's claim and the charge's lease run out, the key answers "in progress".
        let retry: Reply | undefined;
        const by = Date.now() + leaseMs + 10_000;
        while (Date.now() < by) {
          retry = await call(url, 'POST', `/api/v1/charges/${id}/refunds`, { key: apiKey, body, headers });
          if (!(retry.status === 409 && ['IDEMPOTENCY_CONFLICT', 'CHARGE_BUSY'].includes(retry.body.error?.code))) break;
          await sleep(200);
        }
        assert.equal(retry!.status, 201, retry!.text);
        assert.equal(retry!.body.data.refund.amount, 700);
        const entry = (await control.ledger(gateway)).find((c) => c.reference === id)!;
        assert.equal(entry.refunds, 1, 'one refund at the gateway, not two');
        assert.equal(entry.refundedAmount, 700);
        const stored = await call(url, 'GET', `/api/v1/charges/${id}?refresh=true`, { key: apiKey });
        assert.equal(stored.body.data.refundedAmount, 700);
        const refunds = (stored.body.data.attempts as Array<{ operation: string; outcome: string }>).filter((a) => a.operation === 'refund');
        assert.deepEqual(refunds.map((a) => a.outcome), ['success'], 'one refund operation, settled');
      } finally {
        child?.kill('SIGKILL');
        child = undefined;
        await emulators.close();
        emulators = undefined;
        await database.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
