import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store';
import { clock } from '../lib/clock';

/** Between passes: an expired key outlives its 24 hours by at most this much. */
const INTERVAL_MS = 10 * 60_000;
/** Keys deleted per transaction, so that requests' writes go on between two batches of a long purge. */
const BATCH = 1_000;

/**
 * Deletes the Idempotency-Key entries past their 24 hours (src/http/idempotency.ts), stored answers included: at
 * start-up, then every INTERVAL_MS. Nothing else removes them (an expired key is only taken over when a client
 * reuses it), and each keeps the whole answer it replays. Several processes on one database may purge at once:
 * each batch deletes what is still there.
 */
export class IdempotencyPurger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(private readonly store: Store, private readonly log: FastifyBaseLogger, private readonly intervalMs = INTERVAL_MS) {}

  start(): void {
    void this.pass();
    this.timer = setInterval(() => void this.pass(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass, batch after batch until one comes back short; answers how many keys went. A pass under way is joined. */
  pass(): Promise<number> {
    this.running ??= this.purge().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async purge(): Promise<number> {
    let purged = 0;
    try {
      while (this.store.open) {
        const now = clock.now();
        const deleted = await this.store.writeOne((r) => r.idempotency.purgeExpired(now, BATCH));
        purged += deleted;
        if (deleted < BATCH) break;
      }
      // Expired installment quotes (docs/installments.md) go on the same pass: nothing else reads them after expiry.
      const quotesBefore = new Date(clock.now()).toISOString();
      while (this.store.open && (await this.store.writeOne((r) => r.installmentQuotes.purgeExpired(quotesBefore, BATCH))) === BATCH);
    } catch (err) {
      this.log.warn({ err }, 'purging expired idempotency keys failed; the next pass tries again');
    }
    if (purged > 0) this.log.info({ purged }, 'expired idempotency keys purged');
    return purged;
  }
}
