import type { DB } from './db';

/** A coproducer: someone a merchant splits charges with, known by e-mail, with a recipient id per gateway. */
export interface CoproducerRecord {
  id: string;
  accountId: string;
  /** Lower-cased: unique per account. */
  email: string;
  name: string;
  /** Canonical gateway id -> that gateway's recipient id. */
  recipients: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

interface Row { id: string; account_id: string; email: string; name: string; recipients: string; created_at: string; updated_at: string }

function fromRow(r: Row): CoproducerRecord {
  return {
    id: r.id, accountId: r.account_id, email: r.email, name: r.name, recipients: JSON.parse(r.recipients) as Record<string, string>,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/**
 * Coproducers of each account. `insert` and `update` fail with SQLite's UNIQUE constraint error when the e-mail
 * is taken in the account (the caller turns it into the public answer); updates set only the fields given.
 */
export class CoproducersRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly byEmailStmt;
  private readonly deleteStmt;

  constructor(private readonly db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO coproducers (id, account_id, email, name, recipients, created_at, updated_at)
      VALUES (@id, @accountId, @email, @name, @recipients, @createdAt, @updatedAt)`);
    this.getStmt = db.prepare('SELECT * FROM coproducers WHERE account_id = ? AND id = ?');
    this.byEmailStmt = db.prepare('SELECT * FROM coproducers WHERE account_id = ? AND email = ?');
    this.deleteStmt = db.prepare('DELETE FROM coproducers WHERE account_id = ? AND id = ?');
  }

  async insert(c: CoproducerRecord): Promise<void> {
    this.insertStmt.run({ ...c, recipients: JSON.stringify(c.recipients) });
  }

  async get(accountId: string, id: string): Promise<CoproducerRecord | undefined> {
    const row = this.getStmt.get(accountId, id) as Row | undefined;
    return row && fromRow(row);
  }

  async byEmail(accountId: string, email: string): Promise<CoproducerRecord | undefined> {
    const row = this.byEmailStmt.get(accountId, email.toLowerCase()) as Row | undefined;
    return row && fromRow(row);
  }

  async update(accountId: string, id: string, patch: Partial<Pick<CoproducerRecord, 'email' | 'name' | 'recipients'>> & { updatedAt: string }): Promise<void> {
    const sets = ['updated_at = @updatedAt'];
    if (patch.email !== undefined) sets.push('email = @email');
    if (patch.name !== undefined) sets.push('name = @name');
    if (patch.recipients !== undefined) sets.push('recipients = @recipients');
    this.db.prepare(`UPDATE coproducers SET ${sets.join(', ')} WHERE account_id = @accountId AND id = @id`).run({
      accountId, id, updatedAt: patch.updatedAt, email: patch.email, name: patch.name,
      recipients: patch.recipients === undefined ? undefined : JSON.stringify(patch.recipients),
    });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.deleteStmt.run(accountId, id).changes === 1;
  }

  /** Newest first; `after` is the last row of the previous page (keyset pagination). */
  async list(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<CoproducerRecord[]> {
    const where = after ? 'AND (created_at, id) < (@createdAt, @id)' : ''; // a row value: SQLite seeks to it in the index
    const rows = this.db.prepare(`SELECT * FROM coproducers WHERE account_id = @accountId ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`)
      .all({ accountId, limit, createdAt: after?.createdAt, id: after?.id }) as Row[];
    return rows.map(fromRow);
  }
}
