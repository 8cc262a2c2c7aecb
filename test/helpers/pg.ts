import crypto from 'node:crypto';
import pg from 'pg';
import { createPgPool, withDefaultUser, type Queryable } from '../../src/store/pg/pool';
import { migratePg } from '../../src/store/pg/migrate';

import { TEST_PG_URL } from './services';

/** The server tests make their databases on (test/helpers/services.ts); its database is only connected to for CREATE and DROP DATABASE. */
export { TEST_PG_URL };

export interface FreshPgDatabase {
  /** postgres://... naming the new, empty database. */
  url: string;
  /** Drop it, ending any connection still open on it. Safe to call twice. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDefaultUser(TEST_PG_URL), application_name: 'routegate-test-admin' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * An empty database of its own for one test file (`rg_t_<pid>_<random>`), so test files run in parallel with each
 * other and with other checkouts on the same server. Made from template0, which no one connects to (CREATE DATABASE
 * refuses a template that has sessions open).
 */
export async function freshPgDatabase(): Promise<FreshPgDatabase> {
  const name = `rg_t_${process.pid}_${crypto.randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export interface MigratedPgDatabase {
  url: string;
  /** A pool on it (BIGINT as numbers), closed by close(). */
  pool: pg.Pool;
  /** Another pool on the same database, as a second RouteGate process would have; closed by close(). */
  newPool(max?: number): pg.Pool;
  /** End every pool made here and drop the database. */
  close(): Promise<void>;
}

/** freshPgDatabase with every PostgreSQL migration applied. */
export async function migratedPgDatabase(): Promise<MigratedPgDatabase> {
  const database = await freshPgDatabase();
  const pools: pg.Pool[] = [];
  const newPool = (max = 4) => {
    const p = createPgPool(database.url, { max });
    pools.push(p);
    return p;
  };
  const pool = newPool();
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end();
    await database.drop();
    throw err;
  }
  return {
    url: database.url,
    pool,
    newPool,
    async close() {
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    },
  };
}

/** An account row, which charges, customers, coproducers and idempotency keys reference. */
export async function insertPgAccount(q: Queryable, id: string): Promise<void> {
  const at = '2024-01-01T00:00:00.000Z';
  await q.query({
    text: 'INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $5, $5)',
    values: [id, `Loja ${id}`, `${id}@example.com`, `whk_${id}`, at],
  });
}
