import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { openDatabase, type DB } from '../src/store/db';
import { MIGRATIONS_DIR } from '../src/store/migrate';
import { PG_MIGRATIONS_DIR, migratePg } from '../src/store/pg/migrate';
import { createPgPool } from '../src/store/pg/pool';
import { freshPgDatabase, type FreshPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the PostgreSQL migrations are a second dialect of the SQLite ones, never a second schema. After both
// are applied, every table has the same columns (same type and nullability, every text bytewise), and every index
// SQLite has exists in PostgreSQL under the same name over the same keys.

const sqlFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();

let database: FreshPgDatabase;
let pool: pg.Pool;
let sqlite: DB;

before(async () => {
  if (NO_PG) return;
  database = await freshPgDatabase();
  pool = createPgPool(database.url, { max: 2 });
  sqlite = openDatabase(':memory:');
});

after(async () => {
  sqlite?.close();
  await pool?.end();
  await database?.drop();
});

test('both migration folders hold the same numbered files', () => {
  const lite = sqlFiles(MIGRATIONS_DIR);
  assert.ok(lite.length >= 12, 'the SQLite migrations were found');
  for (const f of sqlFiles(PG_MIGRATIONS_DIR)) assert.match(f, /^\d{3}-[\w-]+\.sql$/, `${f} is named NNN-name.sql`);
  assert.deepEqual(sqlFiles(PG_MIGRATIONS_DIR), lite);
});

test('a fresh PostgreSQL database gets every migration once, and a second run applies nothing', { skip: NO_PG }, async () => {
  assert.deepEqual(await migratePg(pool), sqlFiles(PG_MIGRATIONS_DIR));
  assert.deepEqual(await migratePg(pool), []);
  const rows = (await pool.query<{ version: number; name: string; applied_at: string }>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).rows;
  assert.deepEqual(rows.map((r) => r.name), sqlFiles(PG_MIGRATIONS_DIR));
  assert.deepEqual(rows.map((r) => r.version), sqlFiles(PG_MIGRATIONS_DIR).map((f) => Number(f.slice(0, 3))));
  for (const r of rows) assert.ok(!Number.isNaN(Date.parse(r.applied_at)), `${r.name} has an ISO applied_at`);
});

interface Column { type: string; notNull: boolean }

const SQLITE_TYPE_IN_PG: Record<string, string> = { TEXT: 'text', INTEGER: 'bigint', BLOB: 'bytea' };

function sqliteTables(): Map<string, Map<string, Column>> {
  const names = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return new Map(names.map((t) => [t, new Map((sqlite.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string; type: string; notnull: number; pk: number }>)
    .map((c) => [c.name, { type: SQLITE_TYPE_IN_PG[c.type] ?? `sqlite ${c.type}`, notNull: c.notnull === 1 || c.pk > 0 }])),
  ]));
}

async function pgTables(): Promise<Map<string, Map<string, Column & { collation: string | null }>>> {
  const rows = (await pool.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; collation_name: string | null }>(`
    SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.collation_name FROM information_schema.columns c
    JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`)).rows;
  const tables = new Map<string, Map<string, Column & { collation: string | null }>>();
  for (const r of rows) {
    if (!tables.has(r.table_name)) tables.set(r.table_name, new Map());
    tables.get(r.table_name)!.set(r.column_name, { type: r.data_type, notNull: r.is_nullable === 'NO', collation: r.collation_name });
  }
  return tables;
}

test('every table has the same columns in both stores, with the same type and nullability, and text compares bytewise', { skip: NO_PG }, async () => {
  await migratePg(pool);
  const lite = sqliteTables();
  const pgt = await pgTables();
  assert.ok(lite.has('charges') && lite.size > 15, 'the SQLite tables were read');
  const differences: string[] = [];
  for (const t of new Set([...lite.keys(), ...pgt.keys()])) {
    const a = lite.get(t);
    const b = pgt.get(t);
    if (!a || !b) {
      differences.push(`${t}: only in ${a ? 'SQLite' : 'PostgreSQL'}`);
      continue;
    }
    for (const col of new Set([...a.keys(), ...b.keys()])) {
      const x = a.get(col);
      const y = b.get(col);
      if (!x || !y) differences.push(`${t}.${col}: only in ${x ? 'SQLite' : 'PostgreSQL'}`);
      else {
        if (x.type !== y.type) differences.push(`${t}.${col}: ${x.type} in SQLite, ${y.type} in PostgreSQL`);
        if (x.notNull !== y.notNull) differences.push(`${t}.${col}: ${x.notNull ? 'NOT NULL' : 'nullable'} in SQLite only`);
        if (y.type === 'text' && y.collation !== 'C') differences.push(`${t}.${col}: collation ${y.collation ?? 'default'} in PostgreSQL, not "C"`);
      }
    }
  }
  assert.deepEqual(differences, []);
});

interface IndexShape { table: string; unique: boolean; partial: boolean; keys: string[] }

function sqliteIndexes(): { named: Map<string, IndexShape>; implicit: IndexShape[] } {
  const named = new Map<string, IndexShape>();
  const implicit: IndexShape[] = [];
  for (const table of sqliteTables().keys()) {
    for (const ix of sqlite.prepare(`PRAGMA index_list(${table})`).all() as Array<{ name: string; unique: number; origin: string; partial: number }>) {
      const cols = (sqlite.prepare(`PRAGMA index_xinfo(${ix.name})`).all() as Array<{ name: string | null; desc: number; coll: string; key: number }>)
        .filter((c) => c.key === 1)
        // SQLite's NOCASE column is PostgreSQL's unique index on lower(column) (ASCII folding in both, the column being "C").
        .map((c) => (c.coll === 'NOCASE' ? `lower(${c.name})` : c.name!) + (c.desc ? ' DESC' : ''));
      const shape = { table, unique: ix.unique === 1, partial: ix.partial === 1, keys: cols };
      if (ix.origin === 'c') named.set(ix.name, shape);
      else implicit.push(shape); // sqlite_autoindex_*: PRIMARY KEY and UNIQUE constraints, named by SQLite itself
    }
  }
  return { named, implicit };
}

async function pgIndexes(): Promise<Map<string, IndexShape>> {
  const rows = (await pool.query<{ name: string; table: string; unique: boolean; partial: boolean; keys: string[] }>(`
    SELECT ic.relname AS name, tc.relname AS table, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
      ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) || CASE WHEN i.indoption[k - 1] & 1 = 1 THEN ' DESC' ELSE '' END
            FROM generate_series(1, i.indnkeyatts) AS k ORDER BY k) AS keys
    FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
    WHERE tc.relnamespace = current_schema()::regnamespace`)).rows;
  return new Map(rows.map((r) => [r.name, { table: r.table, unique: r.unique, partial: r.partial, keys: r.keys }]));
}

test('every index SQLite has is in PostgreSQL by the same name, over the same keys, and every unique constraint holds in both', { skip: NO_PG }, async () => {
  await migratePg(pool);
  const lite = sqliteIndexes();
  const pgi = await pgIndexes();
  assert.ok(lite.named.has('charges_account_created') && lite.implicit.length > 10, 'the SQLite indexes were read');
  const differences: string[] = [];
  for (const [name, shape] of lite.named) {
    const other = pgi.get(name);
    if (!other) differences.push(`${name} (${shape.table}): missing in PostgreSQL`);
    else if (JSON.stringify(other) !== JSON.stringify(shape)) differences.push(`${name}: ${JSON.stringify(shape)} in SQLite, ${JSON.stringify(other)} in PostgreSQL`);
  }
  for (const shape of lite.implicit) {
    const same = [...pgi.values()].some((o) => o.table === shape.table && o.unique && !o.partial && JSON.stringify(o.keys) === JSON.stringify(shape.keys));
    if (!same) differences.push(`${shape.table}: no unique index on (${shape.keys.join(', ')}) in PostgreSQL`);
  }
  assert.deepEqual(differences, []);
});

test('three processes migrating one fresh database at once all succeed and apply each file once', { skip: NO_PG }, async () => {
  const db = await freshPgDatabase();
  const pools = [1, 2, 3].map(() => createPgPool(db.url, { max: 1 }));
  try {
    const results = await Promise.all(pools.map((p) => migratePg(p)));
    assert.deepEqual(results.flat().sort(), sqlFiles(PG_MIGRATIONS_DIR), `each file applied by exactly one: ${JSON.stringify(results)}`);
    const rows = (await pools[0].query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')).rows;
    assert.deepEqual(rows.map((r) => r.name), sqlFiles(PG_MIGRATIONS_DIR));
    assert.deepEqual(await Promise.all(pools.map((p) => migratePg(p))), [[], [], []]);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
    await db.drop();
  }
});

test('a migration that fails leaves nothing of itself behind and names its file', { skip: NO_PG }, async () => {
  const db = await freshPgDatabase();
  const p = createPgPool(db.url, { max: 1 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-pg-migrations-'));
  try {
    fs.writeFileSync(path.join(dir, '001-ok.sql'), 'CREATE TABLE one (id BIGINT PRIMARY KEY);');
    fs.writeFileSync(path.join(dir, '002-broken.sql'), 'CREATE TABLE two (id BIGINT PRIMARY KEY);\nINSERT INTO two VALUES (1), (1);');
    await assert.rejects(migratePg(p, dir), /002-broken\.sql/);
    assert.deepEqual((await p.query('SELECT name FROM schema_migrations')).rows, [{ name: '001-ok.sql' }]);
    assert.equal((await p.query("SELECT to_regclass('two') AS t")).rows[0].t, null, 'the failed file rolled back whole');
    // The lock was given back: a later run (the file fixed) goes ahead.
    fs.writeFileSync(path.join(dir, '002-broken.sql'), 'CREATE TABLE two (id BIGINT PRIMARY KEY);');
    assert.deepEqual(await migratePg(p, dir), ['002-broken.sql']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await p.end();
    await db.drop();
  }
});
