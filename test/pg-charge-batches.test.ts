import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { AttemptRecord, ChargeRecord } from '../src/store/charges';
import { PgChargesRepository, type PgChargesShared } from '../src/store/pg/charges';
import { chargeBatches } from '../src/store/pg/charge-batches';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';
import { storedCharge } from './helpers/charge-record';

// The PostgreSQL store's group commit (src/store/pg/charge-batches.ts): births and settles that arrive together go in
// one statement, and each caller gets exactly what its own statement would have given it. On a real PostgreSQL.

const NO_PG = unlessAvailable('postgres');

let db: MigratedPgDatabase;
let charges: PgChargesRepository;
let shared: PgChargesShared;
/** The statement names the pool sent, in order. */
const sent: string[] = [];

before(async () => {
  if (NO_PG) return;
  db = await migratedPgDatabase();
  shared = {};
  shared.batches = chargeBatches(db.pool, () => shared.gatewaysNamingChargeId ?? new Set());
  charges = new PgChargesRepository(db.pool, shared);
  await insertPgAccount(db.pool, 'acc_b');
  const original = db.pool.query.bind(db.pool) as (...args: unknown[]) => unknown;
  (db.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const first = args[0] as string | { name?: string };
    sent.push(typeof first === 'string' ? first.slice(0, 40) : first.name ?? '');
    return original(...args);
  };
});

after(async () => {
  await db?.close();
});

let serial = 0;
function charge(over: Partial<ChargeRecord> = {}): ChargeRecord {
  serial += 1;
  return storedCharge(`chg_batch_${serial}`, { accountId: 'acc_b', ...over });
}

const attempt = (id: string, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  seq: 1, operation: 'charge', gateway: 'gw_a', outcome: 'in_flight', ambiguous: false, durationMs: 0, idempotencyKey: `${id}-charge-1`,
  createdAt: '2024-05-01T10:00:00.000Z', ...over,
});

const LOCK = { owner: 'creator', expiresAt: Date.now() + 60_000 };

async function bornTogether(list: ChargeRecord[]): Promise<void> {
  sent.length = 0;
  await Promise.all(list.map((c) => charges.birth(c, LOCK, attempt(c.id))));
}

test('births that arrive together are one statement, and each charge reads back as it was written, locked, with its attempt', { skip: NO_PG }, async () => {
  const list = [charge({ metadata: { pedido: 'ação 1' } }), charge({ card: { brand: 'visa', last4: '4242' } as ChargeRecord['card'] }), charge({ amount: 2 ** 40 })];
  await bornTogether(list);
  assert.deepEqual(sent, ['charges.births']);
  for (const c of list) {
    assert.deepEqual(await charges.get('acc_b', c.id), c);
    const stored = (await db.pool.query({ text: 'SELECT lock_owner, op_seq FROM charges WHERE id = $1', values: [c.id] })).rows[0];
    assert.deepEqual(stored, { lock_owner: 'creator', op_seq: 1 });
    const attempts = await charges.attempts(c.id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].outcome, 'in_flight');
    assert.equal(attempts[0].idempotencyKey, `${c.id}-charge-1`);
  }
});

test('a birth the server refuses fails alone: its neighbours in the batch are written', { skip: NO_PG }, async () => {
  const [existing] = [charge()];
  await charges.birth(existing, LOCK, attempt(existing.id));
  const fresh = [charge(), charge()];
  sent.length = 0;
  const results = await Promise.allSettled([
    charges.birth(fresh[0], LOCK, attempt(fresh[0].id)),
    charges.birth({ ...existing, description: 'a second charge under a taken id' }, LOCK, attempt(existing.id)),
    charges.birth(fresh[1], LOCK, attempt(fresh[1].id)),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.ok((results[1] as PromiseRejectedResult).reason instanceof pg.DatabaseError);
  assert.equal(sent[0], 'charges.births', 'the three went together first');
  assert.equal(sent.filter((s) => s === 'charges.birth').length, 3, 'then each alone');
  for (const c of fresh) assert.deepEqual(await charges.get('acc_b', c.id), c);
  assert.equal((await charges.get('acc_b', existing.id))?.description, existing.description, 'the stored charge is untouched');
});

test('settles that arrive together are one statement: each charge gets its own patch, its attempt ended and its lock released', { skip: NO_PG }, async () => {
  const list = [charge(), charge(), charge()];
  await bornTogether(list);
  sent.length = 0;
  const settled = await Promise.all(list.map((c, i) => charges.settleOperation(
    c.id,
    attempt(c.id, { outcome: 'success', durationMs: 40 + i, externalId: `ext_${c.id}` }),
    { status: 'paid', paidAmount: c.amount, captured: true, externalId: `ext_${c.id}`, refs: { chargeId: `ch_${c.id}` }, card: { brand: 'visa', last4: String(4000 + i) } as ChargeRecord['card'] },
    'creator',
  )));
  assert.deepEqual(sent, ['charges.settles']);
  settled.forEach((s, i) => {
    const c = list[i];
    assert.equal(s.id, c.id);
    assert.equal(s.status, 'paid');
    assert.equal(s.paidAmount, c.amount);
    assert.equal(s.captured, true);
    assert.equal(s.externalId, `ext_${c.id}`);
    assert.deepEqual(s.refs, { chargeId: `ch_${c.id}` });
    assert.deepEqual(s.card, { brand: 'visa', last4: String(4000 + i) });
    assert.equal(s.description, c.description, 'a column the patch does not name keeps its value');
    assert.notEqual(s.updatedAt, c.updatedAt);
  });
  for (const [i, c] of list.entries()) {
    assert.deepEqual(await charges.get('acc_b', c.id), settled[i], 'the answer is the row as stored');
    const lock = (await db.pool.query({ text: 'SELECT lock_owner, lock_expires_at FROM charges WHERE id = $1', values: [c.id] })).rows[0];
    assert.deepEqual(lock, { lock_owner: null, lock_expires_at: null });
    const [a] = await charges.attempts(c.id);
    assert.equal(a.outcome, 'success');
    assert.equal(a.durationMs, 40 + i);
    assert.equal(a.externalId, `ext_${c.id}`);
    assert.equal((await charges.findByAnyId('acc_b', `ext_${c.id}`))?.id, c.id, "the gateway's id is indexed");
  }
});

test("a settle writes only what its patch names: a column changed since the charge was read keeps the newer value, and another owner's lock stays", { skip: NO_PG }, async () => {
  const [mine, theirs] = [charge(), charge()];
  await bornTogether([mine, theirs]);
  // Written after the caller read the charge: a settle must not write back what it read.
  await charges.update(mine.id, { metadata: { late: 'write' } });
  await db.pool.query({ text: "UPDATE charges SET lock_owner = 'reconciler' WHERE id = $1", values: [theirs.id] });
  sent.length = 0;
  const [a, b] = await Promise.all([
    charges.settleOperation(mine.id, attempt(mine.id, { outcome: 'success' }), { status: 'paid', paidAmount: mine.amount }, 'creator'),
    charges.settleOperation(theirs.id, attempt(theirs.id, { outcome: 'decline' }), { status: 'failed', declineCode: 'insufficient_funds', errorMessage: null }, 'creator'),
  ]);
  assert.deepEqual(sent, ['charges.settles']);
  assert.deepEqual(a.metadata, { late: 'write' });
  assert.equal(a.status, 'paid');
  assert.equal(b.status, 'failed');
  assert.equal(b.declineCode, 'insufficient_funds');
  const lock = (await db.pool.query({ text: 'SELECT lock_owner FROM charges WHERE id = $1', values: [theirs.id] })).rows[0];
  assert.equal(lock.lock_owner, 'reconciler', 'only the lock the settling owner holds is released');
});

test('a settle of a charge that is not stored fails alone; two settles of one charge never share a statement', { skip: NO_PG }, async () => {
  const [c] = [charge()];
  await bornTogether([c]);
  sent.length = 0;
  const results = await Promise.allSettled([
    charges.settleOperation(c.id, attempt(c.id, { outcome: 'success' }), { status: 'paid', paidAmount: c.amount }, 'creator'),
    charges.settleOperation('chg_batch_missing', attempt('chg_batch_missing', { outcome: 'success' }), { status: 'paid' }, 'creator'),
    charges.settleOperation(c.id, attempt(c.id, { outcome: 'success' }), { refundedAmount: 100 }, 'creator'),
  ]);
  assert.equal(results[0].status, 'fulfilled');
  assert.equal(results[1].status, 'rejected');
  assert.match(String((results[1] as PromiseRejectedResult).reason), /chg_batch_missing is not stored/);
  assert.equal(results[2].status, 'fulfilled');
  assert.equal(sent.length, 2, `the second settle of ${c.id} went in a statement of its own: ${sent.join(', ')}`);
  const stored = await charges.get('acc_b', c.id);
  assert.equal(stored?.status, 'paid');
  assert.equal(stored?.refundedAmount, 100);
});
