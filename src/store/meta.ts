import type { DB } from './db';

export class MetaRepository {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: DB) {
    this.getStmt = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    this.setStmt = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  async get(key: string): Promise<string | undefined> {
    return this.getStmt.get(key) as string | undefined;
  }

  async set(key: string, value: string): Promise<void> {
    this.setStmt.run(key, value);
  }
}
