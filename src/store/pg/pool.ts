import os from 'node:os';
import pg from 'pg';

/** int8 (BIGINT): COUNT(*), and every INTEGER column of the SQLite schema. */
const INT8_OID = 20;

/**
 * BIGINT comes back as a JS number, as better-sqlite3 gives INTEGER: every value the schema keeps is cents, epoch
 * milliseconds or a count, all below 2^53. One that is not would lose digits silently, so it throws instead: a wrong
 * amount must never be read as a right one.
 */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`BIGINT ${text} is outside the exact range of a JS number`);
  return n;
}

// Per pool, not pg.types.setTypeParser: the process-wide registry would change every other pg user in the process.
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PgPoolOptions {
  /** Connections held at most (pg's default is 10). */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * An idle connection the server dropped (restart, failover, a terminated backend). The pool has already discarded
   * it and the next query opens a new one; without a listener pg's 'error' event would end the process.
   */
  onIdleError?: (err: Error) => void;
}

/**
 * `url` naming the OS user when neither it nor PGUSER names a user, as psql (libpq) does: pg falls back to $USER
 * only, which a service manager or CI may not set ("no PostgreSQL user name specified in startup packet").
 */
export function withDefaultUser(url: string): string {
  if (process.env.PGUSER || process.env.USER) return url;
  try {
    const u = new URL(url);
    if (u.username || !u.host) return url; // a socket URL (postgres:///db?host=/run/postgresql) keeps pg's defaults
    u.username = os.userInfo().username;
    return u.toString();
  } catch {
    return url; // not a URL pg would read either: let pg say so
  }
}

/** A pool on `url` (postgres://...) whose BIGINT columns read as numbers. */
export function createPgPool(url: string, opts: PgPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withDefaultUser(url),
    max: opts.max,
    application_name: opts.applicationName ?? 'routegate',
    types: TYPES,
  });
  pool.on('error', opts.onIdleError ?? (() => {}));
  return pool;
}

/**
 * What a repository runs its statements on: the pool (each statement its own transaction) or the client of an
 * open transaction. Both pg.Pool and pg.PoolClient satisfy it.
 */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}
