import { Pool } from 'pg';
import { ReadCache } from '../read-cache';
import type { AccountRow, SettingsRow } from '../accounts';
import type { ApiKeyRecord } from '../api-keys';
import type { CredentialRow } from '../credentials';

/** The version read caches follow, and what a repository tells it after writing a cached table. */
export interface CacheVersion {
  current(): number;
  bump(): void;
}

/**
 * The read caches of one process, shared by the repositories bound to the pool and those bound to each
 * transaction's client. `feed` is the process's PgChangeFeed.
 */
export interface PgReadCaches {
  feed: CacheVersion;
  accounts: ReadCache<AccountRow>;
  settings: ReadCache<SettingsRow>;
  apiKeys: ReadCache<ApiKeyRecord>;
  credentials: ReadCache<CredentialRow>;
}

export function createPgReadCaches(feed: CacheVersion): PgReadCaches {
  return { feed, accounts: new ReadCache(feed), settings: new ReadCache(feed), apiKeys: new ReadCache(feed), credentials: new ReadCache(feed) };
}

/**
 * A point read through `cache` for a repository bound to the pool. One bound to a client (a transaction) reads
 * through its client and leaves the caches alone: it may see its own uncommitted writes, which must neither be
 * kept for other requests (the transaction may roll back) nor be hidden by a committed row from the cache.
 */
export function cachedRead<V>(q: unknown, cache: ReadCache<V>, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
  return q instanceof Pool ? cache.getAsync(key, load) : load();
}

/** Runs a write to a cached table, then drops this process's cached reads, also when the outcome is unknown. */
export async function writeThrough<T>(feed: CacheVersion, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    feed.bump();
  }
}
