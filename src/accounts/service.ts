import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { AccountRow } from '../store/accounts';
import { generateApiKey, hashApiKey, keyHint } from '../auth/api-keys';
import { randomBase62 } from '../lib/crypto';
import { SigningSecrets } from '../webhooks/signing-secrets';

export interface CreatedAccount { id: string; apiKey: string; webhookSigningSecret?: string }

/** Operator actions on accounts (CLI and dashboard); never exposed on the public API. */
export class AccountService {
  private readonly signing: SigningSecrets | undefined;

  /** With the master key, accounts are made with their webhook signing secret (sealed with it). */
  constructor(private readonly store: Store, masterKey?: Buffer) {
    this.signing = masterKey && new SigningSecrets(store, masterKey);
  }

  create(name: string, email: string): CreatedAccount {
    const id = randomUUID();
    const apiKey = generateApiKey();
    let webhookSigningSecret: string | undefined;
    this.store.db.transaction(() => {
      this.store.accounts.create({ id, name, email, webhookToken: `wh_${randomBase62(32)}` });
      this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
      webhookSigningSecret = this.signing?.create(id);
    })();
    return webhookSigningSecret ? { id, apiKey, webhookSigningSecret } : { id, apiKey };
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

  /** A new webhook signing secret, shown once; the previous ones keep signing for 24 hours. */
  rotateSigningSecret(id: string): { id: string; webhookSigningSecret: string; previousSecretsExpireAt: string | null } | undefined {
    if (!this.signing) throw new Error('rotating a signing secret needs the master key');
    if (!this.store.accounts.get(id)) return undefined;
    const { secret, previousExpireAt } = this.signing.rotate(id);
    return { id, webhookSigningSecret: secret, previousSecretsExpireAt: previousExpireAt };
  }

  /** New key, shown once; every previous key of the account stops working at once. */
  rotateKey(id: string): CreatedAccount | undefined {
    if (!this.store.accounts.get(id)) return undefined;
    const apiKey = generateApiKey();
    this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
    return { id, apiKey };
  }
}
