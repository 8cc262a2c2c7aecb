import { LRUCache } from 'lru-cache';
import type { ChargeSnapshot } from '../charges';
import { snapshotOf } from './charge-columns';

/**
 * The rows this process's own committed charge writes left, each with its xmin: what a follow-up decides on without
 * a read. Nothing here is trusted: beginOnSnapshot acts only while the row's xmin is still the one kept, so a row
 * changed since (by another process, a webhook, an operator) only costs the full path. What is kept is the row as
 * the driver gave it (strings and numbers, which nobody changes), and each recall builds a charge of its own from it,
 * so no caller can change what a later one reads, and a create pays nothing for it. Entries expire long before a
 * transaction id could come round again.
 */
export class ChargeSnapshots {
  private readonly rows: LRUCache<string, Record<string, unknown>>;

  constructor(max = 5_000, ttlMs = 10 * 60_000) {
    this.rows = new LRUCache({ max, ttl: ttlMs });
  }

  /** A charges row read or returned with `row_version` (its xmin). */
  remember(row: Record<string, unknown>): void {
    this.rows.set(row.id as string, row);
  }

  /** The account's charge as last kept, or undefined. */
  recall(accountId: string, id: string): ChargeSnapshot | undefined {
    const row = this.rows.get(id);
    return row && row.account_id === accountId ? snapshotOf(row) : undefined;
  }

  forget(id: string): void {
    this.rows.delete(id);
  }
}
