import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DeliveriesRepository, DeliveryAttemptRecord } from '../src/store/deliveries';
import { PgDeliveriesRepository } from '../src/store/pg/deliveries';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import type { SameAsync } from './helpers/async-contract';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the PostgreSQL outbox keeps the SQLite contract (leases held across processes), and claimDue hands
// each due delivery to exactly one of several processes (SQLite has claimDue too, one atomic UPDATE per delivery).

const contract: SameAsync<PgDeliveriesRepository, DeliveriesRepository> = true;

let db: ScratchDatabase;
let deliveries: PgDeliveriesRepository;

before(async () => {
  if (NO_PG) return;
  db = await scratchPgDatabase();
  deliveries = new PgDeliveriesRepository(db.pool);
});

after(async () => {
  await db?.drop();
});

async function account(): Promise<string> {
  const id = `acc_${randomUUID()}`;
  await db.pool.query("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES ($1, 'Loja', 'l@example.com', $2, 'now', 'now')", [id, `wh_${id}`]);
  return id;
}

/** A pending delivery of a new event of the account. */
async function delivery(accountId: string, over: { nextAttemptAt?: number; giveUpAt?: number } = {}, lease?: { owner: string; expiresAt: number }): Promise<string> {
  const eventId = `evt_${randomUUID()}`;
  await db.pool.query(`INSERT INTO webhook_events (id, account_id, gateway, gateway_event_id, type, payload, created_at)
    VALUES ($1, $2, 'gw_one', $1, 'charge.paid', '{}', 'now')`, [eventId, accountId]);
  const id = `dlv_${randomUUID()}`;
  await deliveries.insert({ id, eventId, accountId, nextAttemptAt: over.nextAttemptAt ?? 1000, giveUpAt: over.giveUpAt ?? 9_000_000 }, lease);
  return id;
}

const attempt = (n: number, over: Partial<DeliveryAttemptRecord> = {}): DeliveryAttemptRecord => ({
  attempt: n, outcome: 'failed', statusCode: 500, durationMs: 12, error: 'HTTP 500', createdAt: new Date().toISOString(), ...over,
});

test('the repository has the SQLite public methods, each async, plus claimDue (checked by the compiler)', () => {
  assert.equal(contract, true);
});

test('deliveries: insert, get, forEvent; attempts recorded by finishAttempt, in order', { skip: NO_PG }, async () => {
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

test('deliveries: a lease keeps others out until it expires; only its holder finishes or releases it', { skip: NO_PG }, async () => {
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

test('deliveries: due lists pending, due, unheld ones by next attempt; backlog counts pending ones', { skip: NO_PG }, async () => {
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

test('claimDue takes the lease on due deliveries in due order and leaves held, future and finished ones', { skip: NO_PG }, async () => {
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

test('claimDue from three pools at once: disjoint sets that cover every due delivery', { skip: NO_PG }, async () => {
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

test('claim of one delivery by three pools at once: exactly one holder', { skip: NO_PG }, async () => {
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

test('claimDue skips a delivery another process has locked instead of waiting for it', { skip: NO_PG }, async () => {
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
