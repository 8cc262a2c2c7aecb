import { LRUCache } from 'lru-cache';
import type { DB } from './db';

/**
 * Tells whether anything else wrote to the database: SQLite's `data_version` changes when another connection
 * (another RouteGate process, the operator CLI) commits, and never for this connection's own writes. Read at
 * most once per event-loop turn, since every request of a turn would read the same value.
 */
export class ExternalWrites {
  private readonly stmt;
  private version: number | undefined;

  constructor(db: DB) {
    this.stmt = db.prepare('PRAGMA data_version').pluck();
  }

  current(): number {
    if (this.version === undefined) {
      this.version = this.stmt.get() as number;
      setImmediate(() => {
        this.version = undefined;
      });
    }
    return this.version;
  }
}

/**
 * Memoized point reads for rows every request needs (API key, account, settings, credentials), bounded (LRU). Entries are
 * dropped when another connection commits or when this process writes through the owning repository, so a key
 * rotated or an account deactivated from the CLI stops working on the next request, as before. Values are
 * frozen: a caller that tried to change one would corrupt every later read.
 */
export class ReadCache<V> {
  // Least recently used entries go first once `maxEntries` is reached. A miss (undefined: no such key or
  // account) is cached too, boxed, since lru-cache stores no undefined values.
  private readonly entries: LRUCache<string, { value: V | undefined }>;
  private seen = -1;
  // Counts clear() calls, so a load in flight across one (getAsync) is not stored: it may have read the old row.
  private cleared = 0;

  /** `external`: ExternalWrites (SQLite) or PgChangeFeed; a different number from `current()` empties the cache. */
  constructor(private readonly external: { current(): number }, maxEntries = 10_000) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, load: () => V | undefined): V | undefined {
    this.follow();
    const hit = this.entries.get(key);
    if (hit) return hit.value;
    const value = load();
    this.entries.set(key, { value: value === undefined ? undefined : deepFreeze(value) });
    return value;
  }

  /**
   * `get` for a load that awaits (PostgreSQL). The value is stored only when nothing changed while it loaded
   * (same version before and after, no clear()): a load that raced a write may have read the row before it.
   * Two concurrent misses of one key may both load.
   */
  async getAsync(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = this.follow();
    const hit = this.entries.get(key);
    if (hit) return hit.value;
    const cleared = this.cleared;
    const value = await load();
    const frozen = value === undefined ? undefined : deepFreeze(value);
    if (this.cleared === cleared && this.seen === version && this.external.current() === version) this.entries.set(key, { value: frozen });
    return frozen;
  }

  /** The source's version now; a new one empties the cache first. */
  private follow(): number {
    const version = this.external.current();
    if (version !== this.seen) {
      this.entries.clear();
      this.seen = version;
    }
    return version;
  }

  clear(): void {
    this.cleared++;
    this.entries.clear();
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value) && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
