import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type DB } from '../src/store/db';
import { CHARGE_VIEW_KEYS, ChargesRepository, type AttemptRecord } from '../src/store/charges';
import { IdempotencyRepository } from '../src/store/idempotency';
import { PgChargesRepository, type PgChargesShared } from '../src/store/pg/charges';
import { PgIdempotencyRepository } from '../src/store/pg/idempotency';
import { chargeBatches } from '../src/store/pg/charge-batches';
import { ChargeSnapshots } from '../src/store/pg/charge-snapshots';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';
import { storedCharge } from './helpers/charge-record';

// A follow-up's one write before its gateway call (ChargesRepository.snapshot and beginOnSnapshot): it acts only on
// the row version the follow-up decided on, takes the lock only from nobody, and begins nothing while an attempt
// holds the charge. The same steps on SQLite and on a real PostgreSQL.

const NO_PG = unlessAvailable('postgres');

interface Subject {
  charges: ChargesRepository | PgChargesRepository;
  idempotency: IdempotencyRepository | PgIdempotencyRepository;
  rows(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** The statements sent to PostgreSQL since the last call (SQLite: none are counted). */
  sent?: string[];
}

const REFUND = (amount: number, clientKey: string | null = null): Omit<AttemptRecord, 'seq' | 'idempotencyKey'> => ({
  operation: 'refund', gateway: 'gw_a', outcome: 'in_flight', durationMs: 0, clientKey, requestedAmount: amount,
});
const LEASE = 60_000;

async function steps(s: Subject, id: string): Promise<void> {
  const { charges } = s;
  const now = Date.now();
  const stored = storedCharge(id, { accountId: 'acc_s', status: 'approved', captured: true, externalId: `ext_${id}`, paidAmount: 10_990 });
  await charges.insert(stored, { owner: 'creator', expiresAt: now + LEASE }, 1);
  await charges.unlock(id, 'creator');
  const state = async () => (await s.rows('SELECT lock_owner, op_seq FROM charges WHERE id = ?', [id]))[0];

  assert.equal(await charges.snapshot('acc_other', id), undefined, "another account's charge is not seen");
  const first = await charges.snapshot('acc_s', id);
  assert.deepEqual(first?.charge, stored);

  // Changed since the snapshot: nothing is taken or written.
  await charges.update(id, { description: 'changed elsewhere' });
  assert.deepEqual(await charges.beginOnSnapshot(first!, 'w1', now, LEASE, 'partial_refund', REFUND(500)), { state: 'stale' });
  assert.deepEqual(await state(), { lock_owner: null, op_seq: 1 });
  assert.equal((await charges.attempts(id)).length, 0);

  // As read: the lock, the operation's number and row, and the client's key bound to it, together.
  await s.idempotency.claim('acc_s', 'ck_1', 'hash', now, LEASE);
  const second = await charges.snapshot('acc_s', id);
  const started = await charges.beginOnSnapshot(second!, 'w1', now, LEASE, 'partial_refund', REFUND(500, 'ck_1'), 'ck_1');
  assert.equal(started.state, 'begun');
  assert.equal(started.state === 'begun' && started.seq, 2);
  assert.equal(started.state === 'begun' && started.charge.description, 'changed elsewhere', 'the whole row as locked');
  assert.deepEqual(await state(), { lock_owner: 'w1', op_seq: 2 });
  const [begun] = await charges.attempts(id);
  assert.deepEqual([begun.seq, begun.operation, begun.outcome, begun.idempotencyKey, begun.clientKey, begun.requestedAmount], [2, 'refund', 'in_flight', `${id}-partial_refund-2`, 'ck_1', 500]);
  assert.deepEqual((await s.rows("SELECT charge_id, operation_seq FROM idempotency_keys WHERE key = 'ck_1'"))[0], { charge_id: id, operation_seq: 2 });

  // The same version again, now that w1 holds it: refused, w1 keeps it.
  assert.deepEqual(await charges.beginOnSnapshot(second!, 'w2', now, LEASE, 'refund', REFUND(100)), { state: 'stale' });
  assert.equal((await state()).lock_owner, 'w1');

  // Settled: the row its settle left is what the next follow-up decides on (on PostgreSQL without a read).
  const settled = await charges.settleOperation(id, { ...begun, outcome: 'success', amount: 500, durationMs: 4 }, { refundedAmount: 500 }, 'w1');
  assert.equal(settled.refundedAmount, 500);
  if (s.sent) s.sent.length = 0;
  const third = await charges.snapshot('acc_s', id);
  assert.equal(third?.charge.refundedAmount, 500);
  if (s.sent) assert.deepEqual(s.sent, [], 'kept from the settle, not read');

  // The client's key is bound to a follow-up: the lock is taken and nothing begun (the full path answers that one).
  assert.deepEqual(await charges.beginOnSnapshot(third!, 'w3', now, LEASE, 'refund', REFUND(100, 'ck_1'), 'ck_1'), { state: 'held' });
  assert.deepEqual(await state(), { lock_owner: 'w3', op_seq: 2 });
  assert.equal((await charges.attempts(id)).length, 1);
  await charges.unlock(id, 'w3');

  // An operation whose outcome is unknown holds the charge whatever the key.
  const fourth = await charges.snapshot('acc_s', id);
  await charges.addAttempt(id, { seq: 9, operation: 'capture', gateway: 'gw_a', outcome: 'unknown', durationMs: 0, idempotencyKey: `${id}-capture-9` });
  assert.deepEqual(await charges.beginOnSnapshot(fourth!, 'w4', now, LEASE, 'refund', REFUND(100)), { state: 'held' });
  assert.equal((await charges.attempts(id)).length, 2);

  // w4 died holding it: once its lease is over, the lock is taken over.
  const fifth = await charges.snapshot('acc_s', id);
  await charges.finishAttempt(id, { seq: 9, operation: 'capture', gateway: 'gw_a', outcome: 'failed', durationMs: 0 });
  assert.deepEqual(await charges.beginOnSnapshot(fifth!, 'w5', now, LEASE, 'refund', REFUND(100)), { state: 'stale' }, "w4's lease is live");
  const taken = await charges.beginOnSnapshot(fifth!, 'w5', now + LEASE + 1, LEASE, 'refund', REFUND(100));
  assert.deepEqual([taken.state, taken.state === 'begun' && taken.seq], ['begun', 3]);
  assert.equal((await state()).lock_owner, 'w5');
}

let lite: DB;
let pgdb: MigratedPgDatabase;

before(async () => {
  lite = openDatabase(':memory:');
  lite.prepare("INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES ('acc_s', 'x', 'x@example.com', 1, 'whk_s', 'x', 'x')").run();
  if (NO_PG) return;
  pgdb = await migratedPgDatabase();
  await insertPgAccount(pgdb.pool, 'acc_s');
});

after(async () => {
  lite?.close();
  await pgdb?.close();
});

test('SQLite: a follow-up begins in one write only on the row it decided on, and only from a free lock', async () => {
  await steps({
    charges: new ChargesRepository(lite),
    idempotency: new IdempotencyRepository(lite),
    async rows(sql, params = []) {
      return sql.trimStart().startsWith('SELECT') ? lite.prepare(sql).all(...params) as Array<Record<string, unknown>> : (lite.prepare(sql).run(...params), []);
    },
  }, 'chg_snap_lite');
});

test('PostgreSQL: the same, by the row\'s xmin, with the settled row kept', { skip: NO_PG }, async () => {
  const shared: PgChargesShared = { snapshots: new ChargeSnapshots() };
  const sent: string[] = [];
  const original = pgdb.pool.query.bind(pgdb.pool) as (...args: unknown[]) => unknown;
  const counted = Object.create(pgdb.pool, {
    query: {
      value: (...args: unknown[]) => {
        const first = args[0] as string | { name?: string };
        sent.push(typeof first === 'string' ? first.slice(0, 40) : first.name ?? '');
        return original(...args);
      },
    },
  });
  // The batches write on the pool the repository is bound to: only there are rows kept (nothing of a transaction).
  shared.batches = chargeBatches(counted, () => shared.gatewaysNamingChargeId ?? new Set());
  await steps({
    charges: new PgChargesRepository(counted, shared),
    idempotency: new PgIdempotencyRepository(pgdb.pool),
    async rows(sql, params = []) {
      let n = 0;
      return (await pgdb.pool.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
    },
    sent,
  }, 'chg_snap_pg');
});

test('PostgreSQL: a repository in a transaction neither keeps nor recalls rows', { skip: NO_PG }, async () => {
  const shared: PgChargesShared = { snapshots: new ChargeSnapshots() };
  shared.batches = chargeBatches(pgdb.pool, () => new Set());
  const client = await pgdb.pool.connect();
  try {
    const inTx = new PgChargesRepository(client, shared);
    const onPool = new PgChargesRepository(pgdb.pool, shared);
    const id = 'chg_snap_tx';
    await onPool.insert(storedCharge(id, { accountId: 'acc_s', status: 'approved' }), { owner: 'creator', expiresAt: Date.now() + LEASE }, 1);
    await client.query('BEGIN');
    await inTx.settle(id, { status: 'refunded' }, 'creator');
    await client.query('ROLLBACK');
    assert.equal(shared.snapshots!.recall('acc_s', id), undefined, 'a row a transaction wrote is not kept: it may roll back');
    const read = await onPool.snapshot('acc_s', id);
    assert.equal(read?.charge.status, 'approved');
    const recalled = shared.snapshots!.recall('acc_s', id)!;
    assert.equal(recalled.version, read!.version, 'a row read on the pool is kept');
    assert.deepEqual(recalled.charge, Object.fromEntries(CHARGE_VIEW_KEYS.map((k) => [k, read!.charge[k]])), 'what the checks need of it, and nothing more');
    (recalled.charge as { status: string }).status = 'changed by a caller';
    assert.equal(shared.snapshots!.recall('acc_s', id)?.charge.status, 'approved', 'a caller changes only its own copy');
  } finally {
    client.release();
  }
});
