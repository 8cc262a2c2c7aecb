import { randomUUID } from 'node:crypto';
import type { DB } from './db';
import { nowIso } from './db';
import { ReadCache, type ExternalWrites } from './read-cache';

export interface ApiKeyRecord { id: string; accountId: string; revoked: boolean }

/** What may be shown of an account's live key: its hint and when it was made. */
export interface LiveKey { hint: string; createdAt: string }

/** API keys by SHA-256 only; the key itself never reaches this table. */
export class ApiKeysRepository {
  private readonly insert;
  private readonly byHash;
  private readonly revokeAll;
  private readonly liveStmt;

  private readonly cache: ReadCache<ApiKeyRecord>;

  constructor(private readonly db: DB, external: ExternalWrites) {
    this.cache = new ReadCache(external);
    this.insert = db.prepare('INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES (?, ?, ?, ?, ?)');
    this.byHash = db.prepare('SELECT id, account_id, revoked_at FROM api_keys WHERE key_hash = ?');
    this.revokeAll = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL');
    this.liveStmt = db.prepare('SELECT key_hint, created_at FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1');
  }

  /** Revoke every live key of the account and store the new hash, atomically. */
  async replace(accountId: string, keyHash: string, hint: string): Promise<void> {
    this.cache.clear();
    this.db.transaction(() => {
      const now = nowIso();
      this.revokeAll.run(now, accountId);
      this.insert.run(randomUUID(), accountId, keyHash, hint, now);
    })();
  }

  /** Read on every authenticated request: cached until any write (see ReadCache). */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.cache.get(keyHash, () => {
      const r = this.byHash.get(keyHash) as { id: string; account_id: string; revoked_at: string | null } | undefined;
      return r && { id: r.id, accountId: r.account_id, revoked: r.revoked_at !== null };
    });
  }

  async live(accountId: string): Promise<LiveKey | undefined> {
    const r = this.liveStmt.get(accountId) as { key_hint: string; created_at: string } | undefined;
    return r && { hint: r.key_hint, createdAt: r.created_at };
  }
}
