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
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(f)) fs.chmodSync(f, 0o600);
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

export function nowIso(): string {
  return new Date().toISOString();
}
