import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createPgPool, withDefaultUser, type Queryable } from '../src/store/pg/pool';
import { atomically } from '../src/store/pg/queryable';
import { freshPgDatabase, type FreshPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

let database: FreshPgDatabase;
let pool: pg.Pool;

before(async () => {
  if (NO_PG) return;
  database = await freshPgDatabase();
  pool = createPgPool(database.url, { max: 2 });
});

after(async () => {
  await pool?.end();
  await database?.drop();
});

test('BIGINT reads as a JS number, exactly, up to 2^53 - 1', { skip: NO_PG }, async () => {
  const { rows } = await pool.query('SELECT 1999::bigint AS cents, 9007199254740991::bigint AS max, COUNT(*) AS n FROM generate_series(1, 3)');
  assert.deepEqual(rows, [{ cents: 1999, max: Number.MAX_SAFE_INTEGER, n: 3 }]);
});

test('a BIGINT past 2^53 fails the query instead of reading as a nearby number', { skip: NO_PG }, async () => {
  await assert.rejects(pool.query('SELECT 9007199254740993::bigint AS v'), /outside the exact range/);
  await assert.rejects(pool.query('SELECT -9007199254740993::bigint AS v'), /outside the exact range/);
});

test('the pool and a transaction client are both Queryable', { skip: NO_PG }, async () => {
  const read = (q: Queryable) => q.query<{ one: number }>({ name: 'pool-test.one', text: 'SELECT $1::bigint AS one', values: [1] });
  assert.equal((await read(pool)).rows[0].one, 1);
  assert.equal(await atomically(pool, async (client) => (await read(client)).rows[0].one), 1);
});

test('atomically commits what resolves and rolls back what throws', { skip: NO_PG }, async () => {
  await pool.query('CREATE TABLE t (v BIGINT)');
  await atomically(pool, (c) => c.query('INSERT INTO t VALUES (1)'));
  await assert.rejects(atomically(pool, async (c) => {
    await c.query('INSERT INTO t VALUES (2)');
    throw new Error('boom');
  }), /boom/);
  assert.deepEqual((await pool.query('SELECT v FROM t')).rows, [{ v: 1 }]);
});

test('a URL without a user names the OS user when neither PGUSER nor USER is set, as psql does', () => {
  const saved = { PGUSER: process.env.PGUSER, USER: process.env.USER };
  try {
    delete process.env.PGUSER;
    delete process.env.USER;
    assert.match(withDefaultUser('postgres://127.0.0.1:5432/test'), /^postgres:\/\/[^@/]+@127\.0\.0\.1:5432\/test$/);
    assert.equal(withDefaultUser('postgres://app@db:5432/rg'), 'postgres://app@db:5432/rg');
    process.env.USER = 'someone';
    assert.equal(withDefaultUser('postgres://127.0.0.1:5432/test'), 'postgres://127.0.0.1:5432/test', "pg's own default applies");
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
});
