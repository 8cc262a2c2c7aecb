import crypto from 'node:crypto';
import pg from 'pg';
import { withDefaultUser } from '../../src/store/pg/pool';

/** The server tests make their databases on; its database is only connected to for CREATE and DROP DATABASE. */
export const TEST_PG_URL = process.env.ROUTEGATE_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/test';

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
