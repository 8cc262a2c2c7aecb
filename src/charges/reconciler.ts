import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store';
import type { ChargeService } from './orchestrator';

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
 * holds are skipped. It only reads at gateways, through ChargeService.reconcile.
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
  backlog(): number {
    return this.store.charges.processingCount();
  }

  private async runPass(): Promise<PassReport> {
    const report: PassReport = { checked: 0, settled: 0, unsettled: 0 };
    const limit = this.options.maxPerPass ?? 1_000;
    const seen = new Set<string>();
    while (!this.stopped && report.checked < limit && this.store.db.open) {
      const due = this.store.charges.dueForReconcile(Date.now(), Math.min(100, limit - report.checked)).filter((c) => !seen.has(c.id));
      if (due.length === 0) break;
      for (const c of due) seen.add(c.id);
      await runBounded(due, this.options.concurrency ?? 4, async ({ id }) => {
        if (this.stopped) return;
        report.checked += 1;
        try {
          if (await this.charges.reconcile(id)) report.settled += 1;
          else report.unsettled += 1;
        } catch (err) {
          report.unsettled += 1;
          this.log.error({ err, chargeId: id }, 'reconciling a charge failed');
        }
      });
    }
    if (report.checked > 0) this.log.info({ reconciler: report }, 'reconciler pass');
    return report;
  }
}

async function runBounded<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}
