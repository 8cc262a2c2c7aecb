import { randomUUID } from 'node:crypto';
import { nowIso } from '../db';
import type { ApiKeyRecord, LiveKey } from '../api-keys';
import { atomically, type Queryable } from './queryable';
import { notifySql } from './change-feed';
import { cachedRead, type PgReadCaches, writeThrough } from './read-caches';

const SQL = {
  // Two rotations of one account in two processes queue on the account's row; the second then revokes the
  // first one's key too (a later statement reads what committed meanwhile), so one key stays live.
  lockAccount: 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE',
  replace: `WITH revoked AS (UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL)
    INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES ($3, $2, $4, $5, $1) RETURNING ${notifySql('api_keys')}`,
  byHash: 'SELECT id, account_id, revoked_at FROM api_keys WHERE key_hash = $1',
  live: 'SELECT key_hint, created_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1',
};

/** API keys by SHA-256 only (PostgreSQL; the contract of ApiKeysRepository, asynchronous). */
export class PgApiKeysRepository {
  constructor(private readonly q: Queryable, private readonly shared: Pick<PgReadCaches, 'feed' | 'apiKeys'>) {}

  /** Revoke every live key of the account and store the new hash, atomically. */
  async replace(accountId: string, keyHash: string, hint: string): Promise<void> {
    await writeThrough(this.shared.feed, () => atomically(this.q, async (tx) => {
      await tx.query({ name: 'apiKeys.lockAccount', text: SQL.lockAccount, values: [accountId] });
      await tx.query({ name: 'apiKeys.replace', text: SQL.replace, values: [nowIso(), accountId, randomUUID(), keyHash, hint] });
    }));
  }

  /** Read on every authenticated request: cached until any write (see ReadCache, PgChangeFeed; cachedRead). */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return cachedRead(this.q, this.shared.apiKeys, keyHash, async () => {
      const { rows } = await this.q.query<{ id: string; account_id: string; revoked_at: string | null }>({ name: 'apiKeys.byHash', text: SQL.byHash, values: [keyHash] });
      const r = rows[0];
      return r && { id: r.id, accountId: r.account_id, revoked: r.revoked_at !== null };
    });
  }

  async live(accountId: string): Promise<LiveKey | undefined> {
    const { rows } = await this.q.query<{ key_hint: string; created_at: string }>({ name: 'apiKeys.live', text: SQL.live, values: [accountId] });
    const r = rows[0];
    return r && { hint: r.key_hint, createdAt: r.created_at };
  }
}
