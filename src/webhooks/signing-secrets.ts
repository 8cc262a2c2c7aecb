import { randomBytes, randomUUID } from 'node:crypto';
import type { Repositories, Store } from '../store';
import { open, seal } from '../lib/crypto';
import type { SigningSecretRow } from '../store/signing-secrets';

/** How long a rotated secret keeps signing beside the new one, so merchants can switch without losing an event. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks form, which its libraries take as it is. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const aad = (accountId: string, id: string) => `webhook-signing:${accountId}:${id}`;

// Bounds the plaintexts kept (two a busy account during a rotation's overlap); past it they are opened again.
const MAX_OPENED = 10_000;

/**
 * The per-account secrets RouteGate signs forwarded events with, sealed with the master key (AES-256-GCM, bound to
 * their row). The plaintext leaves only to sign, and once to the operator when made (CLI output).
 */
export class SigningSecrets {
  // Every forwarded event is signed: opening its account's secrets each time cost a decipher per delivery. A row's
  // sealed secret never changes once written (a rotation adds a row and sets expiries), so its plaintext is kept
  // by row id; which rows sign is still read each time, so a rotation from another process counts at once.
  private readonly opened = new Map<string, string>();

  constructor(private readonly store: Store, private readonly key: Buffer, private readonly now: () => number = Date.now) {}

  /** A new current secret for the account (written through `tx` when given); the others keep what expiry they have. */
  async create(accountId: string, tx: Repositories = this.store): Promise<string> {
    const secret = newSigningSecret();
    const id = `whs_${randomUUID().replace(/-/g, '')}`;
    await tx.signingSecrets.insert({ id, accountId, ...seal(this.key, secret, aad(accountId, id)), createdAt: new Date(this.now()).toISOString() });
    return secret;
  }

  /** A new secret; every secret signing until now keeps signing beside it for `overlapMs`, then stops. */
  async rotate(accountId: string, overlapMs = ROTATION_OVERLAP_MS): Promise<{ secret: string; previousExpireAt: string | null }> {
    const hadOne = (await this.store.signingSecrets.active(accountId, this.now())).length > 0;
    const expiresAt = this.now() + overlapMs;
    let secret = '';
    await this.store.commit(async (tx) => {
      await tx.signingSecrets.expireAll(accountId, expiresAt);
      secret = await this.create(accountId, tx);
    });
    return { secret, previousExpireAt: hadOne ? new Date(expiresAt).toISOString() : null };
  }

  /**
   * The secrets that sign now, newest first. An account made before signing secrets existed gets one here (the
   * operator sees it with `routegate webhooks rotate-secret ID`): events are never sent unsigned.
   */
  async signing(accountId: string): Promise<{ secrets: string[]; created: boolean }> {
    const rows = await this.store.signingSecrets.active(accountId, this.now());
    if (rows.length === 0) return { secrets: [await this.create(accountId)], created: true };
    return { secrets: rows.map((r) => this.openRow(accountId, r)), created: false };
  }

  private openRow(accountId: string, row: SigningSecretRow): string {
    const cacheKey = `${accountId}:${row.id}`;
    let secret = this.opened.get(cacheKey);
    if (secret === undefined) {
      secret = open(this.key, row, aad(accountId, row.id));
      if (this.opened.size >= MAX_OPENED) this.opened.clear();
      this.opened.set(cacheKey, secret);
    }
    return secret;
  }
}
