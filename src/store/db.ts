import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate';

export type DB = Database.Database;

/**
 * The database holds sealed credentials, charges and stored answers: owner-only (0600), like master.key.
 * SQLite creates -wal and -shm with the database file's mode; ones left by an older install are narrowed too.
 */
function ownerOnly(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    } catch (err) {
      // Absent (no -wal before the first write), or another user's file this process may not narrow.
      if (!['ENOENT', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
}

/** Open the SQLite file (WAL, foreign keys) and bring its schema up to date. */
export function openDatabase(file: string): DB {
  if (file !== ':memory:' && file !== '') {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    ownerOnly(file);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export { nowIso } from '../lib/iso-time';
