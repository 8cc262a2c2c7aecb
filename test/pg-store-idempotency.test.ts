import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PgIdempotencyRepository } from '../src/store/pg/idempotency';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: IdempotencyRepository's contract on a real PostgreSQL, one database for this file.

const TTL = 24 * 3600 * 1000;

let db: MigratedPgDatabase;
let keys: PgIdempotencyRepository;

before(async () => {
  if (NO_PG) return;
  db = await migratedPgDatabase();
  keys = new PgIdempotencyRepository(db.pool);
  for (const id of ['acc_1', 'acc_2']) await insertPgAccount(db.pool, id);
});

after(async () => {
  await db?.close();
});

/** Three pools with their connections open, as three RouteGate processes have. */
async function processes(): Promise<PgIdempotencyRepository[]> {
  return Promise.all([1, 2, 3].map(async () => {
    const pool = db.newPool(4);
    await Promise.all([1, 2, 3, 4].map(() => pool.query('SELECT pg_sleep(0.02)')));
    return new PgIdempotencyRepository(pool);
  }));
}

test('claim, complete and get: the stored answer reads back whole, per account', { skip: NO_PG }, async () => {
  assert.equal(await keys.get('acc_1', 'k-rt'), undefined);
  assert.equal(await keys.claim('acc_1', 'k-rt', 'hash-1', 1_000, TTL), true);
  assert.deepEqual(await keys.get('acc_1', 'k-rt'), {
    requestHash: 'hash-1', statusCode: null, headers: {}, body: null, expiresAt: 1_000 + TTL, createdAt: 1_000, chargeId: null, operationSeq: null,
  });
  await keys.complete('acc_1', 'k-rt', 201, { 'content-type': 'application/json', 'x-rg-gateway': 'gw_a' }, '{"id":"chg_1","valor":"ação"}');
  await keys.linkCharge('acc_1', 'k-rt', 'chg_1');
  assert.deepEqual(await keys.get('acc_1', 'k-rt'), {
    requestHash: 'hash-1', statusCode: 201, headers: { 'content-type': 'application/json', 'x-rg-gateway': 'gw_a' },
    body: '{"id":"chg_1","valor":"ação"}', expiresAt: 1_000 + TTL, createdAt: 1_000, chargeId: 'chg_1', operationSeq: null,
  });
  assert.equal(await keys.get('acc_2', 'k-rt'), undefined, 'keys are per account');
  assert.equal(await keys.claim('acc_2', 'k-rt', 'hash-2', 1_000, TTL), true, 'the same key in another account is its own');
});

test('a live entry refuses a second claim; an expired one is taken over and starts empty', { skip: NO_PG }, async () => {
  assert.equal(await keys.claim('acc_1', 'k-exp', 'hash-1', 1_000, 500), true);
  await keys.complete('acc_1', 'k-exp', 200, { a: 'b' }, 'old');
  assert.equal(await keys.claim('acc_1', 'k-exp', 'hash-2', 1_499, 500), false, 'still live');
  assert.equal((await keys.get('acc_1', 'k-exp'))!.requestHash, 'hash-1', 'a refused claim changes nothing');
  assert.equal(await keys.claim('acc_1', 'k-exp', 'hash-2', 1_500, 500), true, 'expired at expires_at');
  assert.deepEqual(await keys.get('acc_1', 'k-exp'), {
    requestHash: 'hash-2', statusCode: null, headers: {}, body: null, expiresAt: 2_000, createdAt: 1_500, chargeId: null, operationSeq: null,
  });
});

test('a follow-up key bound to its operation is re-opened once for a retry: after its request died, or after a 5xx', { skip: NO_PG }, async () => {
  assert.equal(await keys.claim('acc_1', 'k-op', 'hash-1', 1_000, TTL), true);
  await keys.linkOperation('acc_1', 'k-op', 'chg_9', 4);
  assert.deepEqual({ ...(await keys.get('acc_1', 'k-op'))!, expiresAt: 0 }, {
    requestHash: 'hash-1', statusCode: null, headers: {}, body: null, expiresAt: 0, createdAt: 1_000, chargeId: 'chg_9', operationSeq: 4,
  });
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-1', 1_200, 900), false, 'its request may still be running');
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-2', 5_000, 4_000), false, 'another body never re-opens it');
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-1', 5_000, 4_000), true, 'its request died');
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-1', 5_001, 4_001), false, 'once: the re-opened claim is live');
  await keys.complete('acc_1', 'k-op', 504, {}, 'unknown');
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-1', 5_002, 0), true, 'answered 504: its outcome was not known');
  await keys.complete('acc_1', 'k-op', 201, {}, 'done');
  assert.equal(await keys.reopenOperation('acc_1', 'k-op', 'hash-1', 9_000, 8_000), false, 'a settled answer is replayed, never re-opened');
  assert.equal((await keys.get('acc_1', 'k-op'))!.operationSeq, 4);
});

test('50 concurrent claims of one new key from 3 processes: exactly one is true', { skip: NO_PG }, async () => {
  const procs = await processes();
  for (let round = 0; round < 5; round++) {
    const key = `k-race-${round}`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => procs[i % 3].claim('acc_1', key, `hash-${i}`, 10_000, TTL)));
    const winners = results.flatMap((won, i) => (won ? [i] : []));
    assert.equal(winners.length, 1, `round ${round}: ${winners.join()}`);
    assert.equal((await keys.get('acc_1', key))!.requestHash, `hash-${winners[0]}`, 'the winner is the one stored');
  }
});

test('50 concurrent claims of one expired key from 3 processes: exactly one takes it over', { skip: NO_PG }, async () => {
  const procs = await processes();
  for (let round = 0; round < 5; round++) {
    const key = `k-race-expired-${round}`;
    assert.equal(await keys.claim('acc_1', key, 'hash-old', 0, 1), true);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => procs[i % 3].claim('acc_1', key, `hash-${i}`, 10_000, TTL)));
    const winners = results.flatMap((won, i) => (won ? [i] : []));
    assert.equal(winners.length, 1, `round ${round}: ${winners.join()}`);
    assert.equal((await keys.get('acc_1', key))!.requestHash, `hash-${winners[0]}`);
  }
});

test('takeOverStale: only an unfinished, unlinked, old enough claim of the same request, and only one taker', { skip: NO_PG }, async () => {
  await keys.claim('acc_1', 'k-stale', 'hash-s', 1_000, TTL);
  assert.equal(await keys.takeOverStale('acc_1', 'k-stale', 'hash-s', 5_000, 999), false, 'not old enough');
  assert.equal(await keys.takeOverStale('acc_1', 'k-stale', 'hash-other', 5_000, 1_000), false, 'another request body');
  assert.equal(await keys.takeOverStale('acc_1', 'k-missing', 'hash-s', 5_000, 1_000), false);
  const procs = await processes();
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => procs[i % 3].takeOverStale('acc_1', 'k-stale', 'hash-s', 5_000 + i, 1_000)));
  assert.equal(results.filter(Boolean).length, 1, 'one taker');
  const now = 5_000 + results.indexOf(true);
  assert.equal((await keys.get('acc_1', 'k-stale'))!.createdAt, now, "the taker's clock is the claim's new start");

  await keys.claim('acc_1', 'k-linked', 'hash-l', 1_000, TTL);
  await keys.linkCharge('acc_1', 'k-linked', 'chg_9');
  assert.equal(await keys.takeOverStale('acc_1', 'k-linked', 'hash-l', 5_000, 1_000), false, 'a charge was created: never taken over');
  await keys.claim('acc_1', 'k-done', 'hash-d', 1_000, TTL);
  await keys.complete('acc_1', 'k-done', 201, {}, '{}');
  assert.equal(await keys.takeOverStale('acc_1', 'k-done', 'hash-d', 5_000, 1_000), false, 'a finished request is replayed, not redone');
});

test('release forgets only an unfinished claim', { skip: NO_PG }, async () => {
  await keys.claim('acc_1', 'k-rel', 'hash', 1_000, TTL);
  await keys.release('acc_1', 'k-rel');
  assert.equal(await keys.get('acc_1', 'k-rel'), undefined);
  await keys.claim('acc_1', 'k-rel-done', 'hash', 1_000, TTL);
  await keys.complete('acc_1', 'k-rel-done', 402, {}, '{}');
  await keys.release('acc_1', 'k-rel-done');
  assert.equal((await keys.get('acc_1', 'k-rel-done'))!.statusCode, 402);
});

test('purgeExpired deletes what expired by now and says how many', { skip: NO_PG }, async () => {
  await insertPgAccount(db.pool, 'acc_purge');
  const before = (await db.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM idempotency_keys WHERE expires_at <= 50000000')).rows[0].n;
  for (let i = 0; i < 4; i++) await keys.claim('acc_purge', `k-p-${i}`, 'h', 50_000_000 - 1_000 + i * 500, 600);
  // Expiring at 49_999_600, 50_000_100, 50_000_600, 50_001_100: two by 50_000_100.
  assert.equal(await keys.purgeExpired(50_000_100), before + 2);
  assert.deepEqual([await keys.get('acc_purge', 'k-p-0'), await keys.get('acc_purge', 'k-p-1')], [undefined, undefined]);
  assert.ok(await keys.get('acc_purge', 'k-p-2'));
  assert.equal(await keys.purgeExpired(50_000_100), 0);
});
