import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * The checkpointer's thread (src/store/checkpointer.ts): its own connection to the SQLite file, running a PASSIVE
 * checkpoint every `intervalMs`. PASSIVE copies what it can of the WAL into the database file without waiting for
 * or blocking any reader or writer of the serving thread.
 */
const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file, { fileMustExist: true });

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // A busy or failing checkpoint is retried on the next tick; the serving thread's own checkpoint is the backstop.
    parentPort?.postMessage({ failed: (err as Error).message });
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
