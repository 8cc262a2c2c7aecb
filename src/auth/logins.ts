import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import { rgError } from '../errors';
import { randomBase62, sha256Hex } from '../lib/crypto';
import { clock } from '../lib/clock';
import { assertPasswordStrength, dummyHash, hashPassword, verifyPassword } from './passwords';
import { LoginThrottle, type SignInThrottle } from './login-throttle';
import type { SessionService, SessionSubject } from './sessions';

const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Who may sign in to the dashboard: operators (ROUTEGATE_ADMIN_EMAIL, `routegate operators create`) and account
 * owners (password set by the operator or through an invitation). Used by the dashboard, the CLI and the sandbox.
 */
export class LoginService {
  constructor(private readonly store: Store, private readonly sessions: SessionService, readonly throttle: SignInThrottle = new LoginThrottle()) {}

  async createOperator(email: string, password: string): Promise<{ id: string; email: string }> {
    if (await this.store.logins.operator(email)) throw rgError('OPERATOR_EXISTS', { email });
    assertPasswordStrength(password);
    const id = randomUUID();
    await this.store.logins.createOperator(id, email, await hashPassword(password));
    return { id, email };
  }

  /** The operator from the environment: created, or given the configured password when it changed. */
  async ensureOperator(email: string, password: string): Promise<void> {
    const existing = await this.store.logins.operator(email);
    if (!existing) {
      await this.createOperator(email, password);
    } else if (!(await verifyPassword(existing.passwordHash, password))) {
      await this.store.logins.setOperatorPassword(existing.id, await hashPassword(password));
      await this.sessions.endAll({ kind: 'operator', subjectId: existing.id });
    }
  }

  /** Checks the e-mail and password (operators first) within the throttle; the subject to start a session for. */
  async authenticate(email: string, password: string, ip: string): Promise<SessionSubject> {
    const wait = await this.throttle.blockedFor(email, ip);
    if (wait > 0) throw rgError('LOGIN_THROTTLED', { minutes: Math.ceil(wait / 60_000) }, { headers: { 'retry-after': String(Math.ceil(wait / 1000)) } });
    const operator = await this.store.logins.operator(email);
    if (operator && (await verifyPassword(operator.passwordHash, password))) {
      await this.throttle.succeed(email, ip);
      return { kind: 'operator', subjectId: operator.id };
    }
    const owner = await this.store.logins.owner(email);
    // An unknown e-mail costs one hash check like a wrong password, so timing does not tell which e-mails exist.
    if (!operator && !owner) await verifyPassword(await dummyHash(), password);
    if (!owner || !(await verifyPassword(owner.passwordHash, password))) {
      await this.throttle.fail(email, ip);
      throw rgError('LOGIN_FAILED');
    }
    if (!(await this.store.accounts.get(owner.id))?.active) throw rgError('ACCOUNT_INACTIVE_LOGIN');
    await this.throttle.succeed(email, ip);
    return { kind: 'owner', subjectId: owner.id };
  }

  /** Sets (or resets) the owner's password (the account's e-mail signs in); every session and invitation of that owner ends. */
  async setOwnerPassword(accountId: string, password: string): Promise<void> {
    const account = await this.store.accounts.get(accountId);
    if (!account) throw rgError('ACCOUNT_NOT_FOUND', { id: accountId });
    await this.assertOwnerEmailFree(account.email, accountId);
    assertPasswordStrength(password);
    await this.store.logins.setOwner(accountId, account.email, await hashPassword(password));
    await this.endOwnerCredentials(accountId);
  }

  async assertOwnerEmailFree(email: string, accountId?: string): Promise<void> {
    const taken = await this.store.logins.owner(email);
    if (taken && taken.id !== accountId) throw rgError('OWNER_EMAIL_TAKEN', { email });
  }

  /** A signed-in user's own change: the current password first; then every session (and an owner's invitations) ends. */
  async changePassword(subject: SessionSubject, current: string, next: string): Promise<void> {
    const row = subject.kind === 'operator' ? await this.store.logins.operatorById(subject.subjectId) : await this.store.logins.ownerOf(subject.subjectId);
    if (!row || !(await verifyPassword(row.passwordHash, current))) throw rgError('CURRENT_PASSWORD_WRONG');
    assertPasswordStrength(next);
    const hashed = await hashPassword(next);
    if (subject.kind === 'operator') await this.store.logins.setOperatorPassword(row.id, hashed);
    else await this.store.logins.setOwner(row.id, row.email, hashed);
    if (subject.kind === 'owner') await this.store.logins.revokeInvitations(subject.subjectId);
    await this.sessions.endAll(subject);
  }

  /**
   * A password set, changed or reset ends whatever was handed out under the old one: an invitation link still in
   * someone's mailbox would otherwise set a new password over it, and a session would outlive it.
   */
  private async endOwnerCredentials(accountId: string): Promise<void> {
    await this.store.logins.revokeInvitations(accountId);
    await this.sessions.endAll({ kind: 'owner', subjectId: accountId });
  }

  /** A one-time link token (shown once; only its hash is kept); earlier links of the account stop working. */
  async invite(accountId: string): Promise<string> {
    if (!await this.store.accounts.get(accountId)) throw rgError('ACCOUNT_NOT_FOUND', { id: accountId });
    const token = `inv_${randomBase62(40)}`;
    await this.store.logins.invite(accountId, sha256Hex(token), clock.now() + INVITATION_TTL_MS);
    return token;
  }

  /** The account an unused, unexpired invitation is for. */
  async invitation(token: string): Promise<string> {
    const row = typeof token === 'string' && token ? await this.store.logins.invitation(sha256Hex(token)) : undefined;
    if (!row || row.usedAt !== null || row.expiresAt <= clock.now()) throw rgError('INVITATION_INVALID');
    return row.accountId;
  }

  async acceptInvitation(token: string, password: string): Promise<SessionSubject> {
    const accountId = await this.invitation(token);
    assertPasswordStrength(password);
    if (!await this.store.logins.useInvitation(sha256Hex(token))) throw rgError('INVITATION_INVALID');
    await this.setOwnerPassword(accountId, password);
    return { kind: 'owner', subjectId: accountId };
  }
}
