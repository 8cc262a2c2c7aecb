import type { DB } from './db';
import type { Sealed } from '../lib/crypto';
import { ReadCache, type ExternalWrites } from './read-cache';

export interface SigningSecretRow extends Sealed { id: string; accountId: string; createdAt: string; expiresAt: number | null }

/** An account's webhook signing secrets, sealed; the current one has no expiry, rotated ones keep signing until theirs. */
export class SigningSecretsRepository {
  private readonly insertStmt;
  private readonly activeStmt;
  private readonly expireStmt;
  // Read on every delivery attempt: cached per account as accounts are (ReadCache), so a rotation here or from
  // another connection is seen on the next attempt. The rows that still signed when read; expiry is checked on use.
  private readonly activeCache: ReadCache<SigningSecretRow[]>;

  constructor(db: DB, external: ExternalWrites) {
    this.activeCache = new ReadCache(external);
    this.insertStmt = db.prepare(`INSERT INTO webhook_signing_secrets (id, account_id, ciphertext, iv, tag, created_at, expires_at)
      VALUES (@id, @accountId, @ciphertext, @iv, @tag, @createdAt, NULL)`);
    this.activeStmt = db.prepare('SELECT * FROM webhook_signing_secrets WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, id DESC');
    this.expireStmt = db.prepare('UPDATE webhook_signing_secrets SET expires_at = ? WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)');
  }

  async insert(row: Omit<SigningSecretRow, 'expiresAt'>): Promise<void> {
    this.activeCache.clear();
    this.insertStmt.run(row);
  }

  /** Secrets that still sign at `now`, newest first. */
  async active(accountId: string, now: number): Promise<SigningSecretRow[]> {
    const rows = this.activeCache.get(accountId, () => rowsOf(this.activeStmt.all(accountId, now) as Array<Record<string, unknown>>))!;
    return rows.filter((r) => r.expiresAt === null || r.expiresAt > now);
  }

  /** Every secret still signing stops at `at` (a rotation's overlap end); later expiries are brought forward. */
  async expireAll(accountId: string, at: number): Promise<void> {
    this.activeCache.clear();
    this.expireStmt.run(at, accountId, at);
  }
}

function rowsOf(raw: Array<Record<string, unknown>>): SigningSecretRow[] {
  return raw.map((r) => ({
    id: r.id as string, accountId: r.account_id as string, ciphertext: r.ciphertext as Buffer, iv: r.iv as Buffer, tag: r.tag as Buffer,
    createdAt: r.created_at as string, expiresAt: (r.expires_at as number | null) ?? null,
  }));
}
