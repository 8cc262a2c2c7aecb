import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store';
import { ChargeLocks } from '../charges/charge-locks';
import type { Forwarder } from './forwarder';

const BATCH = 20;

/**
 * Retries from the outbox: every `intervalMs`, takes the deliveries that are due and that nobody holds (a crashed
 * process's leases expire), and attempts each. Everything it needs is on disk, so a restart, or a SIGKILL, loses
 * nothing: the next process's worker picks the deliveries up.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly forwarder: Forwarder,
    private readonly log: FastifyBaseLogger,
    private readonly options: { intervalMs: number; now: () => number },
  ) {}

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over what is due at `now` (tests pass a later time instead of waiting); how many were attempted. */
  async runDue(now = this.options.now()): Promise<number> {
    let attempted = 0;
    // One delivery claimed at a time (FOR UPDATE SKIP LOCKED on PostgreSQL): its lease starts when its attempt
    // does, so a batch never holds leases that could run out while earlier deliveries are attempted. "When" is
    // `now` advanced by the time this pass has taken: a lease taken from the pass's start would already have run
    // out after a few slow attempts, and another process could send the same delivery at the same time.
    const passStarted = this.options.now();
    const seen = new Set<string>();
    for (let i = 0; i < BATCH; i++) {
      const owner = ChargeLocks.newOwner();
      const at = now + (this.options.now() - passStarted);
      const [id] = await this.store.deliveries.claimDue(owner, at, this.forwarder.leaseMs, 1);
      if (!id) break;
      if (seen.has(id)) {
        // Released after an unexpected failure this pass: the next pass tries it again.
        await this.store.deliveries.release(id, owner);
        break;
      }
      seen.add(id);
      try {
        await this.forwarder.attempt(id, owner);
        attempted += 1;
      } catch (err) {
        await this.store.deliveries.release(id, owner);
        this.log.error({ err, deliveryId: id }, 'webhook delivery attempt failed unexpectedly');
      }
    }
    return attempted;
  }

  private async tick(): Promise<void> {
    if (this.running !== undefined) return;
    this.running = this.runDue().catch((err) => {
      this.log.error({ err }, 'webhook worker pass failed');
      return 0;
    });
    let attempted = 0;
    try {
      attempted = await this.running;
    } finally {
      this.running = undefined;
    }
    // A full pass leaves more due: the next starts now rather than an interval later, so a backlog (a backend back
    // after an outage) drains at the pace of its attempts, not BATCH per interval. Still one delivery at a time.
    if (attempted >= BATCH && this.timer) {
      setImmediate(() => {
        if (this.timer) void this.tick(); // not once stopped
      });
    }
  }
}
