import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { AttemptRecord, ChargeRecord } from '../src/store/charges';
import { PgChargesRepository, type PgChargesShared } from '../src/store/pg/charges';
import { atomically } from '../src/store/pg/queryable';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';
import { storedCharge } from './helpers/charge-record';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: ChargesRepository's contract on a real PostgreSQL, one database for this file.

let db: MigratedPgDatabase;
let charges: PgChargesRepository;
let shared: PgChargesShared;

before(async () => {
  if (NO_PG) return;
  db = await migratedPgDatabase();
  shared = {};
  charges = new PgChargesRepository(db.pool, shared);
  for (const id of ['acc_1', 'acc_2', 'acc_list']) await insertPgAccount(db.pool, id);
});

after(async () => {
  await db?.close();
});

let serial = 0;
function charge(over: Partial<ChargeRecord> = {}): ChargeRecord {
  serial += 1;
  return storedCharge(`chg_${serial}`, over);
}

const NO_LOCK = { owner: 'creator', expiresAt: 0 };

async function row(id: string): Promise<Record<string, unknown>> {
  return (await db.pool.query({ text: 'SELECT * FROM charges WHERE id = $1', values: [id] })).rows[0];
}

test('a charge reads back as it was written: booleans, null, JSON fields and cents as numbers', { skip: NO_PG }, async () => {
  const c = charge({
    fallbackUsed: true, captured: false, externalId: 'ext_rt', refs: { chargeId: 'ch_rt' }, amount: 2 ** 40, paidAmount: 1,
    card: { brand: 'visa', last4: '4242' } as ChargeRecord['card'], metadata: { pedido: 'ação 1' },
    split: [{ recipientId: 're_1', amount: 500 }] as unknown as ChargeRecord['split'], pixExpiresAt: '2024-05-02T00:00:00.000Z',
    installments: { count: 3, installmentAmount: 334, totalAmount: 1000, interestFree: true },
  });
  await charges.insert(c, { owner: 'creator', expiresAt: 123 });
  assert.deepEqual(await charges.get('acc_1', c.id), c);
  assert.deepEqual(await charges.getById(c.id), c);
  assert.equal(await charges.get('acc_2', c.id), undefined, 'another account does not see it');
  assert.equal(await charges.getById('chg_missing'), undefined);
  const r = await row(c.id);
  assert.equal(r.fallback_used, 1);
  assert.equal(r.captured, 0);
  assert.equal(r.refs, '{"chargeId":"ch_rt"}');
  assert.deepEqual([r.lock_owner, r.lock_expires_at], ['creator', 123]);
  const nulls = charge({ captured: true });
  await charges.insert(nulls, NO_LOCK);
  assert.equal((await charges.get('acc_1', nulls.id))!.captured, true);
});

test('update writes only the columns of the patch (and updated_at), never a whole row read earlier', { skip: NO_PG }, async () => {
  const c = charge({ description: 'antes' });
  await charges.insert(c, NO_LOCK);
  // Another writer changes two columns after this caller read the charge.
  await db.pool.query({ text: "UPDATE charges SET description = 'outro', paid_amount = 777 WHERE id = $1", values: [c.id] });
  await charges.update(c.id, { status: 'approved', captured: true, refundedAmount: undefined, metadata: { a: 'b' }, errorCode: null });
  const got = (await charges.get('acc_1', c.id))!;
  assert.equal(got.status, 'approved');
  assert.equal(got.captured, true);
  assert.deepEqual(got.metadata, { a: 'b' });
  assert.equal(got.description, 'outro', 'a column not in the patch is left as the other writer set it');
  assert.equal(got.paidAmount, 777);
  assert.equal(got.refundedAmount, 0, 'an undefined field is not written');
  assert.equal(got.createdAt, c.createdAt);
  assert.notEqual(got.updatedAt, c.updatedAt);
  assert.ok(Date.parse(got.updatedAt) > Date.now() - 60_000, 'updated_at is now');
  await charges.update(c.id, { metadata: null, captured: null });
  const cleared = (await charges.get('acc_1', c.id))!;
  assert.deepEqual([cleared.metadata, cleared.captured, cleared.status], [null, null, 'approved']);
});

test('update never moves a charge to another account or id, even when a cast patch names them', { skip: NO_PG }, async () => {
  const c = charge();
  await charges.insert(c, NO_LOCK);
  await charges.update(c.id, { accountId: 'acc_2', id: 'chg_other', status: 'failed' } as never);
  const got = (await charges.get('acc_1', c.id))!;
  assert.equal(got.status, 'failed');
  assert.equal(await charges.getById('chg_other'), undefined);
});

test('findByAnyId finds a charge by its own id, its gateway id and each of its refs, only in its account', { skip: NO_PG }, async () => {
  // Refs ids are indexed while the account's compatibility mode is the charge's gateway (test/native-id-index.test.ts).
  await db.pool.query(`INSERT INTO settings (account_id, gateway_fallbacks, compatibility_mode, response_format, updated_at)
    VALUES ('acc_1', '[]', 'gw_a', 'full', 'x') ON CONFLICT (account_id) DO UPDATE SET compatibility_mode = excluded.compatibility_mode`);
  const c = charge({ accountId: 'acc_1' });
  await charges.insert(c, NO_LOCK);
  await charges.update(c.id, { externalId: 'pay_77', refs: { chargeId: 'ch_77', orderId: 'or_77', empty: '' } });
  for (const id of [c.id, 'pay_77', 'ch_77', 'or_77']) assert.equal((await charges.findByAnyId('acc_1', id))?.id, c.id, id);
  assert.equal(await charges.findByAnyId('acc_2', 'pay_77'), undefined, 'another account');
  assert.equal(await charges.findByAnyId('acc_1', ''), undefined, 'an empty ref is not indexed');
  assert.equal(await charges.findByAnyId('acc_1', 'nothing'), undefined);
  // A second update naming the same ids again is harmless.
  await charges.update(c.id, { externalId: 'pay_77', refs: { chargeId: 'ch_77' } });
  const ids = (await db.pool.query({ text: 'SELECT native_id FROM charge_native_ids WHERE charge_id = $1 ORDER BY native_id', values: [c.id] })).rows;
  assert.deepEqual(ids.map((r) => r.native_id), ['ch_77', 'or_77', 'pay_77']);
  // A charge's own id wins over a gateway id that happens to equal it.
  const other = charge();
  await charges.insert(other, NO_LOCK);
  await charges.update(other.id, { externalId: c.id });
  assert.equal((await charges.findByAnyId('acc_1', c.id))?.id, c.id);
});

test('a patch and its gateway ids are written together or not at all inside a transaction', { skip: NO_PG }, async () => {
  const c = charge();
  await charges.insert(c, NO_LOCK);
  await assert.rejects(atomically(db.pool, async (client) => {
    await new PgChargesRepository(client, shared).update(c.id, { externalId: 'pay_rolled_back', status: 'approved' });
    throw new Error('the rest of the transaction failed');
  }));
  assert.equal((await charges.get('acc_1', c.id))!.status, 'processing');
  assert.equal(await charges.findByAnyId('acc_1', 'pay_rolled_back'), undefined);
});

test('attempts are recorded, finished and listed in order; the shared listener hears every write from any instance', { skip: NO_PG }, async () => {
  const c = charge();
  await charges.insert(c, NO_LOCK);
  const heard: Array<[string, string]> = [];
  charges.attemptListener = (chargeId, a) => heard.push([chargeId, a.outcome]);
  const inTx = new PgChargesRepository(db.pool, shared);
  assert.equal(inTx.attemptListener, charges.attemptListener, 'the listener is the shared one');
  const first: AttemptRecord = { seq: 1, operation: 'create', gateway: 'gw_a', outcome: 'in_flight', durationMs: 0, idempotencyKey: 'idem_1', createdAt: '2024-05-01T10:00:01.000Z' };
  await inTx.addAttempt(c.id, first);
  await inTx.finishAttempt(c.id, { ...first, outcome: 'success', durationMs: 12.6, gatewayStatus: 201, externalId: 're_1', amount: 990 });
  await charges.addAttempt(c.id, { seq: 2, operation: 'refund', gateway: 'gw_a', outcome: 'failed', errorCode: 'GATEWAY_ERROR', failureKind: 'http_5xx', message: 'boom', ambiguous: true, durationMs: 3 });
  charges.attemptListener = () => {
    throw new Error('a broken observer');
  };
  await charges.addAttempt(c.id, { seq: 3, operation: 'capture', gateway: 'gw_b', outcome: 'skipped', durationMs: 0 });
  charges.attemptListener = undefined;
  assert.equal(shared.attemptListener, undefined);
  assert.deepEqual(heard, [[c.id, 'in_flight'], [c.id, 'success'], [c.id, 'failed']]);
  const list = await charges.attempts(c.id);
  assert.deepEqual(list[0], {
    seq: 1, operation: 'create', gateway: 'gw_a', outcome: 'success', errorCode: null, failureKind: null, gatewayStatus: 201, message: null,
    ambiguous: false, durationMs: 13, externalId: 're_1', amount: 990, idempotencyKey: 'idem_1', createdAt: '2024-05-01T10:00:01.000Z',
  });
  assert.deepEqual(list.slice(1).map((a) => [a.seq, a.outcome, a.ambiguous, a.errorCode, a.failureKind, a.message, 'amount' in a, 'externalId' in a]),
    [[2, 'failed', true, 'GATEWAY_ERROR', 'http_5xx', 'boom', false, false], [3, 'skipped', false, null, null, null, false, false]]);
  assert.ok(!Number.isNaN(Date.parse(list[1].createdAt!)), 'createdAt defaults to now');
  const together = await charges.getWithAttempts('acc_1', c.id);
  assert.deepEqual(together, { charge: await charges.get('acc_1', c.id), attempts: list }, 'the charge and its attempts in one read, as each alone');
  assert.equal(await charges.getWithAttempts('acc_2', c.id), undefined, 'another account does not see it');
  const bare = charge();
  await charges.insert(bare, NO_LOCK);
  assert.deepEqual((await charges.getWithAttempts('acc_1', bare.id))?.attempts, [], 'no attempts: an empty list');
  const key = (await db.pool.query({ text: 'SELECT idempotency_key FROM charge_attempts WHERE charge_id = $1 AND seq = 1', values: [c.id] })).rows[0];
  assert.equal(key.idempotency_key, 'idem_1');
  assert.deepEqual(await charges.attempts('chg_none'), []);
});

test('reconciler bookkeeping: processing count, schedule, attempts so far, and which charges are due', { skip: NO_PG }, async () => {
  const base = await charges.processingCount();
  const due = charge({ id: 'chg_sched_due' });
  const later = charge({ id: 'chg_sched_later' });
  const held = charge({ id: 'chg_sched_held' });
  const done = charge({ id: 'chg_sched_done', status: 'approved' });
  for (const c of [due, later, held, done]) await charges.insert(c, NO_LOCK);
  assert.equal(await charges.processingCount(), base + 3);
  await charges.scheduleReconcile(due.id, 2, 5_000);
  await charges.scheduleReconcile(later.id, 1, 9_000_000_000_000);
  await charges.scheduleReconcile(done.id, 1, 1);
  assert.ok(await charges.tryLock(held.id, 'worker', 10_000, 60_000));
  assert.equal(await charges.reconcileAttempts(due.id), 2);
  assert.equal(await charges.reconcileAttempts('chg_none'), 0);
  const ids = (await charges.dueForReconcile(10_000, 1_000)).map((c) => c.id);
  assert.ok(ids.includes(due.id) && !ids.includes(later.id) && !ids.includes(held.id) && !ids.includes(done.id), ids.join());
  assert.deepEqual((await charges.dueForReconcile(10_000, 1_000)).find((c) => c.id === due.id), { id: due.id, accountId: 'acc_1' });
  assert.equal((await charges.dueForReconcile(10_000, 1)).length, 1, 'limit');
  assert.ok((await charges.dueForReconcile(80_000, 1_000)).some((c) => c.id === held.id), "an expired lease doesn't hide a charge");
  assert.ok(await charges.tryLock(due.id, 'looker', 10_000, 1), 'dueForReconcile only looks: the charge is still free');
});

test('the lock: one holder at a time, a live lease is refused, an expired one is taken over, unlock only by the holder', { skip: NO_PG }, async () => {
  const c = charge();
  await charges.insert(c, { owner: 'creator', expiresAt: 1_000 });
  assert.equal(await charges.tryLock(c.id, 'a', 999, 500), false, 'the creator holds it until its lease ends');
  assert.equal(await charges.tryLock(c.id, 'a', 1_000, 500), true, 'a lease ending now is over');
  assert.equal(await charges.tryLock(c.id, 'a', 1_100, 500), false, 'not even the holder takes it twice');
  assert.equal(await charges.tryLock(c.id, 'b', 1_499, 500), false);
  await charges.unlock(c.id, 'b');
  assert.equal((await row(c.id)).lock_owner, 'a', 'unlock by someone else changes nothing');
  assert.equal(await charges.tryLock(c.id, 'b', 1_500, 500), true, 'a crashed holder is taken over at expiry');
  assert.deepEqual([(await row(c.id)).lock_owner, (await row(c.id)).lock_expires_at], ['b', 2_000]);
  await charges.unlock(c.id, 'b');
  assert.deepEqual([(await row(c.id)).lock_owner, (await row(c.id)).lock_expires_at], [null, null]);
  assert.equal(await charges.tryLock(c.id, 'c', 1_600, 500), true);
  assert.equal(await charges.tryLock('chg_none', 'c', 1_600, 500), false);
});

/** Three pools on the database, as three RouteGate processes have, each with its 4 connections open. */
async function processes(): Promise<Array<{ pool: pg.Pool; charges: PgChargesRepository }>> {
  return Promise.all([1, 2, 3].map(async () => {
    const pool = db.newPool(4);
    // Open every connection first: a race among callers, not among connection handshakes.
    await Promise.all([1, 2, 3, 4].map(() => pool.query('SELECT pg_sleep(0.02)')));
    return { pool, charges: new PgChargesRepository(pool, {}) };
  }));
}

test('20 callers in 3 processes race for one charge lock: exactly one wins, every time', { skip: NO_PG }, async () => {
  const procs = await processes();
  for (let round = 0; round < 10; round++) {
    const c = charge();
    await charges.insert(c, { owner: 'creator', expiresAt: 1_000 }); // expired for everyone: all 20 may try
    const owners = Array.from({ length: 20 }, (_, i) => `proc${i % 3}-worker${i}`);
    const won = await Promise.all(owners.map((owner, i) => procs[i % 3].charges.tryLock(c.id, owner, 5_000, 30_000)));
    const winners = owners.filter((_, i) => won[i]);
    assert.equal(winners.length, 1, `round ${round}: ${winners.join()}`);
    assert.equal((await row(c.id)).lock_owner, winners[0]);
  }
});

test('50 concurrent nextSeq calls from 3 processes get 1..50, each once', { skip: NO_PG }, async () => {
  const procs = await processes();
  const c = charge();
  await charges.insert(c, NO_LOCK);
  const seqs = await Promise.all(Array.from({ length: 50 }, (_, i) => procs[i % 3].charges.nextSeq(c.id)));
  assert.deepEqual([...seqs].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
  assert.equal(await charges.nextSeq(c.id), 51);
  assert.equal((await row(c.id)).op_seq, 51);
  assert.equal(await charges.nextSeq('chg_none'), undefined);
});

test('claimDueForReconcile from 3 processes at once: disjoint sets that cover every due charge, each then held by its claimer', { skip: NO_PG }, async () => {
  await insertPgAccount(db.pool, 'acc_claim');
  const now = 1_000_000;
  // The other tests' processing charges are left out of this one: they fall due much later.
  await db.pool.query("UPDATE charges SET reconcile_after = 9000000000000000 WHERE account_id <> 'acc_claim'");
  const due = new Set<string>();
  const expected = new Map<string, string>();
  for (let i = 0; i < 200; i++) {
    const c = charge({ id: `chg_claim_${String(i).padStart(3, '0')}`, accountId: 'acc_claim' });
    // Free, held by a crashed process (expired lease), held live, not yet due, not processing.
    const kind = i % 5;
    await charges.insert(c, { owner: kind === 2 ? 'live' : 'dead', expiresAt: kind === 2 ? now + 60_000 : now - 1 });
    if (kind === 0) await charges.unlock(c.id, 'dead');
    await charges.scheduleReconcile(c.id, 0, kind === 3 ? now + 1 : now - i);
    if (kind === 4) await charges.update(c.id, { status: 'approved' });
    if (kind <= 1) {
      due.add(c.id);
      expected.set(c.id, 'acc_claim');
    }
  }
  const procs = await processes();
  const claimed = new Map<string, string[]>();
  // Three reconcilers per process, each claiming small batches until nothing is left.
  await Promise.all(procs.flatMap((p, pi) => [0, 1, 2].map(async (w) => {
    const owner = `rec-${pi}-${w}`;
    const mine: string[] = [];
    claimed.set(owner, mine);
    for (;;) {
      const batch = await p.charges.claimDueForReconcile(owner, now, 60_000, 4);
      if (batch.length === 0) break;
      assert.ok(batch.length <= 4, `a claim takes at most its limit, not ${batch.length}`);
      for (const c of batch) {
        assert.equal(c.accountId, expected.get(c.id), `${c.id} is a due charge of its account`);
        mine.push(c.id);
      }
    }
  })));
  const all = [...claimed.values()].flat();
  assert.equal(all.length, new Set(all).size, 'no charge was claimed twice');
  assert.deepEqual(new Set(all), due, 'every due charge was claimed');
  assert.ok([...claimed.values()].filter((ids) => ids.length > 0).length > 1, 'the work was shared');
  for (const [owner, ids] of claimed) {
    for (const id of ids) assert.deepEqual([(await row(id)).lock_owner, (await row(id)).lock_expires_at], [owner, now + 60_000]);
  }
  assert.deepEqual(await charges.claimDueForReconcile('late', now, 60_000, 100), [], 'claimed charges are held');
  // The oldest due first, as dueForReconcile orders them.
  for (const id of due) await charges.unlock(id, [...claimed].find(([, ids]) => ids.includes(id))![0]);
  const ordered = (await charges.claimDueForReconcile('ordered', now, 60_000, 3)).map((c) => c.id);
  assert.deepEqual(ordered, [...due].sort((a, b) => Number(b.slice(-3)) - Number(a.slice(-3))).slice(0, 3));
});

test('list: newest first, ties by id bytewise, pages by cursor and offset, filters by status and gateway', { skip: NO_PG }, async () => {
  const at = (s: number) => `2024-06-01T00:00:${String(s).padStart(2, '0')}.000Z`;
  // Ties on created_at; ids differing in case order bytewise ('B' < 'a'), as SQLite does.
  const specs: Array<[string, number, string, string]> = [
    ['chg_a', 1, 'approved', 'gw_a'], ['chg_B', 1, 'declined', 'gw_b'], ['chg_c', 2, 'approved', 'gw_b'], ['chg_d', 2, 'approved', 'gw_a'],
    ['chg_e', 3, 'processing', 'gw_a'], ['chg_é', 3, 'approved', 'gw_a'], ['chg_f', 4, 'declined', 'gw_a'], ['chg_g', 5, 'approved', 'gw_b'],
  ];
  for (const [id, s, status, gateway] of specs) await charges.insert(charge({ id: `${id}_list`, accountId: 'acc_list', createdAt: at(s), status, gateway }), NO_LOCK);
  await charges.insert(charge({ id: 'chg_z_other_account', accountId: 'acc_2', createdAt: at(9) }), NO_LOCK);
  const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const expected = (keep: (s: (typeof specs)[number]) => boolean) => specs.filter(keep)
    .sort((x, y) => (x[1] !== y[1] ? y[1] - x[1] : -bytewise(x[0], y[0]))).map((s) => `${s[0]}_list`);
  const shapes: Array<{ status?: string; gateway?: string }> = [{}, { status: 'approved' }, { gateway: 'gw_a' }, { status: 'approved', gateway: 'gw_a' }, { status: 'refunded' }];
  for (const shape of shapes) {
    const want = expected((s) => (!shape.status || s[2] === shape.status) && (!shape.gateway || s[3] === shape.gateway));
    const all = (await charges.list('acc_list', { ...shape, limit: 100 })).map((c) => c.id);
    assert.deepEqual(all, want, JSON.stringify(shape));
    // Page through with a cursor of two rows at a time.
    const paged: string[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await charges.list('acc_list', { ...shape, limit: 2, after });
      paged.push(...page.map((c) => c.id));
      if (page.length < 2) break;
      after = { createdAt: page[1].createdAt, id: page[1].id };
    }
    assert.deepEqual(paged, want, `${JSON.stringify(shape)} by cursor`);
    for (const offset of [0, 1, 3, 50]) {
      assert.deepEqual((await charges.list('acc_list', { ...shape, limit: 2, offset })).map((c) => c.id), want.slice(offset, offset + 2), `offset ${offset}`);
    }
  }
  assert.deepEqual(expected(() => true).slice(0, 3), ['chg_g_list', 'chg_f_list', 'chg_é_list'], 'the expectation itself is bytewise');
  const cursor = { createdAt: at(3), id: 'chg_e_list' };
  assert.deepEqual((await charges.list('acc_list', { limit: 3, after: cursor, offset: 1 })).map((c) => c.id), ['chg_c_list', 'chg_a_list', 'chg_B_list']);
  assert.deepEqual((await charges.list('acc_list', { limit: 10, after: cursor, status: 'approved', gateway: 'gw_b' })).map((c) => c.id), ['chg_c_list']);
  assert.equal((await charges.list('acc_list', { limit: 1 }))[0].amount, 10_990, 'rows are whole charges');
});
