import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { AccountRow } from '../store/accounts';
import { generateApiKey, hashApiKey, keyHint } from '../auth/api-keys';
import { randomBase62 } from '../lib/crypto';

export interface CreatedAccount { id: string; apiKey: string }

/** Operator actions on accounts (CLI and dashboard); never exposed on the public API. */
export class AccountService {
  constructor(private readonly store: Store) {}

  create(name: string, email: string): CreatedAccount {
    const id = randomUUID();
    const apiKey = generateApiKey();
    this.store.db.transaction(() => {
      this.store.accounts.create({ id, name, email, webhookToken: `wh_${randomBase62(32)}` });
      this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
    })();
    return { id, apiKey };
  }

  list(): AccountRow[] {
    return this.store.accounts.list();
  }

  get(id: string): AccountRow | undefined {
    return this.store.accounts.get(id);
  }

  setActive(id: string, active: boolean): boolean {
    return this.store.accounts.setActive(id, active);
  }

  /** New key, shown once; every previous key of the account stops working at once. */
  rotateKey(id: string): CreatedAccount | undefined {
    if (!this.store.accounts.get(id)) return undefined;
    const apiKey = generateApiKey();
    this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
    return { id, apiKey };
  }
}
