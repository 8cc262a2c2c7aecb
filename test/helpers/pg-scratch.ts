import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ROOT } from '../../src/lib/paths';

// A private PostgreSQL database per test file, with every migration of src/store/pg/migrations applied.
// (Temporary: to be replaced by test/helpers/pg.ts's freshPgDatabase when the store lands.)

// int8 as number, as the store's pool does (counts and epoch ms stay far below 2^53).
pg.types.setTypeParser(20, Number);

const MIGRATIONS = path.join(ROOT, 'src', 'store', 'pg', 'migrations');

/** The server tests use: ROUTEGATE_TEST_PG_URL, else the development machine's (trust auth, OS user). */
export function adminUrl(): string {
  return process.env.ROUTEGATE_TEST_PG_URL ?? `postgres://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/test`;
}

export interface ScratchDatabase {
  name: string;
  /** Connection string of the scratch database. */
  url: string;
  /** A pool on it, ended by drop(). */
  pool: pg.Pool;
  /** Another pool on it (another "process"), ended by drop(). */
  newPool(config?: pg.PoolConfig): pg.Pool;
  /** Ends every pool it made and drops the database, even with connections left open. */
  drop(): Promise<void>;
}

export async function scratchPgDatabase(): Promise<ScratchDatabase> {
  const name = `rg_s_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const pools: pg.Pool[] = [];
  const newPool = (config: pg.PoolConfig = {}) => {
    const pool = new pg.Pool({ connectionString: url.toString(), ...config });
    // As the store's own pools (src/store/pg/pool.ts): an idle connection that PostgreSQL ends (a test's
    // pg_terminate_backend, DROP DATABASE ... WITH (FORCE)) is replaced at the next checkout. Without a listener the
    // pool re-emits its error as an uncaught exception, failing whichever test made that connection.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const drop = async () => {
    await Promise.all(pools.map((p) => (p.ended ? undefined : p.end())));
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  const pool = newPool();
  try {
    const files = fs.readdirSync(MIGRATIONS).filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f)).sort();
    if (files.length === 0) throw new Error(`no migrations in ${MIGRATIONS}`);
    for (const file of files) await pool.query(fs.readFileSync(path.join(MIGRATIONS, file), 'utf8'));
  } catch (err) {
    await drop();
    throw err;
  }
  return { name, url: url.toString(), pool, newPool, drop };
}
