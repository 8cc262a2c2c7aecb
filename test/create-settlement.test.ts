import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { expectError } from './helper';
import { CREATE_PATH } from './helpers/charge-inputs';
import { ADAPTERS } from '../src/gateways/registry';
import { GatewayHttp } from '../src/gateways/http-client';
import { loadMappings } from '../src/mapping/loader';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import type { CallContext, GatewayId } from '../src/gateways/types';
import net from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { startEmulators } from '../src/sandbox/emulators';
import { EmulatorControlClient } from '../src/sandbox/control-client';
import { openStore } from '../src/store/open';
import { AccountService } from '../src/accounts/service';
import { CredentialVault } from '../src/accounts/credential-vault';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { ROOT } from '../src/lib/paths';
import { call } from './helper';
import { asaasEvent, asaasHeaders, pagbankHeaders } from './helpers/gateway-webhooks';
import { testDatabase } from './helpers/test-db';

// Issue 39, the create path: a lookup answering "none" is not proof while the gateway may still act on a create it
// holds (the emulators' `latency`: held, then acted on). Only a connect failure, a refused same-key replay, or a
// lookup after the settle horizon proves a create absent; everything else is 504 GATEWAY_TIMEOUT and `processing`,
// settled later to what the gateway did. Over real HTTP against the five emulators, on SQLite and PostgreSQL
// (ROUTEGATE_TEST_DB=postgres).

const GATEWAY_TIMEOUT_MS = 400;
const HELD_MS = 1_500;
const env = {
  ROUTEGATE_GATEWAY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS), ROUTEGATE_REQUEST_DEADLINE_MS: '3000', ROUTEGATE_RECONCILE_INTERVAL_MS: '0',
  ROUTEGATE_RECONCILE_BACKOFF_MS: '0', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '0',
};

let e2e: E2E;
before(async () => {
  e2e = await startE2E(env);
});
after(() => e2e.close());
beforeEach(() => e2e.control.reset());

const card = (extra: Record<string, unknown> = {}) => ({ paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every payment any emulator holds with this reference: the buyer's view. */
async function everywhere(target: E2E, reference: string) {
  return (await target.control.ledger()).filter((entry) => entry.reference === reference);
}

/** Wait until the gateway has acted on the request it held. */
async function untilAt(target: E2E, gateway: GatewayId, reference: string, ms = 5_000) {
  const until = Date.now() + ms;
  for (;;) {
    const found = (await target.control.ledger(gateway)).filter((c) => c.reference === reference);
    if (found.length > 0) return found;
    if (Date.now() > until) assert.fail(`${gateway} never made ${reference}`);
    await sleep(100);
  }
}

/** An account whose primary (Asaas: with the customer it requires) is slow beyond the gateway timeout on its creates. */
async function slowPrimary(target: E2E, gateway: GatewayId, fallback: GatewayId, settings: Record<string, unknown> = {}) {
  const key = await target.account({ primaryGateway: gateway, gatewayFallbacks: [fallback], ...settings });
  let extra: Record<string, unknown> = {};
  if (gateway === 'asaas') extra = { customerId: (await target.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId };
  // The create and its same-key replay are both held past the timeout; the lookup (a GET) is answered at once.
  await target.control.fault(gateway, 'latency', { latencyMs: HELD_MS, count: 2, method: 'POST', path: CREATE_PATH[gateway] });
  return { key, body: card(extra) };
}

describe('a slow primary: no fallback on a lookup\'s "none", settled to the primary later', () => {
  for (const gateway of ['asaas', 'pagarme', 'mercadopago'] as const) {
    test(`${gateway} holds the create past the timeout: 504 processing, the fallback holds nothing, then approved at ${gateway}, one payment`, async () => {
      const fallback: GatewayId = 'stripe';
      const { key, body } = await slowPrimary(e2e, gateway, fallback);
      const res = await e2e.call('POST', '/api/v1/charges', { key, body });
      expectError(res, 'GATEWAY_TIMEOUT', 504);
      const id = res.headers['x-rg-charge-id'] as string;
      assert.match(id, /^chg_/);
      const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      assert.equal(stored.body.data.status, 'processing');
      assert.equal((await e2e.control.ledger(fallback)).length, 0, 'the fallback was never called');

      await untilAt(e2e, gateway, id);
      await e2e.sandbox.app.reconciler.pass();
      const settled = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      assert.equal(settled.body.data.status, 'approved');
      assert.equal(settled.body.data.gateway, gateway);
      assert.deepEqual((await everywhere(e2e, id)).map((c) => `${c.gateway}:${c.amount}`), [`${gateway}:2500`], 'exactly one payment, at the primary');
    });
  }
});

describe('before the horizon a retry, a refresh or a cancel never stores failed', () => {
  test('asaas: same-key retry, ?refresh=true and cancel while asaas holds the create; then approved, one payment', async () => {
    const { key, body } = await slowPrimary(e2e, 'asaas', 'pagarme');
    const headers = { 'idempotency-key': `slow-${Date.now()}` };
    const first = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    expectError(first, 'GATEWAY_TIMEOUT', 504);
    const id = first.headers['x-rg-charge-id'] as string;

    const retry = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    expectError(retry, 'GATEWAY_TIMEOUT', 504);
    assert.equal(retry.headers['x-rg-charge-id'], id);
    const refreshed = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
    assert.notEqual(refreshed.status, 200, 'not settled yet');
    const cancelled = await e2e.call('POST', `/api/v1/charges/${id}/cancel`, { key });
    assert.notEqual(cancelled.status, 200, 'nothing to cancel yet');
    const meanwhile = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(meanwhile.body.data.status, 'processing', 'never failed while asaas may still act');

    await untilAt(e2e, 'asaas', id);
    const after = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    assert.equal(after.status, 201, after.text);
    assert.equal(after.body.data.id, id);
    assert.equal(after.body.data.status, 'approved');
    assert.deepEqual((await everywhere(e2e, id)).map((c) => c.gateway), ['asaas']);
  });
});

describe('a charge stored failed by settlement is checked again', () => {
  test('failed on an early "none" (as an earlier version stored it), then made by asaas: the reconciler moves it to approved', async () => {
    const { key, body } = await slowPrimary(e2e, 'asaas', 'pagarme');
    const res = await e2e.call('POST', '/api/v1/charges', { key, body });
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    const id = res.headers['x-rg-charge-id'] as string;
    const { store } = e2e.sandbox.app;
    // What the old rule stored: failed, "never took it", and never looked at again.
    await store.commit(async (tx) => {
      await tx.charges.update(id, { status: 'failed', errorCode: 'GATEWAY_TIMEOUT', errorMessage: 'asaas has no charge with reference: it never took it' });
      await tx.charges.setRecheck(id, true);
      await tx.charges.scheduleReconcile(id, 0, 0);
    });
    await untilAt(e2e, 'asaas', id);
    await e2e.sandbox.app.reconciler.pass();
    const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.status, 'approved', 'the gateway made it: the charge follows the gateway');
    assert.match(stored.body.data.externalId, /^pay_/);
    assert.equal(stored.body.data.attempts[0].outcome, 'success', 'the create attempt shows what became of it');
    assert.deepEqual((await everywhere(e2e, id)).map((c) => c.gateway), ['asaas']);
  });
});

describe('after the settle horizon a lookup\'s "none" is proof', () => {
  test('a tiny horizon: the create never reached asaas; a lookup after the horizon marks the charge failed', async (t) => {
    const tiny = await startE2E({ ...env, ROUTEGATE_SETTLE_HORIZON_MS: '800' });
    t.after(() => tiny.close());
    const key = await tiny.account({ primaryGateway: 'asaas', gatewayFallbacks: ['pagarme'] });
    const customerId = (await tiny.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId;
    await tiny.control.fault('asaas', 'reset', { method: 'POST', path: CREATE_PATH.asaas });
    const res = await tiny.call('POST', '/api/v1/charges', { key, body: card({ customerId }) });
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    const id = res.headers['x-rg-charge-id'] as string;
    await tiny.sandbox.app.reconciler.pass();
    assert.equal((await tiny.call('GET', `/api/v1/charges/${id}`, { key })).body.data.status, 'processing', 'still within the horizon');

    await sleep(900);
    await tiny.sandbox.app.reconciler.pass();
    const stored = await tiny.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.status, 'failed');
    assert.match(stored.body.data.attempts.at(-1).message, /settle horizon/);
    assert.equal((await everywhere(tiny, id)).length, 0, 'nothing was charged anywhere');
    assert.equal((await tiny.control.ledger('pagarme')).length, 0, 'and no fallback');
  });

  test('the horizon must exceed the gateway response timeout', async () => {
    const { loadConfig } = await import('../src/config');
    assert.throws(() => loadConfig({ ROUTEGATE_MASTER_KEY: 'd'.repeat(64), ROUTEGATE_GATEWAY_TIMEOUT_MS: '30000', ROUTEGATE_SETTLE_HORIZON_MS: '20000' }),
      /ROUTEGATE_SETTLE_HORIZON_MS \(20000\) must exceed ROUTEGATE_GATEWAY_TIMEOUT_MS/);
    assert.equal(loadConfig({ ROUTEGATE_MASTER_KEY: 'd'.repeat(64) }).settleHorizonMs, 600_000);
  });
});

describe('orphans', () => {
  test('a payment at another gateway with the charge\'s reference: recorded, payment.orphaned forwarded, refunded by default', async () => {
    const received: Array<{ type: string; data: { chargeId: string; externalId: string } }> = [];
    const backend = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        received.push(JSON.parse(text));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/hooks`;
      const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['asaas'], webhookForwardUrl: url });
      const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
      assert.equal(res.status, 201, res.text);
      const id = res.body.data.id as string;
      // As an earlier version left it: a create at asaas that did not answer, then the fallback; asaas made it after all.
      const { store } = e2e.sandbox.app;
      const sentAt = Date.now() - 1_000;
      await store.commit(async (tx) => {
        const seq = await tx.charges.nextSeq(id);
        await tx.charges.addAttempt(id, { seq, operation: 'charge', gateway: 'asaas', outcome: 'failed', ambiguous: true, durationMs: 400, idempotencyKey: `${id}-${seq}`, sentAt });
        await tx.charges.setRecheck(id, true);
        await tx.charges.scheduleReconcile(id, 0, 0);
      });
      const orphan = await madeAt('asaas', id, 2500);

      await e2e.sandbox.app.reconciler.pass();
      const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      assert.equal(stored.body.data.status, 'approved', 'the charge itself is untouched');
      assert.equal(stored.body.data.gateway, 'pagarme');
      const attempts = stored.body.data.attempts as Array<{ operation: string; gateway: string; outcome: string; externalId?: string }>;
      assert.ok(attempts.some((a) => a.operation === 'orphan' && a.gateway === 'asaas' && a.externalId === orphan), 'shown in its attempts');
      assert.ok(attempts.some((a) => a.operation === 'orphan_refund' && a.outcome === 'success'), 'refunded by RouteGate');
      const [recorded] = await store.charges.orphans(id);
      assert.equal(recorded.action, 'refunded');
      assert.deepEqual(await store.charges.findOrphan('asaas', orphan), recorded, 'a webhook about it finds the charge');
      const [atAsaas] = (await e2e.control.ledger('asaas')).filter((c) => c.reference === id);
      assert.equal(atAsaas.refundedAmount, 2500, 'the buyer got the orphan back');
      assert.equal((await e2e.control.ledger('pagarme')).filter((c) => c.reference === id)[0].refundedAmount, 0, 'the charge itself stands');

      await e2e.sandbox.app.webhooks.worker.runDue();
      const event = received.find((e) => e.type === 'payment.orphaned');
      assert.ok(event, 'payment.orphaned reached the backend');
      assert.equal(event.data.chargeId, id);
      assert.equal(event.data.externalId, orphan);

      // Asaas notifies about its payment: the event is kept on the charge it belongs to, flagged, and moves nothing.
      const me = await e2e.call('GET', '/api/v1/clients/me', { key });
      const notice = asaasEvent(`evt_orphan_${id}`, 'PAYMENT_REFUNDED', {
        object: 'payment', id: orphan, value: 25, netValue: 24.01, status: 'REFUNDED', billingType: 'CREDIT_CARD', externalReference: id,
      });
      const hook = await e2e.call('POST', `/api/v1/webhooks/asaas/${me.body.data.webhookToken}`, {
        rawBody: notice, headers: asaasHeaders(SANDBOX_CREDENTIALS.asaas.webhookSecret!),
      });
      assert.equal(hook.status, 200, hook.text);
      const events = (await e2e.call('GET', '/api/v1/events', { key })).body.data as Array<{ chargeId: string | null; flag?: string | null; gateway: string }>;
      const kept = events.find((e) => e.chargeId === id && e.gateway === 'asaas');
      assert.ok(kept, 'the orphan\'s event is stored on its charge, not dropped');
      assert.match(String(kept.flag), /orphan/);
      const after = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      assert.equal(after.body.data.status, 'approved', 'and it moves nothing on the charge');
      assert.equal(after.body.data.refundedAmount, 0);

      // Found again on the next pass: nothing recorded, refunded or announced twice.
      await store.commit((tx) => tx.charges.scheduleReconcile(id, 0, 0));
      await e2e.sandbox.app.reconciler.pass();
      assert.equal((await store.charges.orphans(id)).length, 1);
      assert.equal((await e2e.control.ledger('asaas')).filter((c) => c.reference === id)[0].refunds, 1);
    } finally {
      backend.close();
    }
  });

  test('orphanPolicy notify: recorded and announced, left at the gateway', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: ['asaas'], orphanPolicy: 'notify' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    const id = res.body.data.id as string;
    const { store } = e2e.sandbox.app;
    await store.commit(async (tx) => {
      const seq = await tx.charges.nextSeq(id);
      await tx.charges.addAttempt(id, { seq, operation: 'charge', gateway: 'asaas', outcome: 'failed', ambiguous: true, durationMs: 400, sentAt: Date.now() });
      await tx.charges.setRecheck(id, true);
      await tx.charges.scheduleReconcile(id, 0, 0);
    });
    await madeAt('asaas', id, 2500);
    await e2e.sandbox.app.reconciler.pass();
    const [recorded] = await store.charges.orphans(id);
    assert.equal(recorded.action, 'notified');
    assert.equal((await e2e.control.ledger('asaas')).filter((c) => c.reference === id)[0].refundedAmount, 0);
    const me = await e2e.call('GET', '/api/v1/clients/me', { key });
    assert.equal(me.body.data.settings.orphanPolicy, 'notify');
  });
});

/** A payment made at `gateway` with `reference` as its RouteGate reference, outside RouteGate (an orphan). */
async function madeAt(gateway: GatewayId, reference: string, amount: number): Promise<string> {
  const gatewayHttp = new GatewayHttp();
  try {
    const ctx: CallContext = {
      gateway, baseUrl: e2e.sandbox.app.config.gatewayUrls[gateway], credentials: SANDBOX_CREDENTIALS[gateway], http: gatewayHttp,
      mappings: loadMappings().get(gateway)!, idempotencyKey: `orphan-${reference}`, chargeId: reference, timeoutMs: 5_000,
    };
    const customerId = gateway === 'asaas' ? (await ADAPTERS.asaas.createCustomer(ctx, CUSTOMER)).normalized.externalId : undefined;
    const made = await ADAPTERS[gateway].createCharge(ctx, { paymentMethod: 'credit_card', amount, currency: 'BRL', capture: true, customer: CUSTOMER, customerId, creditCard: CARD, clientIp: '203.0.113.7' });
    return made.normalized.externalId;
  } finally {
    await gatewayHttp.close();
  }
}

describe('the create\'s facts are stored before its gateway call', () => {
  test('split and customer are on the row while the gateway holds the request', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const ana = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'ana@example.com', name: 'Ana', recipients: { pagarme: 'rp_AnaAnaAnaAnaAnaA' } } });
    assert.equal(ana.status, 201, ana.text);
    await e2e.control.fault('pagarme', 'latency', { latencyMs: 300, method: 'POST', path: CREATE_PATH.pagarme });
    const pending = e2e.call('POST', '/api/v1/charges', { key, body: card({ split: [{ type: 'percentage', amount: 20, coproducerEmail: 'ana@example.com' }] }) });
    await sleep(150); // the create is at pagarme now, held
    const listed = await e2e.call('GET', '/api/v1/charges?limit=1', { key });
    const [row] = listed.body.data as Array<{ status: string; split: Array<{ recipient_id: string; amount: number }> | null }>;
    assert.equal(row.status, 'processing', 'the gateway holds the request');
    assert.deepEqual(row.split?.map((s) => [s.recipient_id, s.amount]), [['rp_AnaAnaAnaAnaAnaA', 500]], 'the split is on the row before any answer');
    const res = await pending;
    assert.equal(res.status, 201, res.text);
  });
});

describe('a create settled after its answers were lost keeps what later operations need', () => {
  test('asaas: the customer RouteGate registered is on the row before the create leaves', async () => {
    const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [] });
    await e2e.control.fault('asaas', 'latency', { latencyMs: 300, method: 'POST', path: CREATE_PATH.asaas });
    const pending = e2e.call('POST', '/api/v1/charges', { key, body: card() }); // the payer inline: registered first
    let row: { status: string; customerId: string | null } | undefined;
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      const created = (await e2e.control.requests('asaas')).filter((r) => r.method === 'POST' && r.path === '/v3/payments');
      if (created.length > 0) {
        [row] = (await e2e.call('GET', '/api/v1/charges?limit=1', { key })).body.data;
        break;
      }
      await sleep(20);
    }
    const res = await pending;
    assert.equal(res.status, 201, res.text);
    assert.ok(row, 'read while asaas held the create');
    assert.equal(row.status, 'processing');
    assert.match(String(row.customerId), /^cus_/, 'the registered customer is stored before the create leaves');
    assert.equal(row.customerId, res.body.data.customerId);
  });

  test('stripe split: settled by the reconciler after the answers were lost, a refund still reverses the transfer', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe', gatewayFallbacks: [] });
    const ana = await e2e.call('POST', '/api/v1/coproducers', { key, body: { email: 'ana@example.com', name: 'Ana', recipients: { stripe: 'acct_1AnaConnect' } } });
    assert.equal(ana.status, 201, ana.text);
    await e2e.control.fault('stripe', 'lose', { count: 2, method: 'POST', path: CREATE_PATH.stripe });
    await e2e.control.fault('stripe', 'http500', { count: 1, method: 'GET' }); // the search too: unknown
    const res = await e2e.call('POST', '/api/v1/charges', { key, body: card({ split: [{ type: 'percentage', amount: 20, coproducerEmail: 'ana@example.com' }] }) });
    expectError(res, 'GATEWAY_TIMEOUT', 504);
    const id = res.headers['x-rg-charge-id'] as string;
    await e2e.control.clearFaults();
    await e2e.sandbox.app.reconciler.pass();
    const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    assert.equal(stored.body.data.status, 'approved', stored.text);
    assert.equal(stored.body.data.split?.[0]?.recipient_id, 'acct_1AnaConnect');
    const refund = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: {} });
    assert.equal(refund.status, 201, refund.text);
    const sent = (await e2e.control.requests('stripe')).find((r) => r.method === 'POST' && r.path.startsWith('/v1/refunds'));
    assert.equal((sent?.body as Record<string, string>).reverse_transfer, 'true', "the coproducer's share is reversed");
  });
});

describe('a create interrupted at a gateway that keeps idempotency keys and offers no lookup', () => {
  test('pagbank: the answers lost, 504; the reconciler leaves it processing; the same-key retry replays it and settles to the one order', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank', gatewayFallbacks: ['pagarme'] });
    const headers = { 'idempotency-key': `pagbank-${Date.now()}` };
    const body = card();
    await e2e.control.fault('pagbank', 'lose', { count: 2, method: 'POST', path: CREATE_PATH.pagbank });
    const first = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    expectError(first, 'GATEWAY_TIMEOUT', 504);
    const id = first.headers['x-rg-charge-id'] as string;
    assert.equal((await e2e.control.ledger('pagarme')).length, 0, 'no fallback');

    await e2e.sandbox.app.reconciler.pass();
    assert.equal((await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data.status, 'processing', 'nothing to look it up by');

    const retry = await e2e.call('POST', '/api/v1/charges', { key, body, headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.body.data.id, id);
    assert.equal(retry.body.data.status, 'approved');
    assert.equal(retry.body.data.gateway, 'pagbank');
    assert.equal((await e2e.control.ledger('pagbank')).filter((c) => c.reference === id).length, 1, 'the one order');
    assert.equal((await everywhere(e2e, id)).length, 1);
  });
});

describe('pagbank: a verified notification settles a create whose answers were lost', () => {
  test('the order the notification names is read at PagBank and taken because it carries the charge\'s reference', async () => {
    const key = await e2e.account({ primaryGateway: 'pagbank', gatewayFallbacks: [] });
    await e2e.control.fault('pagbank', 'lose', { count: 2, method: 'POST', path: CREATE_PATH.pagbank });
    const first = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    expectError(first, 'GATEWAY_TIMEOUT', 504);
    const id = first.headers['x-rg-charge-id'] as string;
    const [held] = (await e2e.control.ledger('pagbank')).filter((c) => c.reference === id);
    assert.ok(held, 'PagBank made the order');
    const token = SANDBOX_CREDENTIALS.pagbank.token;
    const me = await e2e.call('GET', '/api/v1/clients/me', { key });
    const hook = `/api/v1/webhooks/pagbank/${me.body.data.webhookToken}`;

    // A notification naming another order is read at PagBank and refused: its reference is not this charge's.
    const other = await e2e.call('POST', '/api/v1/charges', { key, body: card() });
    assert.equal(other.status, 201, other.text);
    const otherCharge = await call(e2e.sandbox.app.config.gatewayUrls.pagbank, 'GET', `/charges/${other.body.data.externalId}`, { headers: { authorization: `Bearer ${token}` } });
    const forged = JSON.stringify({ ...otherCharge.body, reference_id: id });
    assert.equal((await e2e.call('POST', hook, { rawBody: forged, headers: pagbankHeaders(forged, token) })).status < 500, true);
    assert.equal((await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data.status, 'processing', 'another order never settles this charge');

    // PagBank's own notification (the charge as its API answers it), signed with the account's token.
    const atPagbank = await call(e2e.sandbox.app.config.gatewayUrls.pagbank, 'GET', `/charges/${held.id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(atPagbank.status, 200, atPagbank.text);
    const notice = JSON.stringify(atPagbank.body);
    const res = await e2e.call('POST', hook, { rawBody: notice, headers: pagbankHeaders(notice, token) });
    assert.equal(res.status, 200, res.text);
    const stored = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.equal(stored.status, 'approved');
    assert.equal(stored.externalId, held.id, 'the gateway id from PagBank\'s answer to RouteGate\'s own read');
    assert.equal(stored.paidAmount, held.paidAmount);
    assert.equal((await e2e.control.ledger('pagbank')).filter((c) => c.reference === id).length, 1, 'the one order, nothing sent again');
  });
});

describe('SIGKILL while the gateway holds a split create', () => {
  test('after a restart the reconciler settles it, the row has the split, and a refund reverses the coproducer\'s share', { timeout: 60_000 }, async (t) => {
    const emulators = await startEmulators();
    const control = new EmulatorControlClient(emulators.url);
    const database = await testDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-split-crash-'));
    let child: ChildProcess | undefined;
    t.after(async () => {
      child?.kill('SIGKILL');
      await emulators.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const masterKey = 'f'.repeat(64);
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const childEnv: Record<string, string> = {
      ...database.env, PORT: String(port), HOST: '127.0.0.1', ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: masterKey, ROUTEGATE_LOG_LEVEL: 'warn',
      ROUTEGATE_REQUEST_DEADLINE_MS: '3000', ROUTEGATE_GATEWAY_TIMEOUT_MS: '2500', ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_RECONCILE_BACKOFF_MS: '0', NODE_ENV: 'test',
      ...Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators.gatewayUrl(g)])),
    };
    const setup = await openStore({ dbPath: childEnv.ROUTEGATE_DB, databaseUrl: childEnv.DATABASE_URL });
    const vault = new CredentialVault(setup, Buffer.from(masterKey, 'hex'));
    await vault.verifyMasterKey();
    const { id: accountId, apiKey: key } = await new AccountService(setup).create('Loja Split', 'split@example.com');
    await vault.save(accountId, 'stripe', SANDBOX_CREDENTIALS.stripe);
    await setup.accounts.saveSettings(accountId, { ...(await setup.accounts.settings(accountId)), primaryGateway: 'stripe', gatewayFallbacks: [], stripeRawCardData: true });
    await setup.close();

    const start = async () => {
      child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'ignore', 'inherit'] });
      const until = Date.now() + 30_000;
      for (;;) {
        if (await call(url, 'GET', '/health').then((r) => r.status === 200, () => false)) return;
        if (Date.now() > until) throw new Error('RouteGate did not start');
        await sleep(50);
      }
    };
    await start();
    const ana = await call(url, 'POST', '/api/v1/coproducers', { key, body: { email: 'ana@example.com', name: 'Ana', recipients: { stripe: 'acct_1AnaConnect' } } });
    assert.equal(ana.status, 201, ana.text);
    // Stripe holds the PaymentIntent 1.5 s, then makes it: the kill lands while it holds it.
    await control.fault('stripe', 'latency', { latencyMs: 1_500, method: 'POST', path: CREATE_PATH.stripe });
    const answer = call(url, 'POST', '/api/v1/charges', { key, body: card({ split: [{ type: 'percentage', amount: 20, coproducerEmail: 'ana@example.com' }] }) }).catch(() => undefined);
    const until = Date.now() + 5_000;
    while (!(await control.requests('stripe')).some((r) => r.method === 'POST' && r.path === CREATE_PATH.stripe) && Date.now() < until) await sleep(20);
    child!.kill('SIGKILL');
    assert.equal(await answer, undefined, 'killed before it answered');
    const [made] = await untilAtEmulator(control, 'stripe');
    // The dead process's lease (deadline + 3 s) runs out before the restarted service's start-up pass takes the charge.
    await sleep(6_500);
    await start();
    let settled: { status: string; split: Array<{ recipient_id: string }> | null; id: string } | undefined;
    const by = Date.now() + 15_000;
    while (Date.now() < by) {
      [settled] = (await call(url, 'GET', '/api/v1/charges?limit=1', { key })).body.data;
      if (settled?.status === 'approved') break;
      await sleep(100);
    }
    assert.equal(settled?.status, 'approved', 'the start-up pass settled it at stripe');
    assert.equal(settled!.id, made.reference);
    assert.equal(settled!.split?.[0]?.recipient_id, 'acct_1AnaConnect', 'the split was stored before the gateway call');
    const refund = await call(url, 'POST', `/api/v1/charges/${settled!.id}/refunds`, { key, body: {} });
    assert.equal(refund.status, 201, refund.text);
    const sent = (await control.requests('stripe')).find((r) => r.method === 'POST' && r.path.startsWith('/v1/refunds'));
    assert.equal((sent?.body as Record<string, string>).reverse_transfer, 'true', "the coproducer's share is reversed");
  });
});

async function untilAtEmulator(control: EmulatorControlClient, gateway: GatewayId) {
  const until = Date.now() + 5_000;
  for (;;) {
    const found = (await control.ledger(gateway)).filter((c) => c.reference?.startsWith('chg_'));
    if (found.length > 0) return found;
    if (Date.now() > until) assert.fail(`${gateway} never made the charge`);
    await sleep(100);
  }
}
