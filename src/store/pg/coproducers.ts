import type { CoproducerRecord } from '../coproducers';
import type { Queryable } from './pool';
import { withValues } from './queryable';

interface Row { id: string; account_id: string; email: string; name: string; recipients: string; created_at: string; updated_at: string }

function fromRow(r: Row): CoproducerRecord {
  return {
    id: r.id, accountId: r.account_id, email: r.email, name: r.name, recipients: JSON.parse(r.recipients) as Record<string, string>,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

const SELECT = 'id, account_id, email, name, recipients, created_at, updated_at';
const INSERT = { name: 'coproducers.insert', text: `INSERT INTO coproducers (${SELECT}) VALUES ($1, $2, $3, $4, $5, $6, $7)` };
const GET = { name: 'coproducers.get', text: `SELECT ${SELECT} FROM coproducers WHERE account_id = $1 AND id = $2` };
const BY_EMAIL = { name: 'coproducers.by-email', text: `SELECT ${SELECT} FROM coproducers WHERE account_id = $1 AND email = $2` };
const DELETE = { name: 'coproducers.delete', text: 'DELETE FROM coproducers WHERE account_id = $1 AND id = $2' };
const LIST = {
  name: 'coproducers.list',
  text: `SELECT ${SELECT} FROM coproducers WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
};
const LIST_AFTER = {
  name: 'coproducers.list-after',
  text: `SELECT ${SELECT} FROM coproducers WHERE account_id = $1 AND (created_at, id) < ($3, $4) ORDER BY created_at DESC, id DESC LIMIT $2`,
};

/**
 * Coproducers of each account: CoproducersRepository's contract on PostgreSQL. `insert` and `update` fail with
 * PostgreSQL's unique_violation (code '23505', constraint coproducers_account_email) where SQLite's store fails with
 * SQLITE_CONSTRAINT_UNIQUE: an e-mail taken in the account. Updates set only the fields given.
 */
export class PgCoproducersRepository {
  constructor(private readonly q: Queryable) {}

  async insert(c: CoproducerRecord): Promise<void> {
    await this.q.query(withValues(INSERT, [c.id, c.accountId, c.email, c.name, JSON.stringify(c.recipients), c.createdAt, c.updatedAt]));
  }

  async get(accountId: string, id: string): Promise<CoproducerRecord | undefined> {
    const row = (await this.q.query<Row>(withValues(GET, [accountId, id]))).rows[0];
    return row && fromRow(row);
  }

  async byEmail(accountId: string, email: string): Promise<CoproducerRecord | undefined> {
    const row = (await this.q.query<Row>(withValues(BY_EMAIL, [accountId, email.toLowerCase()]))).rows[0];
    return row && fromRow(row);
  }

  async update(accountId: string, id: string, patch: Partial<Pick<CoproducerRecord, 'email' | 'name' | 'recipients'>> & { updatedAt: string }): Promise<void> {
    const values: unknown[] = [accountId, id, patch.updatedAt];
    const sets = ['updated_at = $3'];
    if (patch.email !== undefined) sets.push(`email = $${values.push(patch.email)}`);
    if (patch.name !== undefined) sets.push(`name = $${values.push(patch.name)}`);
    if (patch.recipients !== undefined) sets.push(`recipients = $${values.push(JSON.stringify(patch.recipients))}`);
    await this.q.query({ text: `UPDATE coproducers SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2`, values });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.q.query(withValues(DELETE, [accountId, id]))).rowCount === 1;
  }

  /** Newest first; `after` is the last row of the previous page (keyset pagination). */
  async list(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<CoproducerRecord[]> {
    const query = after ? withValues(LIST_AFTER, [accountId, limit, after.createdAt, after.id]) : withValues(LIST, [accountId, limit]);
    return (await this.q.query<Row>(query)).rows.map(fromRow);
  }
}
