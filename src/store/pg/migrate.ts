import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { ROOT } from '../../lib/paths';

export const PG_MIGRATIONS_DIR = path.join(ROOT, 'src', 'store', 'pg', 'migrations');

/**
 * The advisory lock key every RouteGate process takes while migrating (any constant works, as long as all processes
 * agree and nothing else on the database uses it): ASCII "RGmigrat".
 */
export const MIGRATION_LOCK_KEY = '5928827733931090292';

/**
 * Apply src/store/pg/migrations/NNN-name.sql in order, each once, each in its own transaction, recorded in
 * schema_migrations as src/store/migrate.ts does for SQLite. Several processes starting at once queue on a session
 * advisory lock: the first applies what is missing, the others then find it applied and apply nothing. A process that
 * dies while holding the lock loses it with its connection, and the transaction of the file it was on rolls back.
 */
export async function migratePg(pool: pg.Pool, dir: string = PG_MIGRATIONS_DIR): Promise<string[]> {
  const files = fs.readdirSync(dir).filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f)).sort();
  const client = await pool.connect();
  // Set when the connection may be left mid-transaction or still holding the lock: it is then closed, never reused
  // (closing it ends the session, which rolls back and releases the lock on the server).
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      // Inside the lock: two concurrent CREATE TABLE IF NOT EXISTS can still collide on the catalog.
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL,
        applied_at TEXT COLLATE "C" NOT NULL)`);
      const applied = new Set((await client.query<{ version: string }>('SELECT version::text AS version FROM schema_migrations')).rows.map((r) => Number(r.version)));
      const done: string[] = [];
      for (const file of files) {
        const version = Number(file.slice(0, 3));
        if (applied.has(version)) continue;
        const sql = fs.readFileSync(path.join(dir, file), 'utf8');
        await client.query('BEGIN');
        try {
          await client.query(sql); // no parameters: the simple protocol, which runs every statement of the file
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [version, file, new Date().toISOString()]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {}); // a failed ROLLBACK leaves `broken` to close the connection
          throw Object.assign(new Error(`PostgreSQL migration ${file} failed: ${(err as Error).message}`), { cause: err });
        }
        done.push(file);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch((err: Error) => {
        broken ??= err; // the migrations' own outcome stands; closing the connection releases the lock
      });
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}
