import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store';
import type { ChargeService } from './orchestrator';
import { ChargeLocks } from './charge-locks';

export interface ReconcilerOptions {
  /** Between passes; 0 = one pass at start-up only. */
  intervalMs: number;
  /** Charges checked at once (each check is a few gateway reads). */
  concurrency?: number;
  /** Most charges one pass takes on; the rest wait for the next. */
  maxPerPass?: number;
}

export interface PassReport { checked: number; settled: number; unsettled: number }

/**
 * Settles every `processing` charge to its gateway's truth: at start-up (charges a crash left behind) and then
 * periodically (creates that answered 504). Each charge has its own backoff (reconcile_after); charges someone
 * holds are skipped. It only reads at gateways, through ChargeService.reconcile. Then the settled charges under
 * watch (`failed`/`declined` by settlement within the settle horizon, creates ambiguous at another gateway) are
 * looked up again, through ChargeService.recheckHeld: a payment made after all is followed, an orphan handled.
 * Last, every capture, cancel or refund whose outcome is not known is settled by its own identity (follow-ups.ts).
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PassReport> | undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly charges: ChargeService,
    private readonly log: FastifyBaseLogger,
    private readonly options: ReconcilerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    void this.pass();
    if (this.options.intervalMs > 0) {
      this.timer = setInterval(() => void this.pass(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  /** Stop scheduling and wait for a pass under way to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over the charges due now; concurrent calls share the pass under way. */
  pass(): Promise<PassReport> {
    this.running ??= this.runPass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** `processing` charges waiting for a check now (for the operator and metrics). */
  async backlog(): Promise<number> {
    return await this.store.charges.processingCount();
  }

  private async runPass(): Promise<PassReport> {
    const report: PassReport = { checked: 0, settled: 0, unsettled: 0 };
    const limit = this.options.maxPerPass ?? 1_000;
    const seen = new Set<string>();
    // Each lane claims one due charge at a time (its lock taken in the claim, so no other process or lane
    // takes it) and settles it before claiming the next: a claim never waits behind other charges' calls.
    const lane = (kind: 'settle' | 'recheck') => async () => {
      while (!this.stopped && report.checked < limit && this.store.open) {
        const owner = ChargeLocks.newOwner();
        const claim = kind === 'settle' ? this.store.charges.claimDueForReconcile : this.store.charges.claimRecheckDue;
        const [claimed] = await claim.call(this.store.charges, owner, Date.now(), this.charges.locks.leaseMs, 1);
        if (!claimed) return;
        if (seen.has(claimed.id)) {
          // Settled nothing this pass (rescheduled in the past by a clock step): leave it to the next pass.
          await this.charges.locks.release(claimed.id, owner);
          return;
        }
        seen.add(claimed.id);
        report.checked += 1;
        try {
          const settled = kind === 'settle' ? await this.charges.reconcileHeld(claimed.id, owner) : await this.charges.recheckHeld(claimed.id, owner);
          if (settled) report.settled += 1;
          else report.unsettled += 1;
        } catch (err) {
          report.unsettled += 1;
          this.log.error({ err, chargeId: claimed.id }, 'reconciling a charge failed');
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency ?? 4 }, lane('settle')));
    await Promise.all(Array.from({ length: this.options.concurrency ?? 4 }, lane('recheck')));
    if (report.checked > 0) this.log.info({ reconciler: report }, 'reconciler pass');
    // Captures, cancels and refunds whose outcome is not known, on charges no longer `processing` (follow-ups.ts).
    if (!this.stopped && this.store.open) {
      const followUps = await this.charges.followUps.settlePending(limit).catch((err: unknown) => {
        this.log.error({ err }, 'settling follow-ups failed');
        return { settled: 0, unknown: 0 };
      });
      if (followUps.settled + followUps.unknown > 0) this.log.info({ reconciler: { followUps } }, 'reconciler pass: follow-ups');
    }
    return report;
  }
}
