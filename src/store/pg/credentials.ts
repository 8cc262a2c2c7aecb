import { nowIso } from '../db';
import type { Sealed } from '../../lib/crypto';
import type { CredentialRow } from '../credentials';
import type { Queryable } from './queryable';
import { notifySql } from './change-feed';
import { cachedRead, type PgReadCaches, writeThrough } from './read-caches';

const COLUMNS = 'gateway, ciphertext, iv, tag, masked, created_at, updated_at';

const SQL = {
  upsert: `INSERT INTO credentials (account_id, gateway, ciphertext, iv, tag, masked, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
    ON CONFLICT (account_id, gateway) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, tag = excluded.tag,
      masked = excluded.masked, updated_at = excluded.updated_at
    RETURNING ${notifySql('credentials')}`,
  get: `SELECT ${COLUMNS} FROM credentials WHERE account_id = $1 AND gateway = $2`,
  list: `SELECT ${COLUMNS} FROM credentials WHERE account_id = $1 ORDER BY gateway`,
  delete: `DELETE FROM credentials WHERE account_id = $1 AND gateway = $2 RETURNING ${notifySql('credentials')}`,
};

interface Raw { gateway: string; ciphertext: Buffer; iv: Buffer; tag: Buffer; masked: string; created_at: string; updated_at: string }

function toRow(r: Raw): CredentialRow {
  return { gateway: r.gateway, ciphertext: r.ciphertext, iv: r.iv, tag: r.tag, masked: JSON.parse(r.masked), createdAt: r.created_at, updatedAt: r.updated_at };
}

/** Gateway credentials, sealed before they get here (PostgreSQL; the contract of CredentialsRepository, asynchronous). */
export class PgCredentialsRepository {
  constructor(private readonly q: Queryable, private readonly shared: Pick<PgReadCaches, 'feed' | 'credentials'>) {}

  async upsert(accountId: string, gateway: string, sealed: Sealed, masked: Record<string, string>): Promise<void> {
    const values = [accountId, gateway, sealed.ciphertext, sealed.iv, sealed.tag, JSON.stringify(masked), nowIso()];
    await writeThrough(this.shared.feed, () => this.q.query({ name: 'credentials.upsert', text: SQL.upsert, values }));
  }

  /** Read on every charge attempt: cached until any write (see ReadCache, PgChangeFeed; cachedRead). */
  async get(accountId: string, gateway: string): Promise<CredentialRow | undefined> {
    // JSON of the pair, not `${a}:${b}`: an id or gateway holding ':' cannot make two pairs one key.
    return cachedRead(this.q, this.shared.credentials, JSON.stringify([accountId, gateway]), async () => {
      const { rows } = await this.q.query<Raw>({ name: 'credentials.get', text: SQL.get, values: [accountId, gateway] });
      return rows[0] && toRow(rows[0]);
    });
  }

  async list(accountId: string): Promise<CredentialRow[]> {
    const { rows } = await this.q.query<Raw>({ name: 'credentials.list', text: SQL.list, values: [accountId] });
    return rows.map(toRow);
  }

  async delete(accountId: string, gateway: string): Promise<boolean> {
    const res = await writeThrough(this.shared.feed, () => this.q.query({ name: 'credentials.delete', text: SQL.delete, values: [accountId, gateway] }));
    return res.rowCount === 1;
  }
}
