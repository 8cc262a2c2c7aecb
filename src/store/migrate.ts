import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { ROOT } from '../lib/paths';

export const MIGRATIONS_DIR = path.join(ROOT, 'src', 'store', 'migrations');

/** Apply src/store/migrations/NNN-name.sql in order, each once, each in its own transaction. */
export function migrate(db: Database.Database, dir: string = MIGRATIONS_DIR): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const files = fs.readdirSync(dir).filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f)).sort();
  const done: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (applied.has(version)) continue;
    const sql = fs.readFileSync(path.join(dir, file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, file, new Date().toISOString());
    })();
    done.push(file);
  }
  return done;
}
