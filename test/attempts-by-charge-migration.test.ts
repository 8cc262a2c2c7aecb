import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store';
import { migrate, MIGRATIONS_DIR } from '../src/store/migrate';
import { databaseAtVersion, insertAccount } from './helpers/older-database';

// Migration 015 rebuilds charge_attempts keyed by (charge_id, seq) without a rowid: every attempt written before it
// is read back whole and in order, an in_flight one can still be finished, and a database whose attempts repeat a
// (charge_id, seq) stops the migration with everything still in place.

type Attempt = [chargeId: string, seq: number, operation: string, outcome: string, externalId: string | null, idempotencyKey: string | null, amount: number | null];

function databaseWithAttempts(attempts: Attempt[]): string {
  return databaseAtVersion(14, (db) => {
    insertAccount(db, 'acc_a');
    const now = '2030-01-01T00:00:00.000Z';
    const charge = db.prepare(`INSERT INTO charges (id, account_id, gateway, payment_method, status, amount, currency, created_at, updated_at)
      VALUES (?, 'acc_a', 'pagarme', 'credit_card', 'approved', 1000, 'BRL', ?, ?)`);
    for (const id of new Set(attempts.map((a) => a[0]))) charge.run(id, now, now);
    const attempt = db.prepare(`INSERT INTO charge_attempts (charge_id, seq, operation, gateway, outcome, external_id, idempotency_key, amount, duration_ms, created_at)
      VALUES (?, ?, ?, 'pagarme', ?, ?, ?, ?, 12, ?)`);
    // Inserted out of order: the rowid order is not the attempts' order.
    for (const a of [...attempts].reverse()) attempt.run(...a, now);
  });
}

test('after migration 015 the attempts stored before it read back whole, in order, and an in_flight one can be finished', async () => {
  const store = openSqliteStore(databaseWithAttempts([
    ['chg_1', 1, 'charge', 'success', null, 'chg_1-1', null],
    ['chg_1', 2, 'refund', 'success', 're_1', 'chg_1-2', 400],
    ['chg_1', 3, 'refund', 'in_flight', null, 'chg_1-3', null],
    ['chg_2', 1, 'charge', 'decline', null, 'chg_2-1', null],
  ]));
  try {
    const attempts = await store.charges.attempts('chg_1');
    assert.deepEqual(attempts.map((a) => [a.seq, a.operation, a.outcome, a.externalId, a.amount, a.durationMs]), [
      [1, 'charge', 'success', undefined, undefined, 12],
      [2, 'refund', 'success', 're_1', 400, 12],
      [3, 'refund', 'in_flight', undefined, undefined, 12],
    ]);
    await store.commit((tx) => tx.charges.finishAttempt('chg_1', { seq: 3, operation: 'refund', gateway: 'pagarme', outcome: 'success', externalId: 're_2', amount: 600, durationMs: 30 }));
    assert.deepEqual((await store.charges.attempts('chg_1')).map((a) => [a.seq, a.outcome, a.amount]), [[1, 'success', undefined], [2, 'success', 400], [3, 'success', 600]]);
    assert.deepEqual((await store.charges.attempts('chg_2')).map((a) => [a.seq, a.outcome]), [[1, 'decline']]);

    const table = store.db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'charge_attempts'").pluck().get();
    assert.equal(table, 1, 'charge_attempts has no rowid');
    const keys = store.db.prepare("SELECT name FROM pragma_index_xinfo('sqlite_autoindex_charge_attempts_1') WHERE key = 1 ORDER BY seqno").pluck().all();
    assert.deepEqual(keys, ['charge_id', 'seq']);
    const indexes = store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'charge_attempts' AND sql IS NOT NULL").pluck().all();
    // Migration 017's partial index holds only the follow-ups whose outcome is unknown (the reconciler's sweep).
    assert.deepEqual(indexes, ['charge_attempts_unsettled'], 'no second index on the same columns');
    await assert.rejects(
      store.commit((tx) => tx.charges.addAttempt('chg_1', { seq: 3, operation: 'refund', gateway: 'pagarme', outcome: 'in_flight', durationMs: 0 })),
      /UNIQUE|PRIMARY KEY/, 'an operation number is taken once',
    );
  } finally {
    await store.close();
  }
});

test('attempts that repeat a (charge_id, seq) stop migration 015, and nothing stored is lost', () => {
  const file = databaseWithAttempts([
    ['chg_1', 1, 'charge', 'success', null, 'chg_1-1', null],
    ['chg_1', 1, 'charge', 'failed', null, 'chg_1-1', null],
  ]);
  const db = new Database(file);
  try {
    assert.throws(() => migrate(db, MIGRATIONS_DIR), /UNIQUE|PRIMARY KEY/);
    assert.equal(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get(), 14, 'still at 014');
    assert.equal(db.prepare("SELECT count(*) FROM charge_attempts WHERE charge_id = 'chg_1'").pluck().get(), 2);
    assert.equal(db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'charge_attempts'").pluck().get(), 0, 'the old table, rowid and all');
  } finally {
    db.close();
  }
});
