import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startEmulators, type EmulatorServer } from '../src/sandbox/emulators';
import { EmulatorControlClient } from '../src/sandbox/control-client';
import { openStore } from '../src/store/open';
import type { Store } from '../src/store';
import { AccountService } from '../src/accounts/service';
import { CredentialVault } from '../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { call, expectError, type Reply } from './helper';
import { CARD, CUSTOMER } from './helpers/e2e';
import { freshPgDatabase, type FreshPgDatabase } from './helpers/pg';
import { TEST_REDIS_URL, deleteKeysUnder, freshPrefix, requireRedis } from './helpers/redis';
import { rgSignatureValid } from './helpers/webhook-receiver';
import { unlessAvailableAll } from './helpers/services';
import { freePort, killHard, startRouteGate, type RouteGateProcess } from './helpers/routegate-processes';
import { RecordingBackend } from './helpers/recording-backend';

// Issue 17 item 4: three `node dist/src/server.js` processes on one PostgreSQL database and one Redis, over real
// HTTP, against the five emulators (in this process). Each property is checked against what the gateway
// emulators and the merchant backend saw, not against what RouteGate says about itself.

const MASTER_KEY = 'c'.repeat(64);
const WEBHOOK_TIMEOUT_MS = 1_500; // a delivery's lease is 2 x this + 1 s (Forwarder.leaseMs): 4 s
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

test('three RouteGate processes on one PostgreSQL and one Redis', { skip: unlessAvailableAll('postgres', 'redis'), timeout: 180_000 }, async (t) => {
  const redis = await requireRedis(t);
  if (!redis) return;

  // Everything started here is stopped in t.after, whatever fails.
  const processes: RouteGateProcess[] = [];
  const prefix = freshPrefix();
  let database: FreshPgDatabase | undefined;
  let emulators: EmulatorServer | undefined;
  let store: Store | undefined;
  let backend: RecordingBackend | undefined;
  t.after(async () => {
    await Promise.all(processes.map(killHard));
    await backend?.stop();
    await emulators?.close();
    await store?.close();
    await database?.drop();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });
  database = await freshPgDatabase();
  emulators = await startEmulators();
  const control = new EmulatorControlClient(emulators.url);
  // No gateway retries its webhooks within the test (one real minute per minute): each arrives once.
  await control.webhookTimeScale(1);

  // The account and its credentials are made in the database before the processes start, as the CLI would.
  store = await openStore({ dbPath: '', databaseUrl: database.url });
  const db = store;
  const vault = new CredentialVault(db, Buffer.from(MASTER_KEY, 'hex'));
  await vault.verifyMasterKey();
  backend = new RecordingBackend(async (eventId) => {
    const [row] = await db.query('SELECT lease_owner FROM deliveries WHERE event_id = ?', [eventId]);
    const owner = row?.lease_owner;
    return typeof owner === 'string' ? Number(owner.split(':')[0]) : undefined;
  });
  await backend.start();
  const hooks: RecordingBackend = backend;
  const merchant = await new AccountService(db, Buffer.from(MASTER_KEY, 'hex')).create('Loja Escala', 'escala@example.com');
  for (const g of ['pagarme', 'mercadopago'] as const) await vault.save(merchant.id, g, SANDBOX_CREDENTIALS[g]);
  await db.accounts.saveSettings(merchant.id, {
    ...(await db.accounts.settings(merchant.id)), primaryGateway: 'pagarme', gatewayFallbacks: [], webhookForwardUrl: backend.url,
  });
  const key = merchant.apiKey;

  const gatewayUrls = Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators!.gatewayUrl(g)]));
  const shared = {
    DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, ROUTEGATE_REDIS_PREFIX: prefix, ROUTEGATE_MASTER_KEY: MASTER_KEY,
    ROUTEGATE_LOG_LEVEL: 'warn', NODE_ENV: 'test', ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ...gatewayUrls,
  };
  // A, B, C: charges, refunds and webhooks (the outbox worker every 100 ms, retries from 200 ms), ROUTEGATE_PUBLIC_URL
  // naming A, as it would name the balancer. D, E, F: a per-key limit of 10 a minute, no worker, for the rate limit.
  // All six start at once (the setup store has applied the migrations).
  const portA = await freePort();
  const main = {
    ...shared, ROUTEGATE_RATE_LIMIT: '1000000', ROUTEGATE_PUBLIC_URL: `http://127.0.0.1:${portA}`, ROUTEGATE_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    ROUTEGATE_WEBHOOK_RETRY_BASE_MS: '200', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '100',
  };
  const limited = { ...shared, ROUTEGATE_RATE_LIMIT: '10', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '0' };
  const started = await Promise.allSettled([
    startRouteGate('A', main, portA), startRouteGate('B', main), startRouteGate('C', main),
    startRouteGate('D', limited), startRouteGate('E', limited), startRouteGate('F', limited),
  ]);
  for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  const [a, b, c, d, e, f] = processes;
  const trio = [a, b, c];

  await t.test('1. 50 concurrent creates with one Idempotency-Key spread over the three processes make one charge at the gateway', async () => {
    const body = { paymentMethod: 'credit_card', amount: 4321, customer: CUSTOMER, creditCard: CARD };
    const headers = { 'idempotency-key': 'one-key-three-processes' };
    await control.clearRequests();
    // Pagar.me holds the create 500 ms, so the other 49 arrive while the first is in progress.
    await control.fault('pagarme', 'latency', { count: 50, latencyMs: 500, method: 'POST', path: '/core/v5/orders' });
    const answers = await Promise.all(range(50).map((i) => call(trio[i % 3].url, 'POST', '/api/v1/charges', { key, body, headers })));
    await control.clearFaults();

    const creates = (await control.requests('pagarme')).filter((r) => r.method === 'POST' && r.path.startsWith('/core/v5/orders'));
    assert.equal(creates.length, 1, 'one create reached Pagar.me');
    const first = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    assert.equal(first.length, 1, `one request made the charge: ${answers.map((r) => r.status).join(' ')}`);
    const charge = first[0].body.data;
    let conflicts = 0;
    for (const r of answers) {
      if (r.status === 201) {
        assert.equal(r.body.data.id, charge.id);
        if (r !== first[0]) {
          assert.equal(r.headers['idempotent-replayed'], 'true');
          assert.equal(r.text, first[0].text, 'a replay is the stored answer');
        }
      } else {
        expectError(r, 'IDEMPOTENCY_CONFLICT', 409);
        assert.match(r.body.error.message, /still being processed; retry shortly/);
        conflicts += 1;
      }
    }
    assert.ok(conflicts > 0, 'requests overlapped the first one (else this proves nothing)');
    assert.equal(charge.status, 'approved');
    assert.deepEqual((await control.ledger('pagarme')).filter((l) => l.reference === charge.id).map((l) => l.amount), [4321]);
    const [{ n }] = await db.query('SELECT COUNT(*) AS n FROM charges WHERE account_id = ?', [merchant.id]);
    assert.equal(Number(n), 1, 'one charge stored');

    // Afterwards every process answers a retry with the stored answer, without calling the gateway.
    for (const p of trio) {
      const retry = await call(p.url, 'POST', '/api/v1/charges', { key, body, headers });
      assert.equal(retry.status, 201, `${p.name}: ${retry.text}`);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.text, first[0].text);
    }
    assert.equal((await control.requests('pagarme')).filter((r) => r.method === 'POST' && r.path.startsWith('/core/v5/orders')).length, 1);
  });

  await t.test('4. 20 concurrent partial refunds of one charge spread over the three processes are each applied once', async (st) => {
    const created = await call(a.url, 'POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 10_000, customer: CUSTOMER, creditCard: CARD } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    await control.clearRequests();
    // Each refund takes Pagar.me 100 ms, so the 20 queue on the charge's lock from three processes.
    await control.fault('pagarme', 'latency', { count: 100, latencyMs: 100, method: 'DELETE' });
    // 1..20 cents: Pagar.me documents no minimum for a partial cancel of a paid charge (DELETE /charges/{id} with amount).
    const amounts = range(20).map((i) => i + 1);
    const refund = (i: number, p: RouteGateProcess) => call(p.url, 'POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: amounts[i] }, headers: { 'idempotency-key': `refund-${i}` } });
    let busy = 0;
    const finals = await Promise.all(amounts.map(async (_, i) => {
      // A 409 CHARGE_BUSY ran nothing: retried with the same key (on the next process) until applied.
      for (let round = 0; ; round++) {
        const res = await refund(i, trio[(i + round) % 3]);
        if (res.status !== 409 || res.body?.error?.code !== 'CHARGE_BUSY' || round === 10) return res;
        busy += 1;
      }
    }));
    await control.clearFaults();
    for (const [i, res] of finals.entries()) {
      assert.equal(res.status, 201, `refund ${i}: ${res.text}`);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      assert.equal(res.body.data.refund.amount, amounts[i]);
    }
    const sum = amounts.reduce((s, x) => s + x, 0);
    const charge = await db.charges.getById(id);
    assert.equal(charge!.refundedAmount, sum, 'refundedAmount is the sum of the 20 refunds');
    assert.equal(charge!.status, 'approved');
    const calls = (await control.requests('pagarme')).filter((r) => r.method === 'DELETE');
    assert.equal(calls.length, 20, 'Pagar.me saw 20 refund calls');
    assert.equal(new Set(calls.map((r) => r.path)).size, 1, 'all on the one charge');
    assert.equal(new Set(calls.map((r) => r.headers['idempotency-key'])).size, 20, 'each under its own operation key');
    assert.deepEqual(calls.map((r) => (r.body as { amount: number }).amount).sort((x, y) => x - y), amounts);
    const atGateway = (await control.ledger('pagarme')).find((l) => l.reference === id)!;
    assert.equal(atGateway.refunds, 20);
    assert.equal(atGateway.refundedAmount, sum);
    const refunds = (await db.charges.attempts(id)).filter((x) => x.operation === 'refund');
    assert.deepEqual(refunds.map((x) => x.outcome), amounts.map(() => 'success'));
    assert.deepEqual(refunds.map((x) => x.amount).sort((x, y) => x! - y!), amounts);

    // Retried once more, each key answers its refund again; nothing reaches the gateway.
    const again = await Promise.all(amounts.map((_, i) => refund(i, trio[(i + 1) % 3])));
    for (const [i, res] of again.entries()) {
      assert.equal(res.status, 201);
      assert.equal(res.headers['idempotent-replayed'], 'true');
      assert.equal(res.text, finals[i].text);
    }
    assert.equal((await control.requests('pagarme')).filter((r) => r.method === 'DELETE').length, 20);
    st.diagnostic(`refunds answered 409 CHARGE_BUSY and retried: ${busy}`);
  });

  await t.test('3. every webhook event reaches the backend once per attempt, with one process killed by SIGKILL mid-delivery', async (st) => {
    const token = (await db.accounts.get(merchant.id))!.webhookToken;
    // The gateways notify two of the processes; all three processes' outbox workers deliver.
    await control.registerWebhook('pagarme', { url: `${b.url}/api/v1/webhooks/pagarme/${token}` });
    await control.registerWebhook('mercadopago', { url: `${a.url}/api/v1/webhooks/mercadopago/${token}` });
    const pix = (gateway: string) => ({ gateway, paymentMethod: 'pix', amount: 1990, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } });
    const charges: Array<{ gateway: 'pagarme' | 'mercadopago'; externalId: string }> = [];
    for (const i of range(24)) {
      const gateway = i % 2 ? 'mercadopago' : 'pagarme';
      const res = await call(trio[i % 3].url, 'POST', '/api/v1/charges', { key, body: pix(gateway) });
      assert.equal(res.status, 201, res.text);
      charges.push({ gateway, externalId: res.body.data.externalId });
    }
    const payAll = (list: typeof charges) => Promise.all(list.map((x) => control.pay(x.gateway, x.externalId)));

    // The first half paid: wait until C has delivered twice (its later kill then also lands between attempts of
    // events it finished), then hold C's next delivery open and kill C while the backend has it.
    await payAll(charges.slice(0, 12));
    const delivered = (pid: number) => hooks.received.filter((r) => r.senderPid === pid && r.answered === 200).length;
    await until('process C to deliver twice', () => delivered(c.pid) >= 2);
    hooks.holdFrom = c.pid;
    await payAll(charges.slice(12));
    const victim = await until('a delivery by C in flight', () => hooks.received.find((r) => r.held));
    await killHard(c);
    await until('the backend to see the connection drop', () => victim.severed);

    // Every gateway webhook has been received, and every stored event's delivery is settled.
    await until('every gateway webhook to be received', async () => (await control.webhooks()).every((w) => w.attempts.length > 0));
    await until('every delivery to be delivered', async () => {
      const [{ n }] = await db.query("SELECT COUNT(*) AS n FROM deliveries WHERE status <> 'delivered'");
      return Number(n) === 0;
    }, 30_000);

    const events = await db.query('SELECT id FROM webhook_events WHERE account_id = ? ORDER BY id', [merchant.id]);
    const ids = events.map((r) => String(r.id));
    const gatewayWebhooks = await control.webhooks();
    // Each forwarded notification was stored once (the receiver answered 502: the backend refused attempt 1);
    // the others were acknowledged (200) and dropped (order.created, a pending payment).
    assert.equal(gatewayWebhooks.filter((w) => w.attempts[0].status === 502).length, ids.length);
    assert.ok(gatewayWebhooks.every((w) => w.attempts.length === 1 && [200, 502].includes(w.attempts[0].status!)));
    assert.ok(ids.length >= 36, `events stored: ${ids.length}`);
    assert.deepEqual([...new Set(hooks.received.map((r) => r.eventId))].sort(), ids, 'the backend saw every event, and nothing else');

    for (const r of hooks.received) {
      assert.ok(rgSignatureValid(r.headers['x-rg-signature'], r.raw, merchant.webhookSigningSecret!), 'X-RG-Signature verifies');
      new Webhook(merchant.webhookSigningSecret!).verify(r.raw, r.headers as Record<string, string>);
      assert.equal(JSON.parse(r.raw).id, r.eventId);
    }
    // Per event, against the outbox's attempt records: one recorded attempt per request the backend got, except
    // the attempt C had in flight when it died, which was sent again, under the same attempt number, by another
    // process once its lease ran out. Taken (accepted or held) by the backend: once per event, twice for that one.
    for (const id of ids) {
      const [delivery, ...more] = await db.deliveries.forEvent(id);
      assert.equal(more.length, 0);
      assert.equal(delivery.status, 'delivered');
      const records = await db.deliveries.attempts(delivery.id);
      assert.deepEqual(records.map((x) => [x.attempt, x.outcome, x.statusCode]), [[1, 'failed', 503], [2, 'delivered', 200]], id);
      const got = hooks.received.filter((r) => r.eventId === id);
      const taken = got.filter((r) => r.attempt > 1);
      assert.deepEqual(got.filter((r) => r.attempt === 1).map((r) => r.answered), [503], id);
      if (id === victim.eventId) {
        assert.equal(taken.length, 2, 'the interrupted attempt was repeated once');
        assert.deepEqual(taken.map((r) => r.attempt), [2, 2], 'under the same attempt number (one record)');
        assert.deepEqual([taken[0].senderPid, taken[0].severed, taken[0].answered], [c.pid, true, undefined]);
        assert.ok(taken[1].senderPid !== c.pid && [a.pid, b.pid].includes(taken[1].senderPid!));
        assert.equal(taken[1].answered, 200);
      } else {
        assert.deepEqual(taken.map((r) => [r.attempt, r.answered]), [[2, 200]], `${id} delivered exactly once`);
      }
    }
    // The deliveries went through all three processes.
    for (const p of trio) assert.ok(delivered(p.pid) >= 1, `${p.name} delivered`);
    st.diagnostic(`events ${ids.length}; accepted per process A ${delivered(a.pid)}, B ${delivered(b.pid)}, C ${delivered(c.pid)} before the kill`);
  });

  await t.test('2. the per-key rate limit (10 a minute) is counted across three processes', async () => {
    const accounts = new AccountService(db, Buffer.from(MASTER_KEY, 'hex'));
    const limitedTrio = [d, e, f];
    // From several client addresses, so the per-IP limit (also 10) is never what refuses.
    const me = (p: RouteGateProcess, apiKey: string, n: number) => call(p.url, 'GET', '/api/v1/clients/me', { key: apiKey, localAddress: `127.0.0.${20 + (n % 6)}` });

    // 30 at once over the three: exactly 10 go through (counted per process, up to 30 would).
    const burst = await accounts.create('Loja Rajada', 'rajada@example.com');
    const answers: Reply[] = await Promise.all(range(30).map((i) => me(limitedTrio[i % 3], burst.apiKey, i)));
    assert.equal(answers.filter((r) => r.status === 200).length, 10, answers.map((r) => r.status).join(' '));
    for (const r of answers.filter((x) => x.status !== 200)) expectError(r, 'RATE_LIMIT_EXCEEDED', 429);

    // One at a time, round-robin: ten answered, then the 11th is refused on every process, in the SPEC envelope.
    const steady = await accounts.create('Loja Passo', 'passo@example.com');
    for (const i of range(10)) {
      const r = await me(limitedTrio[i % 3], steady.apiKey, i);
      assert.equal(r.status, 200, `request ${i + 1}: ${r.text}`);
      assert.equal(r.headers['x-ratelimit-remaining'], String(9 - i), 'one count for the three');
    }
    for (const [i, p] of limitedTrio.entries()) {
      const refused = await me(p, steady.apiKey, i);
      expectError(refused, 'RATE_LIMIT_EXCEEDED', 429);
      assert.match(refused.body.error.message, /^Rate limit of 10 requests per minute exceeded; retry in \d+ seconds$/);
      assert.equal(refused.headers['x-ratelimit-limit'], '10');
    }
    assert.equal(await redis.get(`${prefix}rate-limit:key:${steady.id}`), '13');
  });
});
