import { LRUCache } from 'lru-cache';
import { CHARGE_VIEW_KEYS, type ChargeRecord, type ChargeSnapshot, type ChargeView } from '../charges';

/**
 * What this process's own committed charge writes left of each row, with its xmin: what a follow-up checks its
 * request against without a read. Nothing here is trusted: beginOnSnapshot acts only while the row's xmin is still
 * the one kept, so a row changed since (by another process, a webhook, an operator) only costs the full path.
 *
 * Each entry is one short string (the row's version and the ChargeView fields as a JSON array), not the row: a kept
 * entry outlives the young generation, and a row object with its dozens of strings promoted at every charge cost more
 * in the collector than the round trip it saves. Each recall parses its own copy, so no caller can change what a
 * later one reads. Entries expire long before a transaction id could come round again.
 */
export class ChargeSnapshots {
  private readonly kept: LRUCache<string, string>;

  constructor(max = 5_000, ttlMs = 10 * 60_000) {
    this.kept = new LRUCache({ max, ttl: ttlMs });
  }

  /** The charge as a row of it was read or returned, and that row's xmin (`row_version`). */
  remember(charge: ChargeRecord, version: string): void {
    this.kept.set(charge.id, JSON.stringify([version, ...CHARGE_VIEW_KEYS.map((k) => charge[k])]));
  }

  /** The account's charge as last kept, or undefined. */
  recall(accountId: string, id: string): ChargeSnapshot | undefined {
    const entry = this.kept.get(id);
    if (entry === undefined) return undefined;
    const [version, ...values] = JSON.parse(entry) as [string, ...unknown[]];
    const charge = Object.fromEntries(CHARGE_VIEW_KEYS.map((k, i) => [k, values[i]])) as unknown as ChargeView;
    return charge.accountId === accountId ? { charge, version } : undefined;
  }

  forget(id: string): void {
    this.kept.delete(id);
  }
}
