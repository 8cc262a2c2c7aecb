import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WebhookEventRecord, WebhookEventsRepository } from '../src/store/webhook-events';
import type { DeliveriesRepository, DeliveryAttemptRecord } from '../src/store/deliveries';
import type { SigningSecretsRepository } from '../src/store/signing-secrets';
import { PgWebhookEventsRepository } from '../src/store/pg/webhook-events';
import { PgDeliveriesRepository } from '../src/store/pg/deliveries';
import { PgSigningSecretsRepository } from '../src/store/pg/signing-secrets';
import { seal } from '../src/lib/crypto';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import type { SameAsync } from './helpers/async-contract';

// Issue 17: the PostgreSQL webhook events, outbox and signing secrets keep the SQLite contract, and claimDue
// hands each due delivery to exactly one of several processes.

const contracts: [
  SameAsync<PgWebhookEventsRepository, WebhookEventsRepository>,
  SameAsync<Omit<PgDeliveriesRepository, 'claimDue'>, DeliveriesRepository>,
  SameAsync<PgSigningSecretsRepository, SigningSecretsRepository>,
] = [true, true, true];

let db: ScratchDatabase;
let events: PgWebhookEventsRepository;
let deliveries: PgDeliveriesRepository;
let secrets: PgSigningSecretsRepository;

before(async () => {
  db = await scratchPgDatabase();
  events = new PgWebhookEventsRepository(db.pool);
  deliveries = new PgDeliveriesRepository(db.pool);
  secrets = new PgSigningSecretsRepository(db.pool);
});

after(async () => {
  await db?.drop();
});

async function account(): Promise<string> {
  const id = `acc_${randomUUID()}`;
  await db.pool.query("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES ($1, 'Loja', 'l@example.com', $2, 'now', 'now')", [id, `wh_${id}`]);
  return id;
}

function event(accountId: string, over: Partial<WebhookEventRecord> = {}): WebhookEventRecord {
  return {
    id: `evt_${randomUUID()}`, accountId, gateway: 'gw_one', gatewayEventId: `ge_${randomUUID()}`, type: 'charge.paid', chargeId: null,
    payload: '{"type":"charge.paid"}', createdAt: new Date().toISOString(), verified: true, ...over,
  };
}

async function delivery(accountId: string, over: { nextAttemptAt?: number; giveUpAt?: number } = {}, lease?: { owner: string; expiresAt: number }): Promise<string> {
  const e = event(accountId);
  assert.equal(await events.insert(e), true);
  const id = `dlv_${randomUUID()}`;
  await deliveries.insert({ id, eventId: e.id, accountId, nextAttemptAt: over.nextAttemptAt ?? 1000, giveUpAt: over.giveUpAt ?? 9_000_000 }, lease);
  return id;
}

const attempt = (n: number, over: Partial<DeliveryAttemptRecord> = {}): DeliveryAttemptRecord => ({
  attempt: n, outcome: 'failed', statusCode: 500, durationMs: 12, error: 'HTTP 500', createdAt: new Date().toISOString(), ...over,
});

test('the repositories have the SQLite public methods, each async (checked by the compiler)', () => {
  assert.deepEqual(contracts, [true, true, true]);
});

test('webhook events: one per (account, gateway, gateway event id); a duplicate writes nothing', async () => {
  const acc = await account();
  const other = await account();
  const e = event(acc, { verified: false, chargeId: 'ch_1' });
  assert.equal(await events.insert(e), true);
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, payload: '{"changed":true}' }), false, 'same gateway event again');
  assert.deepEqual(await events.findByGatewayId(acc, 'gw_one', e.gatewayEventId), e, 'the first one kept, as it was');
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, gateway: 'gw_two' }), true, 'same id at another gateway');
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, accountId: other }), true, 'same id for another account');
  const { rows } = await db.pool.query('SELECT COUNT(*) AS n FROM webhook_events WHERE gateway_event_id = $1', [e.gatewayEventId]);
  assert.equal(rows[0].n, 3);
});

test('webhook events: the same gateway event stored at once by three pools is stored once', async () => {
  const acc = await account();
  const pools = [db.newPool(), db.newPool(), db.newPool()];
  try {
    for (let round = 0; round < 5; round++) {
      const e = event(acc);
      const results = await Promise.all(pools.map((pool) => new PgWebhookEventsRepository(pool).insert({ ...e, id: `evt_${randomUUID()}` })));
      assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results}`);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('webhook events: verified true, false and unknown (null) come back as stored; get is scoped to the account', async () => {
  const acc = await account();
  const other = await account();
  for (const verified of [true, false, null]) {
    const e = event(acc, { verified });
    await events.insert(e);
    assert.deepEqual(await events.get(acc, e.id), e);
    assert.equal(await events.get(other, e.id), undefined);
  }
  assert.equal(await events.findByGatewayId(acc, 'gw_one', 'ge_unknown'), undefined);
});

test('webhook events: list is newest first, by id on equal times, and pages with `after`', async () => {
  const acc = await account();
  const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();
  const made = [
    event(acc, { id: 'evt_a', createdAt: at(1) }), event(acc, { id: 'evt_c', createdAt: at(2) }), event(acc, { id: 'evt_b', createdAt: at(2) }),
    event(acc, { id: 'evt_B', createdAt: at(2) }), event(acc, { id: 'evt_d', createdAt: at(3) }),
  ];
  for (const e of made) await events.insert(e);
  const expected = ['evt_d', 'evt_c', 'evt_b', 'evt_B', 'evt_a'];
  assert.deepEqual((await events.list(acc, 10)).map((e) => e.id), expected);
  const pages: string[][] = [];
  let after: WebhookEventRecord | undefined;
  for (;;) {
    const page = await events.list(acc, 2, after && { createdAt: after.createdAt, id: after.id });
    if (page.length === 0) break;
    pages.push(page.map((e) => e.id));
    after = page[page.length - 1];
  }
  assert.deepEqual(pages, [['evt_d', 'evt_c'], ['evt_b', 'evt_B'], ['evt_a']]);
  assert.deepEqual(await events.list(await account(), 10), []);
});

test("webhook events: findCharge by the gateway's id (newest), else by RouteGate's id at that gateway", async () => {
  const acc = await account();
  const charge = (id: string, gateway: string, externalId: string | null, createdAt: string) => db.pool.query(
    `INSERT INTO charges (id, account_id, gateway, external_id, payment_method, status, amount, currency, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'pix', 'pending', 1000, 'BRL', $5, $5)`, [id, acc, gateway, externalId, createdAt]);
  await charge('ch_old', 'gw_one', 'ext_1', '2030-01-01T00:00:00.000Z');
  await charge('ch_new', 'gw_one', 'ext_1', '2030-01-02T00:00:00.000Z');
  await charge('ch_ref', 'gw_one', null, '2030-01-03T00:00:00.000Z');
  await charge('ch_two', 'gw_two', 'ext_2', '2030-01-03T00:00:00.000Z');
  assert.deepEqual(await events.findCharge('gw_one', 'ext_1', 'ch_ref'), { id: 'ch_new', accountId: acc });
  assert.deepEqual(await events.findCharge('gw_one', 'ext_unknown', 'ch_ref'), { id: 'ch_ref', accountId: acc });
  assert.deepEqual(await events.findCharge('gw_one', undefined, 'ch_ref'), { id: 'ch_ref', accountId: acc });
  assert.equal(await events.findCharge('gw_one', 'ext_2', 'ch_two'), undefined, "another gateway's charge is not this event's");
  assert.equal(await events.findCharge('gw_one', undefined, undefined), undefined);
});

test('deliveries: insert, get, forEvent; attempts recorded by finishAttempt, in order', async () => {
  const acc = await account();
  const id = await delivery(acc, { nextAttemptAt: 5000, giveUpAt: 259_200_000 });
  const d = (await deliveries.get(id))!;
  assert.deepEqual({ ...d, createdAt: '', updatedAt: '' }, {
    id, eventId: d.eventId, accountId: acc, status: 'pending', attempts: 0, nextAttemptAt: 5000, giveUpAt: 259_200_000, createdAt: '', updatedAt: '',
  });
  assert.equal(typeof d.nextAttemptAt, 'number');
  assert.deepEqual((await deliveries.forEvent(d.eventId)).map((x) => x.id), [id]);
  assert.equal(await deliveries.get('dlv_nope'), undefined);

  assert.equal(await deliveries.claim(id, 'w1', 5000, 30_000), true);
  const first = attempt(1, { statusCode: null, error: 'ECONNREFUSED' });
  assert.equal(await deliveries.finishAttempt(id, 'w1', first, { status: 'pending', nextAttemptAt: 65_000 }), true);
  assert.equal(await deliveries.claim(id, 'w1', 65_000, 30_000), true);
  const second = attempt(2, { outcome: 'delivered', statusCode: 200, error: null, durationMs: 40 });
  assert.equal(await deliveries.finishAttempt(id, 'w1', second, { status: 'delivered', nextAttemptAt: 65_000 }), true);
  assert.deepEqual(await deliveries.attempts(id), [first, second]);
  const done = (await deliveries.get(id))!;
  assert.equal(done.status, 'delivered');
  assert.equal(done.attempts, 2);
  assert.deepEqual(await deliveries.attempts('dlv_nope'), []);
});

test('deliveries: a lease keeps others out until it expires; only its holder finishes or releases it', async () => {
  const acc = await account();
  const id = await delivery(acc, { nextAttemptAt: 1000 }, { owner: 'creator', expiresAt: 31_000 });
  assert.equal(await deliveries.claim(id, 'other', 30_999, 30_000), false, 'held by its creator');
  assert.equal(await deliveries.finishAttempt(id, 'other', attempt(1), { status: 'pending', nextAttemptAt: 90_000 }), false);
  assert.deepEqual(await deliveries.attempts(id), [], 'no attempt recorded for a non-holder');
  await deliveries.release(id, 'other');
  assert.equal(await deliveries.claim(id, 'other', 30_999, 30_000), false, "a non-holder's release changes nothing");

  assert.equal(await deliveries.claim(id, 'other', 31_000, 30_000), true, 'the lease expired');
  assert.equal(await deliveries.finishAttempt(id, 'creator', attempt(1), { status: 'pending', nextAttemptAt: 90_000 }), false, 'the creator lost it');
  assert.equal(await deliveries.claim(id, 'third', 60_999, 30_000), false, "the new holder's lease runs to 61 000");

  await deliveries.release(id, 'other');
  assert.equal(await deliveries.claim(id, 'third', 31_001, 30_000), true, 'released: free at once');
  assert.equal(await deliveries.finishAttempt(id, 'third', attempt(1), { status: 'failed', nextAttemptAt: 90_000 }), true);
  assert.equal(await deliveries.claim(id, 'fourth', 999_999, 30_000), false, 'no longer pending');
  assert.equal((await deliveries.attempts(id)).length, 1);
});

test('deliveries: due lists pending, due, unheld ones by next attempt; backlog counts pending ones', async () => {
  await db.pool.query('DELETE FROM delivery_attempts');
  await db.pool.query('DELETE FROM deliveries');
  const acc = await account();
  const late = await delivery(acc, { nextAttemptAt: 3000 });
  const early = await delivery(acc, { nextAttemptAt: 1000 });
  const held = await delivery(acc, { nextAttemptAt: 500 }, { owner: 'w', expiresAt: 10_000 });
  const expired = await delivery(acc, { nextAttemptAt: 2000 }, { owner: 'w', expiresAt: 4000 });
  await delivery(acc, { nextAttemptAt: 6000 });
  const finished = await delivery(acc, { nextAttemptAt: 100 });
  await deliveries.claim(finished, 'w', 100, 1000);
  await deliveries.finishAttempt(finished, 'w', attempt(1, { outcome: 'delivered' }), { status: 'delivered', nextAttemptAt: 100 });
  assert.deepEqual(await deliveries.due(5000, 10), [early, expired, late]);
  assert.deepEqual(await deliveries.due(5000, 2), [early, expired]);
  assert.deepEqual(await deliveries.due(999, 10), []);
  assert.equal(await deliveries.backlog(), 5);
  assert.ok(held);
});

test('claimDue takes the lease on due deliveries in due order and leaves held, future and finished ones', async () => {
  await db.pool.query('DELETE FROM delivery_attempts');
  await db.pool.query('DELETE FROM deliveries');
  const acc = await account();
  const late = await delivery(acc, { nextAttemptAt: 3000 });
  const early = await delivery(acc, { nextAttemptAt: 1000 });
  const held = await delivery(acc, { nextAttemptAt: 500 }, { owner: 'w', expiresAt: 10_000 });
  const expired = await delivery(acc, { nextAttemptAt: 2000 }, { owner: 'w', expiresAt: 4000 });
  const future = await delivery(acc, { nextAttemptAt: 6000 });
  const finished = await delivery(acc, { nextAttemptAt: 100 });
  await deliveries.claim(finished, 'w', 100, 1000);
  await deliveries.finishAttempt(finished, 'w', attempt(1, { outcome: 'delivered' }), { status: 'delivered', nextAttemptAt: 100 });

  assert.deepEqual(await deliveries.claimDue('me', 5000, 30_000, 2), [early, expired]);
  assert.deepEqual(await deliveries.claimDue('me', 5000, 30_000, 10), [late]);
  assert.deepEqual(await deliveries.claimDue('you', 5000, 30_000, 10), [], 'every due one is held');
  assert.equal(await deliveries.claim(late, 'you', 5000, 30_000), false, 'claimDue took the lease');
  assert.equal(await deliveries.finishAttempt(early, 'me', attempt(1), { status: 'pending', nextAttemptAt: 7000 }), true, 'claimDue made me the holder');
  // At 35 000 the leases taken at 5 000 have run out, and so has w's.
  assert.deepEqual(await deliveries.claimDue('you', 35_000, 30_000, 10), [held, expired, late, future, early]);
  const { rows } = await db.pool.query('SELECT DISTINCT lease_expires_at FROM deliveries WHERE lease_owner = $1', ['you']);
  assert.deepEqual(rows, [{ lease_expires_at: 65_000 }]);
});

test('claimDue from three pools at once: disjoint sets that cover every due delivery', async () => {
  await db.pool.query('DELETE FROM delivery_attempts');
  await db.pool.query('DELETE FROM deliveries');
  const acc = await account();
  const due = new Set<string>();
  for (let i = 0; i < 150; i++) due.add(await delivery(acc, { nextAttemptAt: 1000 + (i % 17) }));
  const notDue = await delivery(acc, { nextAttemptAt: 99_999 });
  const pools = [db.newPool({ max: 2 }), db.newPool({ max: 2 }), db.newPool({ max: 2 })];
  try {
    const workers = pools.map((pool) => new PgDeliveriesRepository(pool));
    // Warm each pool's connections so the claims overlap in time rather than queue behind connecting.
    await Promise.all(pools.map((pool) => Promise.all([pool.query('SELECT 1'), pool.query('SELECT 1')])));
    const claimed = workers.map(() => [] as string[]);
    await Promise.all(workers.map(async (w, i) => {
      for (;;) {
        const batch = await w.claimDue(`worker-${i}`, 5000, 60_000, 7);
        assert.ok(batch.length <= 7);
        if (batch.length === 0) return;
        claimed[i].push(...batch);
      }
    }));
    const all = claimed.flat();
    assert.equal(new Set(all).size, all.length, 'no delivery claimed twice');
    assert.deepEqual(new Set(all), due, 'every due delivery claimed');
    assert.ok(!all.includes(notDue));
    assert.ok(claimed.filter((c) => c.length > 0).length >= 2, `the work was shared: ${claimed.map((c) => c.length)}`);
    const { rows } = await db.pool.query('SELECT lease_owner, COUNT(*) AS n FROM deliveries WHERE id = ANY($1) GROUP BY lease_owner ORDER BY lease_owner', [all]);
    assert.deepEqual(rows, claimed.map((c, i) => ({ lease_owner: `worker-${i}`, n: c.length })).filter((r) => r.n > 0));
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('claim of one delivery by three pools at once: exactly one holder', async () => {
  const acc = await account();
  const pools = [db.newPool(), db.newPool(), db.newPool()];
  try {
    for (let round = 0; round < 10; round++) {
      const id = await delivery(acc, { nextAttemptAt: 1000 });
      const wins = await Promise.all(pools.map((pool, i) => new PgDeliveriesRepository(pool).claim(id, `w${i}`, 5000, 30_000)));
      assert.equal(wins.filter(Boolean).length, 1, `round ${round}: ${wins}`);
      const { rows } = await db.pool.query('SELECT lease_owner FROM deliveries WHERE id = $1', [id]);
      assert.equal(rows[0].lease_owner, `w${wins.indexOf(true)}`);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('claimDue skips a delivery another process has locked instead of waiting for it', async () => {
  await db.pool.query('DELETE FROM delivery_attempts');
  await db.pool.query('DELETE FROM deliveries');
  const acc = await account();
  const locked = await delivery(acc, { nextAttemptAt: 1000 });
  const free = await delivery(acc, { nextAttemptAt: 2000 });
  const other = db.newPool({ max: 1 });
  const client = await other.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT id FROM deliveries WHERE id = $1 FOR UPDATE', [locked]);
    const timedOut = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 2000).unref());
    assert.deepEqual(await Promise.race([deliveries.claimDue('me', 5000, 30_000, 10), timedOut]), [free]);
  } finally {
    await client.query('ROLLBACK');
    client.release();
    await other.end();
  }
  assert.deepEqual(await deliveries.claimDue('me', 5000, 30_000, 10), [locked], 'taken once the other let go');
});

test('signing secrets: sealed bytes as stored; active ones newest first; expireAll brings expiries forward only', async () => {
  const acc = await account();
  const other = await account();
  const key = Buffer.alloc(32, 9);
  const secret = (id: string, createdAt: string) => ({ id, accountId: acc, createdAt, ...seal(key, `whsec_${id}`, `${acc}:${id}`) });
  const s1 = secret('ss_1', '2030-01-01T00:00:00.000Z');
  const s2 = secret('ss_2', '2030-01-02T00:00:00.000Z');
  await secrets.insert(s1);
  await secrets.insert(s2);
  await secrets.insert({ ...secret('ss_other', '2030-01-03T00:00:00.000Z'), accountId: other });
  const active = await secrets.active(acc, 1000);
  assert.deepEqual(active, [{ ...s2, expiresAt: null }, { ...s1, expiresAt: null }]);
  assert.ok(Buffer.isBuffer(active[0].ciphertext));

  await secrets.expireAll(acc, 5000); // a rotation: both keep signing until 5 000
  await secrets.insert(secret('ss_3', '2030-01-04T00:00:00.000Z'));
  assert.deepEqual((await secrets.active(acc, 4999)).map((r) => [r.id, r.expiresAt]), [['ss_3', null], ['ss_2', 5000], ['ss_1', 5000]]);
  assert.deepEqual((await secrets.active(acc, 5000)).map((r) => r.id), ['ss_3'], 'expired at 5 000');
  await secrets.expireAll(acc, 7000); // later than the earlier ones' expiry: those are not pushed back
  assert.deepEqual((await secrets.active(acc, 4999)).map((r) => [r.id, r.expiresAt]), [['ss_3', 7000], ['ss_2', 5000], ['ss_1', 5000]]);
  await secrets.expireAll(acc, 3000); // earlier: brought forward
  assert.deepEqual((await secrets.active(acc, 2999)).map((r) => [r.id, r.expiresAt]), [['ss_3', 3000], ['ss_2', 3000], ['ss_1', 3000]]);
  assert.deepEqual((await secrets.active(other, 9_999_999)).map((r) => r.id), ['ss_other']);
});
