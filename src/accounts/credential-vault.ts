import type { Store } from '../store';
import { open, seal } from '../lib/crypto';
import { maskAll } from '../lib/mask';
import { ConfigError } from '../config';
import type { GatewayId } from '../gateways/registry-ids';

const KEY_CHECK = 'master_key_check';
const KEY_CHECK_PLAINTEXT = 'routegate-master-key-check';

export interface MaskedCredentials { gateway: GatewayId; credentials: Record<string, string>; createdAt: string; updatedAt: string }

/** Gateway credentials sealed with the master key; plaintext only leaves through `reveal`. */
export class CredentialVault {
  // Opening a row costs a decipher per charge attempt. Rows come from the store's read cache, which hands out
  // a new object whenever the row may have changed, so keying on the row object is exact and lets the
  // plaintext go with the row.
  private readonly opened = new WeakMap<object, Record<string, string>>();

  constructor(private readonly store: Store, private readonly key: Buffer) {}

  /**
   * A wrong master key must stop start-up, not decrypt into garbage later: a known value sealed with the
   * first key is kept in `meta` and opened at every start.
   */
  async verifyMasterKey(): Promise<void> {
    const stored = await this.store.meta.get(KEY_CHECK);
    if (!stored) {
      const s = seal(this.key, KEY_CHECK_PLAINTEXT, KEY_CHECK);
      await this.store.meta.set(KEY_CHECK, JSON.stringify({ iv: s.iv.toString('base64'), tag: s.tag.toString('base64'), ciphertext: s.ciphertext.toString('base64') }));
      return;
    }
    const parsed = JSON.parse(stored) as { iv: string; tag: string; ciphertext: string };
    try {
      open(this.key, { iv: Buffer.from(parsed.iv, 'base64'), tag: Buffer.from(parsed.tag, 'base64'), ciphertext: Buffer.from(parsed.ciphertext, 'base64') }, KEY_CHECK);
    } catch {
      throw new ConfigError('ROUTEGATE_MASTER_KEY does not match the key that encrypted the stored gateway credentials; start with the original key');
    }
  }

  async save(accountId: string, gateway: GatewayId, credentials: Record<string, string>): Promise<MaskedCredentials> {
    await this.store.credentials.upsert(accountId, gateway, seal(this.key, JSON.stringify(credentials), aad(accountId, gateway)), maskAll(credentials));
    return (await this.describe(accountId, gateway))!;
  }

  async has(accountId: string, gateway: GatewayId): Promise<boolean> {
    return await this.store.credentials.get(accountId, gateway) !== undefined;
  }

  async reveal(accountId: string, gateway: GatewayId): Promise<Record<string, string> | undefined> {
    const row = await this.store.credentials.get(accountId, gateway);
    if (!row) return undefined;
    let credentials = this.opened.get(row);
    if (!credentials) {
      credentials = JSON.parse(open(this.key, row, aad(accountId, gateway))) as Record<string, string>;
      this.opened.set(row, credentials);
    }
    return { ...credentials };
  }

  async describe(accountId: string, gateway: GatewayId): Promise<MaskedCredentials | undefined> {
    const row = await this.store.credentials.get(accountId, gateway);
    return row && { gateway: row.gateway as GatewayId, credentials: row.masked, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }

  async list(accountId: string): Promise<MaskedCredentials[]> {
    return (await this.store.credentials.list(accountId)).map((row) => ({
      gateway: row.gateway as GatewayId, credentials: row.masked, createdAt: row.createdAt, updatedAt: row.updatedAt,
    }));
  }

  async delete(accountId: string, gateway: GatewayId): Promise<boolean> {
    return await this.store.credentials.delete(accountId, gateway);
  }
}

function aad(accountId: string, gateway: string): string {
  return `${accountId}:${gateway}`;
}
