import type { Store } from './types';
import { openSqliteStore } from './index';

/** The store the configuration names: the SQLite file at `dbPath` (the embedded default). */
export async function openStore(config: { dbPath: string; databaseUrl?: string }): Promise<Store> {
  if (config.databaseUrl) throw new Error('DATABASE_URL (PostgreSQL) is not supported by this build');
  return openSqliteStore(config.dbPath);
}
