import type { SigningSecretRow } from '../signing-secrets';
import type { Queryable } from './queryable';

interface Raw { id: string; account_id: string; ciphertext: Buffer; iv: Buffer; tag: Buffer; created_at: string; expires_at: number | string | null }

const SQL = {
  insert: `INSERT INTO webhook_signing_secrets (id, account_id, ciphertext, iv, tag, created_at, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, NULL)`,
  active: `SELECT id, account_id, ciphertext, iv, tag, created_at, expires_at FROM webhook_signing_secrets
    WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at DESC, id DESC`,
  expire: 'UPDATE webhook_signing_secrets SET expires_at = $1 WHERE account_id = $2 AND (expires_at IS NULL OR expires_at > $1)',
};

/**
 * An account's webhook signing secrets, sealed (PostgreSQL; the contract of SigningSecretsRepository,
 * asynchronous). Not cached: read once per delivery attempt, so a rotation is seen by every process at once.
 */
export class PgSigningSecretsRepository {
  constructor(private readonly q: Queryable) {}

  async insert(row: Omit<SigningSecretRow, 'expiresAt'>): Promise<void> {
    await this.q.query({ name: 'signingSecrets.insert', text: SQL.insert, values: [row.id, row.accountId, row.ciphertext, row.iv, row.tag, row.createdAt] });
  }

  /** Secrets that still sign at `now`, newest first. */
  async active(accountId: string, now: number): Promise<SigningSecretRow[]> {
    const { rows } = await this.q.query<Raw>({ name: 'signingSecrets.active', text: SQL.active, values: [accountId, now] });
    return rows.map((r) => ({
      id: r.id, accountId: r.account_id, ciphertext: r.ciphertext, iv: r.iv, tag: r.tag, createdAt: r.created_at,
      expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    }));
  }

  /** Every secret still signing stops at `at` (a rotation's overlap end); later expiries are brought forward. */
  async expireAll(accountId: string, at: number): Promise<void> {
    await this.q.query({ name: 'signingSecrets.expire', text: SQL.expire, values: [at, accountId] });
  }
}
