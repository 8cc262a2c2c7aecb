import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate, MIGRATIONS_DIR } from '../../src/store/migrate';

/**
 * A SQLite file migrated only up to `version` (the migrations numbered up to it), for a test of a later migration
 * against data written before it. `seed` writes that data, with the schema of that version.
 */
export function databaseAtVersion(version: number, seed: (db: Database.Database) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rg-${version}-`));
  const older = path.join(dir, 'migrations');
  fs.mkdirSync(older);
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) {
    if (/^\d{3}-/.test(f) && Number(f.slice(0, 3)) <= version) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(older, f));
  }
  const file = path.join(dir, 'rg.db');
  const db = new Database(file);
  migrate(db, older);
  seed(db);
  db.close();
  return file;
}

/** An account row, as every version's schema has it. */
export function insertAccount(db: Database.Database, id: string): void {
  const now = '2030-01-01T00:00:00.000Z';
  db.prepare('INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, id, `${id}@example.com`, `tok_${id}`, now, now);
  // Every account has its settings row, as AccountsRepository.create writes it.
  db.prepare("INSERT INTO settings (account_id, gateway_fallbacks, response_format, updated_at) VALUES (?, '[]', 'full', ?)").run(id, now);
}
