import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ChargeRecord } from '../src/store/charges';
import { ChargesRepository } from '../src/store/charges';
import { openDatabase } from '../src/store/db';
import { openSqliteStore } from '../src/store';
import { PgChargesRepository } from '../src/store/pg/charges';
import { newChargeId } from '../src/charges/orchestrator';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 16: the create path's fewer statements (the first operation number taken with the insert; the last write and
// the lock's release in one UPDATE, read back in its transaction), on both stores, and time-ordered charge ids.

type Repo = Pick<ChargesRepository, 'insert' | 'nextSeq' | 'settle' | 'update' | 'getById' | 'findByAnyId' | 'tryLock'>;

let pgDb: MigratedPgDatabase;
const stores: Array<{ name: string; repo: () => Repo; lockOf: (id: string) => Promise<unknown[]> }> = [];
const lite = openDatabase(':memory:');
lite.prepare("INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES ('acc_1', 'x', 'x@example.com', 1, 'whk_1', 'x', 'x')").run();
const liteRepo = new ChargesRepository(lite);
stores.push({
  name: 'SQLite', repo: () => liteRepo,
  lockOf: async (id) => Object.values(lite.prepare('SELECT lock_owner, lock_expires_at FROM charges WHERE id = ?').get(id) as object),
});

before(async () => {
  if (NO_PG) return;
  pgDb = await migratedPgDatabase();
  await insertPgAccount(pgDb.pool, 'acc_1');
  const pgRepo = new PgChargesRepository(pgDb.pool, {});
  stores.push({
    name: 'PostgreSQL', repo: () => pgRepo as unknown as Repo,
    lockOf: async (id) => Object.values((await pgDb.pool.query({ text: 'SELECT lock_owner, lock_expires_at FROM charges WHERE id = $1', values: [id] })).rows[0]),
  });
});

after(async () => {
  await pgDb?.close();
  lite.close();
});

function charge(): ChargeRecord {
  return {
    id: newChargeId(), accountId: 'acc_1', gateway: 'pagarme', primaryGateway: 'pagarme', fallbackUsed: false, externalId: null,
    paymentMethod: 'credit_card', status: 'processing', amount: 1999, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null,
    description: 'Pedido', customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
    boletoBarcodeNumber: null, pixExpiresAt: null, boletoDueDate: null, card: null, metadata: null, split: null, dispute: null, installments: null, declineCode: null,
    errorCode: null, errorMessage: null, createdAt: '2026-11-26T10:00:00.000Z', updatedAt: '2026-11-26T10:00:00.000Z',
  };
}

test('a charge inserted with its first operation number gives the next one after it', async () => {
  for (const s of stores) {
    const c = charge();
    await s.repo().insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    assert.equal(await s.repo().nextSeq(c.id), 2, s.name);
    const plain = charge();
    await s.repo().insert(plain, { owner: 'creator', expiresAt: Date.now() + 60_000 });
    assert.equal(await s.repo().nextSeq(plain.id), 1, `${s.name}: without one, numbering starts at 1`);
  }
});

test('settle writes the patch, releases its owner\'s lock and answers the row as a read would', async () => {
  for (const s of stores) {
    const c = charge();
    await s.repo().insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    const settled = await s.repo().settle(c.id, {
      status: 'succeeded', paidAmount: 1999, captured: true, externalId: `ch_${c.id}`, refs: { orderId: `or_${c.id}` },
      card: { brand: 'visa', last4: '4242' } as ChargeRecord['card'],
    }, 'creator');
    assert.deepEqual(settled, await s.repo().getById(c.id), s.name);
    assert.equal(settled.status, 'succeeded');
    assert.equal(settled.captured, true);
    assert.deepEqual(settled.card, { brand: 'visa', last4: '4242' });
    assert.notEqual(settled.updatedAt, c.updatedAt, `${s.name}: updated_at moves`);
    assert.deepEqual(await s.lockOf(c.id), [null, null], `${s.name}: the lock is released`);
    assert.equal((await s.repo().findByAnyId('acc_1', `ch_${c.id}`))?.id, c.id, `${s.name}: the gateway's id is indexed`);
    // Refs ids only in the charge's gateway's compatibility mode (test/native-id-index.test.ts); acc_1 has none.
    assert.equal(await s.repo().findByAnyId('acc_1', `or_${c.id}`), undefined, s.name);
  }
});

test('settle by a request whose lease was taken over still writes, and leaves the new holder\'s lock', async () => {
  for (const s of stores) {
    const c = charge();
    await s.repo().insert(c, { owner: 'creator', expiresAt: Date.now() - 1 }, 1);
    assert.equal(await s.repo().tryLock(c.id, 'reconciler', Date.now(), 60_000), true, s.name);
    const settled = await s.repo().settle(c.id, { status: 'failed', errorCode: 'GATEWAY_ERROR' }, 'creator');
    assert.equal(settled.status, 'failed', s.name);
    const [owner, expires] = await s.lockOf(c.id);
    assert.equal(owner, 'reconciler', `${s.name}: not released for another holder`);
    assert.ok(Number(expires) > Date.now());
  }
});

test('a stored charge reads back as it was written, every column (booleans, nulls and JSON columns included)', async () => {
  for (const s of stores) {
    const full: ChargeRecord = {
      ...charge(), fallbackUsed: true, externalId: 'ch_full', status: 'approved', paidAmount: 1999, captured: false, customerId: 'cus_1',
      refs: { orderId: 'or_full', chargeId: 'ch_full' }, boletoBarcodeNumber: '34191', pixExpiresAt: '2026-11-27T10:00:00.000Z',
      boletoDueDate: '2026-11-30', card: { brand: 'visa', last4: '4242' } as ChargeRecord['card'], metadata: { order: '42' },
      split: [{ type: 'fixed', recipient_id: 're_1', amount: 999, chargeProcessingFee: true, liable: true }], declineCode: 'none', errorCode: 'E', errorMessage: 'm',
    };
    await s.repo().insert(full, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    assert.deepEqual(await s.repo().getById(full.id), full, s.name);
    const bare = charge();
    await s.repo().insert(bare, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    assert.deepEqual(await s.repo().getById(bare.id), bare, `${s.name}: captured null stays null, not false`);
  }
});

test('settle inside a transaction of the service\'s group commit answers the row as that transaction wrote it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-settle-'));
  const store = openSqliteStore(path.join(dir, 'settle.db'));
  try {
    store.db.prepare("INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES ('acc_1', 'x', 'x@example.com', 1, 'whk_1', 'x', 'x')").run();
    const c = charge();
    let settled: ChargeRecord | undefined;
    await store.commit(async (tx) => {
      await tx.charges.insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
      settled = await tx.charges.settle(c.id, { status: 'approved', paidAmount: 1999, externalId: 'ch_tx' }, 'creator');
    });
    assert.equal(settled?.status, 'approved');
    assert.equal(settled?.externalId, 'ch_tx');
    assert.deepEqual(settled, await store.charges.getById(c.id));
    await assert.rejects(store.commit((tx) => tx.charges.settle('chg_missing', { status: 'failed' }, 'creator').then(() => undefined)), /not stored/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('update sets only its columns and indexes the gateway\'s id it brings under the row\'s account; a charge not stored is left alone', async () => {
  for (const s of stores) {
    const c = charge();
    await s.repo().insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    await s.repo().update(c.id, { gateway: 'asaas' });
    assert.deepEqual({ ...(await s.repo().getById(c.id))!, updatedAt: c.updatedAt }, { ...c, gateway: 'asaas' }, s.name);
    await s.repo().update(c.id, { externalId: `pay_${c.id}`, refs: { chargeId: `ch_${c.id}` } });
    assert.equal((await s.repo().findByAnyId('acc_1', `pay_${c.id}`))?.id, c.id, `${s.name}: the gateway's id`);
    assert.equal(await s.repo().findByAnyId('acc_1', `ch_${c.id}`), undefined, `${s.name}: a refs id, outside compatibility mode`);
    assert.equal(await s.repo().findByAnyId('acc_2', `pay_${c.id}`), undefined, `${s.name}: only in the charge's account`);
    await s.repo().update('chg_missing', { externalId: 'pay_missing' });
    assert.equal(await s.repo().getById('chg_missing'), undefined);
    assert.equal(await s.repo().findByAnyId('acc_1', 'pay_missing'), undefined, `${s.name}: no id indexed for a charge not stored`);
  }
});

test('settle of a charge that is not stored fails instead of answering nothing', async () => {
  for (const s of stores) await assert.rejects(() => s.repo().settle('chg_missing', { status: 'failed' }, 'creator'), /not stored/, s.name);
});

test('charge ids are chg_ and 32 hex digits, ordered by creation time, and never repeat', async () => {
  const first = newChargeId();
  await new Promise((r) => setTimeout(r, 2));
  const ids = Array.from({ length: 2000 }, () => newChargeId());
  for (const id of [first, ...ids]) assert.match(id, /^chg_[0-9a-f]{32}$/);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.ok(id > first, 'a later millisecond sorts after');
  const stamp = parseInt(first.slice(4, 16), 16);
  assert.ok(Math.abs(stamp - Date.now()) < 60_000, 'the first 12 digits are the creation time in milliseconds');
});

test('a serving SQLite store checkpoints its WAL from a worker thread: the database file alone holds what was committed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-checkpoint-'));
  const file = path.join(dir, 'rg.db');
  const store = openSqliteStore(file, { serving: true });
  try {
    assert.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 10_000, 'the serving thread only checkpoints as a backstop');
    await store.commit(async (tx) => tx.meta.set('checkpoint_probe', 'written'));
    // A copy of the main file without its -wal sees the row only once a checkpoint has copied it there.
    let seen: unknown;
    for (let i = 0; i < 50 && seen !== 'written'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      fs.copyFileSync(file, path.join(dir, 'copy.db'));
      const copy = new Database(path.join(dir, 'copy.db'), { readonly: true });
      try {
        seen = (copy.prepare("SELECT value FROM meta WHERE key = 'checkpoint_probe'").get() as { value?: string } | undefined)?.value;
      } catch {
        seen = undefined; // the copy may predate the meta table's pages
      } finally {
        copy.close();
      }
    }
    assert.equal(seen, 'written');
  } finally {
    await store.close();
  }
  const cli = openSqliteStore(file);
  assert.equal(cli.db.pragma('wal_autocheckpoint', { simple: true }), 1_000, 'a one-off command keeps SQLite\'s own checkpoint');
  await cli.close();
});
