import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import { rgError } from '../errors';

const POLL_MS = 50;

/**
 * The per-charge lock: a lease kept on the charge row, so it holds across processes sharing the database.
 * Holders in this process wake their local waiters on release; waiters in other processes poll.
 * A lease outlives the request deadline, so only a holder that died leaves one to expire.
 */
export class ChargeLocks {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly store: Store, readonly leaseMs: number) {}

  static newOwner(): string {
    return `${process.pid}:${randomUUID()}`;
  }

  /** Take the lock now or give up (the reconciler skips charges someone is working on). */
  async tryAcquire(chargeId: string, owner = ChargeLocks.newOwner()): Promise<string | undefined> {
    return await this.store.charges.tryLock(chargeId, owner, Date.now(), this.leaseMs) ? owner : undefined;
  }

  /** Wait for the lock until `waitUntil` (epoch ms); past it the caller gets 409 CHARGE_BUSY. */
  async acquire(chargeId: string, waitUntil: number): Promise<string> {
    const owner = ChargeLocks.newOwner();
    for (;;) {
      if (await this.tryAcquire(chargeId, owner)) return owner;
      const left = waitUntil - Date.now();
      if (left <= 0) {
        throw rgError('CHARGE_BUSY', { id: chargeId });
      }
      await this.waitForRelease(chargeId, Math.min(left, POLL_MS));
    }
  }

  /** `released`: the holder already cleared the lease in its last transaction; only local waiters are woken. */
  async release(chargeId: string, owner: string, opts: { released?: boolean } = {}): Promise<void> {
    if (!opts.released) await this.store.charges.unlock(chargeId, owner);
    const set = this.waiters.get(chargeId);
    if (!set) return;
    this.waiters.delete(chargeId);
    for (const wake of set) wake();
  }

  private waitForRelease(chargeId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(chargeId);
      if (!set) {
        set = new Set();
        this.waiters.set(chargeId, set);
      }
      const wake = () => {
        clearTimeout(timer);
        set!.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}
