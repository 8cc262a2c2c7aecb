import { nowIso } from '../db';
import type { InvitationRow, LoginRow } from '../logins';
import { atomically, type Queryable } from './queryable';

// E-mails match whatever their ASCII case, as SQLite's COLLATE NOCASE did, through the lower(email) unique
// indexes. The parameter is folded under COLLATE "C" like the column: under the database's default collation
// lower() would also fold non-ASCII letters ('É'), and an address stored as typed would stop matching itself.
const BY_EMAIL = 'lower(email) = lower($1 COLLATE "C")';

const SQL = {
  operatorByEmail: `SELECT id, email, password_hash FROM operators WHERE ${BY_EMAIL}`,
  operatorById: 'SELECT id, email, password_hash FROM operators WHERE id = $1',
  insertOperator: 'INSERT INTO operators (id, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)',
  updateOperator: 'UPDATE operators SET password_hash = $1, updated_at = $2 WHERE id = $3',
  ownerByEmail: `SELECT account_id AS id, email, password_hash FROM account_owners WHERE ${BY_EMAIL}`,
  ownerByAccount: 'SELECT account_id AS id, email, password_hash FROM account_owners WHERE account_id = $1',
  upsertOwner: `INSERT INTO account_owners (account_id, email, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
    ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
  // Two invitations of one account made at once in two processes queue on the account's row, so the later one
  // sees the earlier one and ends it: one link works.
  lockAccount: 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE',
  invite: `WITH dropped AS (UPDATE invitations SET used_at = $3 WHERE account_id = $2 AND used_at IS NULL)
    INSERT INTO invitations (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
  invitationByHash: 'SELECT account_id, expires_at, used_at FROM invitations WHERE token_hash = $1',
  markUsed: 'UPDATE invitations SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL',
  revokeInvitations: 'UPDATE invitations SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL',
};

type Raw = { id: string; email: string; password_hash: string };

/** Dashboard sign-ins and owners' invitations (PostgreSQL; the contract of LoginsRepository, asynchronous). */
export class PgLoginsRepository {
  constructor(private readonly q: Queryable) {}

  async operator(email: string): Promise<LoginRow | undefined> {
    return toLogin((await this.q.query<Raw>({ name: 'logins.operatorByEmail', text: SQL.operatorByEmail, values: [email] })).rows[0]);
  }

  async operatorById(id: string): Promise<LoginRow | undefined> {
    return toLogin((await this.q.query<Raw>({ name: 'logins.operatorById', text: SQL.operatorById, values: [id] })).rows[0]);
  }

  async createOperator(id: string, email: string, passwordHash: string): Promise<void> {
    await this.q.query({ name: 'logins.insertOperator', text: SQL.insertOperator, values: [id, email, passwordHash, nowIso()] });
  }

  async setOperatorPassword(id: string, passwordHash: string): Promise<void> {
    await this.q.query({ name: 'logins.updateOperator', text: SQL.updateOperator, values: [passwordHash, nowIso(), id] });
  }

  async owner(email: string): Promise<LoginRow | undefined> {
    return toLogin((await this.q.query<Raw>({ name: 'logins.ownerByEmail', text: SQL.ownerByEmail, values: [email] })).rows[0]);
  }

  async ownerOf(accountId: string): Promise<LoginRow | undefined> {
    return toLogin((await this.q.query<Raw>({ name: 'logins.ownerByAccount', text: SQL.ownerByAccount, values: [accountId] })).rows[0]);
  }

  async setOwner(accountId: string, email: string, passwordHash: string): Promise<void> {
    await this.q.query({ name: 'logins.upsertOwner', text: SQL.upsertOwner, values: [accountId, email, passwordHash, nowIso()] });
  }

  /** A new invitation; any earlier unused one of the account stops working. */
  async invite(accountId: string, tokenHash: string, expiresAt: number): Promise<void> {
    await atomically(this.q, async (tx) => {
      await tx.query({ name: 'logins.lockAccount', text: SQL.lockAccount, values: [accountId] });
      await tx.query({ name: 'logins.invite', text: SQL.invite, values: [tokenHash, accountId, nowIso(), expiresAt] });
    });
  }

  /** Every unused invitation of the account stops working (a password was set, changed or reset). */
  async revokeInvitations(accountId: string): Promise<void> {
    await this.q.query({ name: 'logins.revokeInvitations', text: SQL.revokeInvitations, values: [nowIso(), accountId] });
  }

  async invitation(tokenHash: string): Promise<InvitationRow | undefined> {
    const { rows } = await this.q.query<{ account_id: string; expires_at: number | string; used_at: string | null }>({ name: 'logins.invitationByHash', text: SQL.invitationByHash, values: [tokenHash] });
    const r = rows[0];
    return r && { accountId: r.account_id, expiresAt: Number(r.expires_at), usedAt: r.used_at };
  }

  /** Marks it used; false when it already was (two tabs racing on one link). */
  async useInvitation(tokenHash: string): Promise<boolean> {
    const res = await this.q.query({ name: 'logins.markUsed', text: SQL.markUsed, values: [nowIso(), tokenHash] });
    return res.rowCount === 1;
  }
}

function toLogin(row: Raw | undefined): LoginRow | undefined {
  return row && { id: row.id, email: row.email, passwordHash: row.password_hash };
}
