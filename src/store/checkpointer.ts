import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DB } from './db';

/** WAL pages at which the serving thread checkpoints by itself: SQLite's default, restored if the worker is gone. */
const DEFAULT_AUTOCHECKPOINT = 1_000;
/** While the worker runs, the serving thread's own checkpoint is only a backstop (about 40 MB of WAL). */
const BACKSTOP_AUTOCHECKPOINT = 10_000;

/**
 * WAL checkpoints off the serving thread. SQLite's automatic checkpoint runs inside whichever COMMIT takes the WAL
 * past 1,000 pages: it copies the WAL into the database file and fsyncs both, on the thread that answers requests.
 * With a charge writing a few dozen pages that is one commit in every few dozen charges, stalled 5 to 10 ms: the
 * whole of the p99 added at 100 req/s (docs/performance.md). A worker thread with its own connection checkpoints
 * instead, every `intervalMs`; the serving connection keeps an automatic checkpoint at a higher threshold, as a
 * backstop for a worker that falls behind, and the default one back if the worker exits.
 */
export class Checkpointer {
  private stopped = false;

  private constructor(private readonly db: DB, private readonly worker: Worker) {}

  static start(db: DB, intervalMs = 200): Checkpointer {
    const worker = new Worker(path.join(__dirname, 'checkpoint-worker.js'), {
      workerData: { file: db.name, intervalMs },
      // A loop and one connection: a small heap keeps the thread's resident memory to a few MB.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2, codeRangeSizeMb: 4 },
    });
    worker.unref();
    const checkpointer = new Checkpointer(db, worker);
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT}`);
    worker.on('error', () => undefined); // its exit follows and restores the default
    worker.on('exit', () => checkpointer.fallBack());
    return checkpointer;
  }

  /** Stop the worker (before the serving connection closes, so that one is the last and checkpoints at close). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Unreferenced while it runs (it never keeps a process alive); referenced while it is awaited, or a caller's
    // event loop could empty out with this promise still pending.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }

  private fallBack(): void {
    this.stopped = true;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  }
}
