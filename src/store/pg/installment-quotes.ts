import { quoteFromRow, type InstallmentQuoteRecord, type InstallmentQuoteRow } from '../installment-quotes';
import type { Queryable } from './pool';
import { withValues } from './queryable';

const SELECT = 'id, account_id, amount, gateway, bin, plans, created_at, expires_at';
const INSERT = { name: 'installment-quotes.insert', text: `INSERT INTO installment_quotes (${SELECT}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)` };
const GET = { name: 'installment-quotes.get', text: `SELECT ${SELECT} FROM installment_quotes WHERE account_id = $1 AND id = $2` };
const PURGE = {
  name: 'installment-quotes.purge',
  text: 'DELETE FROM installment_quotes WHERE id IN (SELECT id FROM installment_quotes WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)',
};

/** Gateway quotes: InstallmentQuotesRepository's contract on PostgreSQL. */
export class PgInstallmentQuotesRepository {
  constructor(private readonly q: Queryable) {}

  async insert(q: InstallmentQuoteRecord): Promise<void> {
    await this.q.query(withValues(INSERT, [q.id, q.accountId, q.amount, q.gateway, q.bin, JSON.stringify(q.plans), q.createdAt, q.expiresAt]));
  }

  async get(accountId: string, id: string): Promise<InstallmentQuoteRecord | undefined> {
    const row = (await this.q.query<InstallmentQuoteRow>(withValues(GET, [accountId, id]))).rows[0];
    return row && quoteFromRow(row);
  }

  /** Delete up to `limit` quotes expired by `nowIso` (the oldest first); answers how many went. */
  async purgeExpired(nowIso: string, limit = 1_000): Promise<number> {
    return (await this.q.query(withValues(PURGE, [nowIso, limit]))).rowCount ?? 0;
  }
}
