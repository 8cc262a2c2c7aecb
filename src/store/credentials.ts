import type { DB } from './db';
import { nowIso } from './db';
import type { Sealed } from '../lib/crypto';
import { ReadCache, type ExternalWrites } from './read-cache';

export interface CredentialRow extends Sealed {
  gateway: string;
  masked: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** Gateway credentials, one row per account and gateway, sealed with AES-256-GCM before they get here. */
export class CredentialsRepository {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly listStmt;
  private readonly deleteStmt;

  private readonly cache: ReadCache<CredentialRow>;

  constructor(db: DB, external: ExternalWrites) {
    this.cache = new ReadCache(external);
    this.upsertStmt = db.prepare(`INSERT INTO credentials (account_id, gateway, ciphertext, iv, tag, masked, created_at, updated_at)
      VALUES (@accountId, @gateway, @ciphertext, @iv, @tag, @masked, @now, @now)
      ON CONFLICT (account_id, gateway) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, tag = excluded.tag,
        masked = excluded.masked, updated_at = excluded.updated_at`);
    this.getStmt = db.prepare('SELECT * FROM credentials WHERE account_id = ? AND gateway = ?');
    this.listStmt = db.prepare('SELECT * FROM credentials WHERE account_id = ? ORDER BY gateway');
    this.deleteStmt = db.prepare('DELETE FROM credentials WHERE account_id = ? AND gateway = ?');
  }

  async upsert(accountId: string, gateway: string, sealed: Sealed, masked: Record<string, string>): Promise<void> {
    this.cache.clear();
    this.upsertStmt.run({ accountId, gateway, ...sealed, masked: JSON.stringify(masked), now: nowIso() });
  }

  /** Read on every charge attempt: cached until any write (see ReadCache). */
  async get(accountId: string, gateway: string): Promise<CredentialRow | undefined> {
    return this.cache.get(`${accountId}:${gateway}`, () => {
      const r = this.getStmt.get(accountId, gateway) as Raw | undefined;
      return r && toRow(r);
    });
  }

  async list(accountId: string): Promise<CredentialRow[]> {
    return (this.listStmt.all(accountId) as Raw[]).map(toRow);
  }

  async delete(accountId: string, gateway: string): Promise<boolean> {
    this.cache.clear();
    return this.deleteStmt.run(accountId, gateway).changes === 1;
  }
}

interface Raw { gateway: string; ciphertext: Buffer; iv: Buffer; tag: Buffer; masked: string; created_at: string; updated_at: string }

function toRow(r: Raw): CredentialRow {
  return { gateway: r.gateway, ciphertext: r.ciphertext, iv: r.iv, tag: r.tag, masked: JSON.parse(r.masked), createdAt: r.created_at, updatedAt: r.updated_at };
}
