import type { DB } from './db';
import { nowIso } from './db';

export interface LoginRow {
  /** The operator's id, or the account id for an owner. */
  id: string;
  email: string;
  passwordHash: string;
}

export interface InvitationRow { accountId: string; expiresAt: number; usedAt: string | null }

/** Dashboard sign-ins: operators and account owners (argon2id hashes only), and owners' one-time invitations. */
export class LoginsRepository {
  private readonly operatorByEmail;
  private readonly operatorByIdStmt;
  private readonly insertOperator;
  private readonly updateOperator;
  private readonly ownerByEmail;
  private readonly ownerByAccount;
  private readonly upsertOwner;
  private readonly insertInvitation;
  private readonly invitationByHash;
  private readonly markUsedStmt;
  private readonly dropInvitations;

  constructor(db: DB) {
    this.operatorByEmail = db.prepare('SELECT id, email, password_hash FROM operators WHERE email = ?');
    this.operatorByIdStmt = db.prepare('SELECT id, email, password_hash FROM operators WHERE id = ?');
    this.insertOperator = db.prepare('INSERT INTO operators (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    this.updateOperator = db.prepare('UPDATE operators SET password_hash = ?, updated_at = ? WHERE id = ?');
    this.ownerByEmail = db.prepare('SELECT account_id AS id, email, password_hash FROM account_owners WHERE email = ?');
    this.ownerByAccount = db.prepare('SELECT account_id AS id, email, password_hash FROM account_owners WHERE account_id = ?');
    this.upsertOwner = db.prepare(`INSERT INTO account_owners (account_id, email, password_hash, created_at, updated_at) VALUES (@id, @email, @hash, @now, @now)
      ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, password_hash = excluded.password_hash, updated_at = excluded.updated_at`);
    this.insertInvitation = db.prepare('INSERT INTO invitations (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
    this.invitationByHash = db.prepare('SELECT account_id, expires_at, used_at FROM invitations WHERE token_hash = ?');
    this.markUsedStmt = db.prepare('UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
    this.dropInvitations = db.prepare('UPDATE invitations SET used_at = ? WHERE account_id = ? AND used_at IS NULL');
  }

  async operator(email: string): Promise<LoginRow | undefined> {
    return toLogin(this.operatorByEmail.get(email));
  }

  async operatorById(id: string): Promise<LoginRow | undefined> {
    return toLogin(this.operatorByIdStmt.get(id));
  }

  async createOperator(id: string, email: string, passwordHash: string): Promise<void> {
    const now = nowIso();
    this.insertOperator.run(id, email, passwordHash, now, now);
  }

  async setOperatorPassword(id: string, passwordHash: string): Promise<void> {
    this.updateOperator.run(passwordHash, nowIso(), id);
  }

  async owner(email: string): Promise<LoginRow | undefined> {
    return toLogin(this.ownerByEmail.get(email));
  }

  async ownerOf(accountId: string): Promise<LoginRow | undefined> {
    return toLogin(this.ownerByAccount.get(accountId));
  }

  async setOwner(accountId: string, email: string, passwordHash: string): Promise<void> {
    this.upsertOwner.run({ id: accountId, email, hash: passwordHash, now: nowIso() });
  }

  /** A new invitation; any earlier unused one of the account stops working. */
  async invite(accountId: string, tokenHash: string, expiresAt: number): Promise<void> {
    this.dropInvitations.run(nowIso(), accountId);
    this.insertInvitation.run(tokenHash, accountId, nowIso(), expiresAt);
  }

  /** Every unused invitation of the account stops working (a password was set, changed or reset). */
  async revokeInvitations(accountId: string): Promise<void> {
    this.dropInvitations.run(nowIso(), accountId);
  }

  async invitation(tokenHash: string): Promise<InvitationRow | undefined> {
    const r = this.invitationByHash.get(tokenHash) as { account_id: string; expires_at: number; used_at: string | null } | undefined;
    return r && { accountId: r.account_id, expiresAt: r.expires_at, usedAt: r.used_at };
  }

  /** Marks it used; false when it already was (two tabs racing on one link). */
  async useInvitation(tokenHash: string): Promise<boolean> {
    return this.markUsedStmt.run(nowIso(), tokenHash).changes === 1;
  }
}

function toLogin(r: unknown): LoginRow | undefined {
  const row = r as { id: string; email: string; password_hash: string } | undefined;
  return row && { id: row.id, email: row.email, passwordHash: row.password_hash };
}
