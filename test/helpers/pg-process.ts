import type pg from 'pg';
import { PgChangeFeed, type PgChangeFeedOptions } from '../../src/store/pg/change-feed';
import { createPgReadCaches, type PgReadCaches } from '../../src/store/pg/read-caches';
import { PgAccountsRepository } from '../../src/store/pg/accounts';
import { PgApiKeysRepository } from '../../src/store/pg/api-keys';
import { PgCredentialsRepository } from '../../src/store/pg/credentials';
import type { ScratchDatabase } from './pg-scratch';

/** What one RouteGate process holds of the PostgreSQL store's cached side: its pool, its change feed, its caches. */
export interface PgProcess {
  pool: pg.Pool;
  feed: PgChangeFeed;
  caches: PgReadCaches;
  accounts: PgAccountsRepository;
  apiKeys: PgApiKeysRepository;
  credentials: PgCredentialsRepository;
  /** Statements run on the pool so far (a cache hit runs none). */
  queries(): number;
  close(): Promise<void>;
}

export async function pgProcess(db: ScratchDatabase, feedOptions: PgChangeFeedOptions = {}, poolConfig: pg.PoolConfig = {}): Promise<PgProcess> {
  const pool = db.newPool(poolConfig);
  let queries = 0;
  pool.on('acquire', () => queries++);
  const feed = PgChangeFeed.fromPool(pool, { onError: () => undefined, ...feedOptions });
  await feed.start();
  const caches = createPgReadCaches(feed);
  return {
    pool,
    feed,
    caches,
    accounts: new PgAccountsRepository(pool, caches),
    apiKeys: new PgApiKeysRepository(pool, caches),
    credentials: new PgCredentialsRepository(pool, caches),
    queries: () => queries,
    async close() {
      await feed.close();
      if (!pool.ended) await pool.end();
    },
  };
}

/**
 * Polls `check` every 5 ms until it holds or `ms` pass; answers whether it held, and after how long. The default is
 * the staleness bound RouteGate promises (3 s, docs/postgres.md), not what a notification takes on an idle machine.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 3_000): Promise<{ ok: boolean; elapsed: number }> {
  const start = Date.now();
  for (;;) {
    if (await check()) return { ok: true, elapsed: Date.now() - start };
    if (Date.now() - start > ms) return { ok: false, elapsed: Date.now() - start };
    await new Promise((r) => setTimeout(r, 5));
  }
}
