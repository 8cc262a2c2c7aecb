import { LRUCache } from 'lru-cache';
import type { ChargeSnapshot } from '../charges';

/**
 * The rows this process's own committed charge writes left, each with its xmin: what a follow-up decides on without
 * a read. Nothing here is trusted: beginOnSnapshot acts only while the row's xmin is still the one kept, so a row
 * changed since (by another process, a webhook, an operator) only costs the full path. Entries are copies, so no
 * caller can change what a later one reads; they expire long before a transaction id could come round again.
 */
export class ChargeSnapshots {
  private readonly entries: LRUCache<string, ChargeSnapshot>;

  constructor(max = 5_000, ttlMs = 10 * 60_000) {
    this.entries = new LRUCache({ max, ttl: ttlMs });
  }

  remember(snapshot: ChargeSnapshot): void {
    this.entries.set(snapshot.charge.id, { charge: structuredClone(snapshot.charge), version: snapshot.version });
  }

  /** The account's charge as last kept, or undefined. */
  recall(accountId: string, id: string): ChargeSnapshot | undefined {
    const kept = this.entries.get(id);
    if (!kept || kept.charge.accountId !== accountId) return undefined;
    return { charge: structuredClone(kept.charge), version: kept.version };
  }

  forget(id: string): void {
    this.entries.delete(id);
  }
}
