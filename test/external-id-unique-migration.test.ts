import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openSqliteStore } from '../src/store';
import { ROOT } from '../src/lib/paths';
import { databaseAtVersion, insertAccount } from './helpers/older-database';
import { adminUrl } from './helpers/pg-scratch';
import { unlessAvailable } from './helpers/services';

/** The charge findCharge names (its other fields are the receiver's shortcuts, checked where they matter). */
const whose = (c: { id: string; accountId: string } | undefined) => c && { id: c.id, accountId: c.accountId };

const NO_PG = unlessAvailable('postgres');

// Migration 019 (issue 39 item 5): a charge's gateway id is unique per gateway across accounts. Before it a webhook
// could set a charge's gateway id, so a database may hold the same id on two charges (a tenant's planted copy of
// another's). The migration keeps the id on the charge created first, moves the others' aside with their native-id
// rows, and adds the unique index; on SQLite and on PostgreSQL.

const NOW = '2030-01-01T00:00:00.000Z';
const LATER = '2030-01-02T00:00:00.000Z';

test('SQLite: duplicates of a gateway id are moved aside (the first charge keeps it), then the index refuses another', async () => {
  const file = databaseAtVersion(18, (db) => {
    insertAccount(db, 'acc_victim');
    insertAccount(db, 'acc_attacker');
    const charge = db.prepare(`INSERT INTO charges (id, account_id, gateway, external_id, payment_method, status, amount, currency, created_at, updated_at)
      VALUES (?, ?, 'stripe', ?, 'pix', 'pending', 1000, 'BRL', ?, ?)`);
    charge.run('chg_victim', 'acc_victim', 'pi_shared', NOW, NOW);
    charge.run('chg_attacker', 'acc_attacker', 'pi_shared', LATER, LATER);
    charge.run('chg_alone', 'acc_attacker', 'pi_alone', LATER, LATER);
    db.prepare('INSERT INTO charge_native_ids (native_id, account_id, charge_id) VALUES (?, ?, ?)').run('pi_shared', 'acc_attacker', 'chg_attacker');
  });
  const store = openSqliteStore(file);
  try {
    const ext = (id: string) => store.db.prepare('SELECT external_id FROM charges WHERE id = ?').pluck().get(id);
    assert.equal(ext('chg_victim'), 'pi_shared');
    assert.equal(ext('chg_attacker'), null);
    assert.equal(ext('chg_alone'), 'pi_alone');
    assert.deepEqual(store.db.prepare('SELECT charge_id, account_id, gateway, external_id FROM charge_external_id_conflicts').all(),
      [{ charge_id: 'chg_attacker', account_id: 'acc_attacker', gateway: 'stripe', external_id: 'pi_shared' }]);
    assert.equal(store.db.prepare("SELECT count(*) FROM charge_native_ids WHERE native_id = 'pi_shared'").pluck().get(), 0);
    assert.deepEqual(whose(await store.webhookEvents.findCharge('stripe', 'pi_shared', undefined)), { id: 'chg_victim', accountId: 'acc_victim' });
    assert.throws(() => store.db.prepare("UPDATE charges SET external_id = 'pi_shared' WHERE id = 'chg_attacker'").run(), /UNIQUE constraint failed/);
    assert.equal(store.db.prepare("SELECT flag FROM webhook_events LIMIT 0").all().length, 0, 'webhook_events.flag exists');
  } finally {
    await store.close();
  }
});

test('PostgreSQL: the same migration, the same outcome', { skip: NO_PG }, async () => {
  const name = `rg_m19_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const dir = path.join(ROOT, 'src', 'store', 'pg', 'migrations');
    const files = fs.readdirSync(dir).filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f)).sort();
    for (const f of files.filter((f) => Number(f.slice(0, 3)) <= 18)) await db.query(fs.readFileSync(path.join(dir, f), 'utf8'));
    for (const id of ['acc_victim', 'acc_attacker']) {
      await db.query("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES ($1, $1, 'x@example.com', $2, $3, $3)", [id, `tok_${id}`, NOW]);
    }
    const charge = (id: string, account: string, ext: string, at: string) => db.query(
      `INSERT INTO charges (id, account_id, gateway, external_id, payment_method, status, amount, currency, created_at, updated_at)
       VALUES ($1, $2, 'stripe', $3, 'pix', 'pending', 1000, 'BRL', $4, $4)`, [id, account, ext, at]);
    await charge('chg_victim', 'acc_victim', 'pi_shared', NOW);
    await charge('chg_attacker', 'acc_attacker', 'pi_shared', LATER);
    await db.query("INSERT INTO charge_native_ids (native_id, account_id, charge_id) VALUES ('pi_shared', 'acc_attacker', 'chg_attacker')");

    await db.query(fs.readFileSync(path.join(dir, files.find((f) => f.startsWith('019-'))!), 'utf8'));
    const { rows } = await db.query('SELECT id, external_id FROM charges ORDER BY id');
    assert.deepEqual(rows, [{ id: 'chg_attacker', external_id: null }, { id: 'chg_victim', external_id: 'pi_shared' }]);
    assert.deepEqual((await db.query('SELECT charge_id, external_id FROM charge_external_id_conflicts')).rows, [{ charge_id: 'chg_attacker', external_id: 'pi_shared' }]);
    assert.equal((await db.query("SELECT count(*)::int AS n FROM charge_native_ids WHERE native_id = 'pi_shared'")).rows[0].n, 0);
    await assert.rejects(db.query("UPDATE charges SET external_id = 'pi_shared' WHERE id = 'chg_attacker'"), /charges_gateway_external_id/);
    await db.query('SELECT flag FROM webhook_events LIMIT 0');
  } finally {
    await db.end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
});
