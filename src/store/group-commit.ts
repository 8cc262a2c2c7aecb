import type { DB } from './db';
import type { Repositories } from './types';

interface PendingWrite {
  write: (tx: Repositories) => void | Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writes queued during one turn of the event loop share a single transaction. Under load many
 * charges finish in the same turn, and one commit writes the shared B-tree pages once instead of once per
 * charge (bench/: two to three times less store time per charge). Every caller still awaits its own
 * commit before answering, so nothing is acknowledged that is not on disk.
 *
 * Under load the commit waits one more turn (BUSY_TURNS) for the writes of the I/O that turn reads: after a commit
 * of more than one write, the next one is taken a turn later if writes keep arriving. The store's work per charge
 * falls with the batch's size (`npm run bench:store`: 141 µs per charge at 4 charges a commit, 86 at 10, 81 at
 * 20) and at saturation the service's batches held about 8 writes (4 charges). One more turn took them past it and
 * the service's CPU per charge down 9% (docs/performance.md, fifth round). The wait is one pass of the event loop
 * that does not block (pending immediates make the poll return at once), and a quiet service, whose commits hold
 * one write, never waits.
 *
 * The SQLite repositories do their work synchronously when called (their promises are settled at once), so a
 * batch whose writes only await them runs from BEGIN to COMMIT within this one macrotask: no other request's
 * statement, which can only start on a later turn, can land inside the open transaction.
 */
const BUSY_TURNS = 1;

export class GroupCommit {
  private queue: PendingWrite[] = [];
  private scheduled = false;
  private lastBatchSize = 0;
  private turnsWaited = 0;
  private sizeAtLastTurn = 0;
  // Prepared once: db.exec() would parse the statement again on every transaction.
  private readonly begin;
  private readonly end;
  private readonly rollback;

  constructor(private readonly db: DB, private readonly repositories: Repositories) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.end = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  /** Run `write` inside the next shared transaction; resolves once it is committed. */
  commit(write: (tx: Repositories) => void | Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushWhenGathered);
      }
    });
  }

  private readonly flushWhenGathered = (): void => {
    const busy = this.lastBatchSize > 1 && this.queue.length > this.sizeAtLastTurn;
    if (busy && this.turnsWaited < BUSY_TURNS) {
      this.turnsWaited++;
      this.sizeAtLastTurn = this.queue.length;
      setImmediate(this.flushWhenGathered);
      return;
    }
    this.turnsWaited = 0;
    this.sizeAtLastTurn = 0;
    void this.flush();
  };

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    this.lastBatchSize = batch.length;
    if (!this.db.open) {
      for (const w of batch) w.reject(new Error('the database is closed'));
      return;
    }
    try {
      await this.inTransaction(batch);
      for (const w of batch) w.resolve();
    } catch {
      // One failing write must not take its neighbours down: replay each in a transaction of its own.
      for (const w of batch) {
        try {
          await this.inTransaction([w]);
          w.resolve();
        } catch (err) {
          w.reject(err);
        }
      }
    }
  }

  private async inTransaction(batch: PendingWrite[]): Promise<void> {
    this.begin.run();
    try {
      for (const w of batch) await w.write(this.repositories);
      this.end.run();
    } catch (err) {
      if (this.db.inTransaction) this.rollback.run();
      throw err;
    }
  }
}
