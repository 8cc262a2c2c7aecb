import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openSqliteStore, type SqliteStore } from '../src/store/index';
import { IdempotencyPurger } from '../src/http/idempotency-purge';
import { eventually } from './helpers/e2e';
import { DAY, keyedChargeService } from './helpers/keyed-charges';
import { insertAccount } from './helpers/older-database';
import { SQLITE_ONLY } from './helpers/test-db';

// Idempotency keys are kept 24 hours (DESIGN.md), each with the answer it replays: something must delete them after.

const silent = pino({ level: 'silent' });

test('expired idempotency keys are purged in batches; a live key still replays its answer', async (t) => {
  const { store, accountId, purgeNow, create } = await keyedChargeService(t);
  const first = await create('live-1');
  assert.equal(first.status, 201);

  // Claimed two days ago with a day to live: 2,500 of them, more than one batch.
  const claimedAt = Date.now() - 2 * DAY;
  await store.commit(async (tx) => {
    for (let i = 0; i < 2_500; i++) assert.equal(await tx.idempotency.claim(accountId, `old-${i}`, 'hash', claimedAt, DAY), true);
  });
  assert.equal(await purgeNow(), 2_500);
  assert.equal(await store.idempotency.get(accountId, 'old-0'), undefined);
  assert.equal(await store.idempotency.get(accountId, 'old-2499'), undefined);
  assert.equal(await purgeNow(), 0, 'nothing left to purge');

  const replay = await create('live-1');
  assert.equal(replay.status, 201);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.deepEqual(replay.body, first.body);
});

/** A purger, not started, on a SQLite file of its own that the test removes when it ends. */
function purgerOnFreshStore(t: TestContext): { store: SqliteStore; purger: IdempotencyPurger } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-purge-'));
  const store = openSqliteStore(path.join(dir, 'rg.db'));
  const purger = new IdempotencyPurger(store, silent, 60_000);
  t.after(async () => {
    await purger.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { store, purger };
}

test('the purger runs at start-up, and finds expired keys through an index', { skip: SQLITE_ONLY }, async (t) => {
  const { store, purger } = purgerOnFreshStore(t);
  insertAccount(store.db, 'acc_purge');
  await store.writeOne((r) => r.idempotency.claim('acc_purge', 'expired', 'hash', Date.now() - 2 * DAY, DAY));
  await store.writeOne((r) => r.idempotency.claim('acc_purge', 'live', 'hash', Date.now(), DAY));
  purger.start();
  await eventually(async () => (await store.idempotency.get('acc_purge', 'expired')) === undefined);
  assert.ok(await store.idempotency.get('acc_purge', 'live'));

  const plan = store.db.prepare('EXPLAIN QUERY PLAN SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?')
    .all(Date.now(), 1_000) as Array<{ detail: string }>;
  assert.ok(plan.some((step) => /USING (COVERING )?INDEX idempotency_keys_expires/.test(step.detail)), JSON.stringify(plan));
  assert.ok(!plan.some((step) => /^SCAN|TEMP B-TREE/.test(step.detail)), JSON.stringify(plan));
});

test('the same pass deletes expired installment quotes, and keeps fresh ones', { skip: SQLITE_ONLY }, async (t) => {
  const { store, purger } = purgerOnFreshStore(t);
  insertAccount(store.db, 'acc_quotes');
  const quote = (id: string, expiresAt: number) => store.writeOne((r) => r.installmentQuotes.insert({
    id, accountId: 'acc_quotes', amount: 100000, gateway: 'gw', bin: '424242', createdAt: new Date().toISOString(), expiresAt: new Date(expiresAt).toISOString(),
    plans: [{ count: 2, installmentAmount: 50000, totalAmount: 100000, interestFree: true }],
  }));
  for (let i = 0; i < 1_200; i++) await quote(`iq_old_${i}`, Date.now() - 60_000 - i);
  await quote('iq_fresh', Date.now() + 30 * 60_000);
  await purger.pass();
  assert.equal(await store.installmentQuotes.get('acc_quotes', 'iq_old_0'), undefined);
  assert.equal(await store.installmentQuotes.get('acc_quotes', 'iq_old_1199'), undefined, 'more than one batch');
  assert.equal((await store.installmentQuotes.get('acc_quotes', 'iq_fresh'))?.plans[0].totalAmount, 100000);
});
