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

  async create(name: string, email: string): Promise<CreatedAccount> {
    const id = randomUUID();
    const apiKey = generateApiKey();
    let webhookSigningSecret: string | undefined;
    await this.store.commit(async (tx) => {
      await tx.accounts.create({ id, name, email, webhookToken: `wh_${randomBase62(32)}` });
      await tx.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
      webhookSigningSecret = await this.signing?.create(id, tx);
    });
    return webhookSigningSecret ? { id, apiKey, webhookSigningSecret } : { id, apiKey };
  }

  async list(): Promise<AccountRow[]> {
    return await this.store.accounts.list();
  }

  async get(id: string): Promise<AccountRow | undefined> {
    return await this.store.accounts.get(id);
  }

  async setActive(id: string, active: boolean): Promise<boolean> {
    return await this.store.accounts.setActive(id, active);
  }

  /** A new webhook signing secret, shown once; the previous ones keep signing for 24 hours. */
  async rotateSigningSecret(id: string): Promise<{ id: string; webhookSigningSecret: string; previousSecretsExpireAt: string | null } | undefined> {
    if (!this.signing) throw new Error('rotating a signing secret needs the master key');
    if (!await this.store.accounts.get(id)) return undefined;
    const { secret, previousExpireAt } = await this.signing.rotate(id);
    return { id, webhookSigningSecret: secret, previousSecretsExpireAt: previousExpireAt };
  }

  /** New key, shown once; every previous key of the account stops working at once. */
  async rotateKey(id: string): Promise<CreatedAccount | undefined> {
    if (!await this.store.accounts.get(id)) return undefined;
    const apiKey = generateApiKey();
    await this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
    return { id, apiKey };
  }
}
