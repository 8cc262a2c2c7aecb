import fs from 'node:fs';
import type { SqliteStore, Store } from '../../src/store';
import { freshPgDatabase } from './pg';

/**
 * The store the suite runs on: SQLite (default) or PostgreSQL (`ROUTEGATE_TEST_DB=postgres`, the second pass of
 * .ci/run). On PostgreSQL every service a test starts gets an empty database of its own.
 */
export const TEST_DB: 'sqlite' | 'postgres' = process.env.ROUTEGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** For `{ skip }`: a test about the SQLite file itself (its bytes, its locks, its modes) runs on SQLite only. */
export const SQLITE_ONLY: string | false = TEST_DB === 'postgres' ? 'about the SQLite file itself: runs in the SQLite pass' : false;

/**
 * Everything the store holds, as text, to search for secrets: the SQLite file's bytes (checkpointed, so nothing
 * waits in the -wal file), or every PostgreSQL row cast to text.
 */
export async function storedText(store: Store): Promise<string> {
  if (store.dialect === 'sqlite') {
    const { db } = store as SqliteStore;
    db.pragma('wal_checkpoint(TRUNCATE)');
    return fs.readFileSync(db.name).toString('latin1');
  }
  const tables = await store.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'");
  const rows = await Promise.all(tables.map((t) => store.query(`SELECT t::text AS row FROM "${String(t.name)}" t`)));
  return rows.flat().map((r) => String(r.row)).join('\n');
}

/** The environment that points a service at its database, and how to drop it afterwards. */
export async function testDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (TEST_DB === 'sqlite') return { env: {}, drop: async () => undefined };
  const db = await freshPgDatabase();
  return { env: { DATABASE_URL: db.url }, drop: () => db.drop() };
}
