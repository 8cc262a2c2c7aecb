import type { DB } from './db';

/** One plan of a gateway's quote as stored: cents; issuerId where the gateway priced per card issuer. */
export interface QuotedPlanRecord {
  count: number;
  installmentAmount: number;
  totalAmount: number;
  interestFree: boolean;
  issuerId?: string;
}

/** A gateway's installment quote, kept so a charge can name it (docs/installments.md, "Charging a gateway's quote"). */
export interface InstallmentQuoteRecord {
  id: string;
  accountId: string;
  /** The price quoted, cents: a charge naming the quote must be for this amount. */
  amount: number;
  gateway: string;
  bin: string;
  plans: QuotedPlanRecord[];
  createdAt: string;
  expiresAt: string;
}

interface Row { id: string; account_id: string; amount: number | string; gateway: string; bin: string; plans: string; created_at: string; expires_at: string }

/** A stored row as the record (both stores: PostgreSQL's BIGINT may come back as text). */
export function quoteFromRow(r: Row): InstallmentQuoteRecord {
  return {
    id: r.id, accountId: r.account_id, amount: Number(r.amount), gateway: r.gateway, bin: r.bin,
    plans: JSON.parse(r.plans) as QuotedPlanRecord[], createdAt: r.created_at, expiresAt: r.expires_at,
  };
}

export type InstallmentQuoteRow = Row;

/** Gateway quotes: written once when answered, read by id within the account, purged after expiry. */
export class InstallmentQuotesRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly purgeStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO installment_quotes (id, account_id, amount, gateway, bin, plans, created_at, expires_at)
      VALUES (@id, @accountId, @amount, @gateway, @bin, @plans, @createdAt, @expiresAt)`);
    // Another account's quote is not found: ids are never shared between accounts.
    this.getStmt = db.prepare('SELECT * FROM installment_quotes WHERE account_id = ? AND id = ?');
    this.purgeStmt = db.prepare(`DELETE FROM installment_quotes WHERE id IN
      (SELECT id FROM installment_quotes WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`);
  }

  async insert(q: InstallmentQuoteRecord): Promise<void> {
    this.insertStmt.run({ ...q, plans: JSON.stringify(q.plans) });
  }

  async get(accountId: string, id: string): Promise<InstallmentQuoteRecord | undefined> {
    const row = this.getStmt.get(accountId, id) as Row | undefined;
    return row && quoteFromRow(row);
  }

  /** Delete up to `limit` quotes expired by `nowIso` (the oldest first); answers how many went. */
  async purgeExpired(nowIso: string, limit = 1_000): Promise<number> {
    return this.purgeStmt.run(nowIso, limit).changes;
  }
}
