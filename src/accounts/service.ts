import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { AccountRow } from '../store/accounts';
import { generateApiKey, hashApiKey, keyHint } from '../auth/api-keys';
import { randomBase62 } from '../lib/crypto';
import { clock } from '../lib/clock';
import { SigningSecrets } from '../webhooks/signing-secrets';

/** How long a rotated webhook token's URLs keep working by default. */
export const WEBHOOK_TOKEN_OVERLAP_HOURS = 24;

const newWebhookToken = () => `wh_${randomBase62(32)}`;

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
      await tx.accounts.create({ id, name, email, webhookToken: newWebhookToken() });
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

  /**
   * A new webhook token (new receiver URLs); the old one's URLs keep working `keepOldHours` (default 24), so the
   * gateways can be repointed without losing a notification; 0 stops them, and any earlier overlap, at once.
   */
  async rotateWebhookToken(id: string, keepOldHours = WEBHOOK_TOKEN_OVERLAP_HOURS, now = clock.now()): Promise<{ id: string; webhookToken: string } | undefined> {
    for (;;) {
      const account = await this.store.accounts.get(id);
      if (!account) return undefined;
      const webhookToken = newWebhookToken();
      const keepUntil = keepOldHours > 0 ? now + keepOldHours * 3_600_000 : null;
      // Compared with the token read: two rotations at once each replace the token they saw, never a newer one.
      if (await this.store.accounts.rotateWebhookToken(id, account.webhookToken, webhookToken, keepUntil, now)) return { id, webhookToken };
    }
  }

  /** Operator only: compatibility passthrough (the gateway's allowlist of native paths) for the account. */
  async setCompatPassthrough(id: string, on: boolean): Promise<boolean> {
    return await this.store.accounts.setCompatPassthrough(id, on);
  }

  /** New key, shown once; every previous key of the account stops working at once. */
  async rotateKey(id: string): Promise<CreatedAccount | undefined> {
    if (!await this.store.accounts.get(id)) return undefined;
    const apiKey = generateApiKey();
    await this.store.apiKeys.replace(id, hashApiKey(apiKey), keyHint(apiKey));
    return { id, apiKey };
  }
}
