import { fieldSummary, rgError, type FieldError } from '../errors';
import type { Store } from '../store';
import { AccountService, type CreatedAccount } from './service';
import { EMAIL_PATTERN, type LoginService } from '../auth/logins';
import { assertPasswordStrength } from '../auth/passwords';

export interface NewAccount { name: string; email: string; password?: string }

export interface OnboardedAccount extends CreatedAccount {
  /** Set when no password was given: the one-time link token the owner sets a password with. */
  invitation?: string;
}

/**
 * An operator creates an account in the dashboard: the account (AccountService, as the CLI), then its owner's
 * sign-in: the password the operator chose, or an invitation link. Everything is checked before anything is written.
 */
export async function createAccountWithOwner(store: Store, logins: LoginService, input: NewAccount): Promise<OnboardedAccount> {
  const name = input.name.trim();
  const email = input.email.trim();
  const password = input.password ?? '';
  const errors: FieldError[] = [];
  if (!name) errors.push({ field: 'name', message: 'is required' });
  if (name.length > 200) errors.push({ field: 'name', message: 'must be at most 200 characters' });
  if (!EMAIL_PATTERN.test(email) || email.length > 254) errors.push({ field: 'email', message: 'must be an e-mail address' });
  if (errors.length) throw rgError('ACCOUNT_INVALID', { fields: fieldSummary(errors) }, { details: { errors } });
  await logins.assertOwnerEmailFree(email);
  if (password) assertPasswordStrength(password);
  const created = await new AccountService(store).create(name, email);
  if (password) {
    await logins.setOwnerPassword(created.id, password);
    return created;
  }
  return { ...created, invitation: await logins.invite(created.id) };
}
