import type { Store } from './types';
import { openSqliteStore } from './index';

/**
 * The store the configuration names: PostgreSQL when DATABASE_URL is set (several RouteGate processes share it),
 * else the SQLite file at `dbPath` (the embedded default). The PostgreSQL modules load only when asked for.
 * `serving`: the store of a running service (on SQLite, its WAL checkpoints move to a worker thread).
 */
export async function openStore(config: { dbPath: string; databaseUrl?: string }, opts: { serving?: boolean } = {}): Promise<Store> {
  if (config.databaseUrl) {
    const { PgStore } = await import('./pg/index');
    return PgStore.open(config.databaseUrl);
  }
  return openSqliteStore(config.dbPath, opts);
}
