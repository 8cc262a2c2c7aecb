import type { DB } from './db';

export interface CustomerRecord {
  id: string;
  accountId: string;
  gateway: string;
  externalId: string;
  name: string;
  email: string;
  document: string;
  phone: string | null;
  createdAt: string;
}

export class CustomersRepository {
  private readonly insertStmt;
  private readonly byExternalStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO customers (id, account_id, gateway, external_id, name, email, document, phone, created_at)
      VALUES (@id, @accountId, @gateway, @externalId, @name, @email, @document, @phone, @createdAt)`);
    this.byExternalStmt = db.prepare('SELECT * FROM customers WHERE account_id = ? AND external_id = ? LIMIT 1');
  }

  insert(c: CustomerRecord): void {
    this.insertStmt.run(c);
  }

  /** The customer RouteGate created under this gateway id, if it did. */
  byExternalId(accountId: string, externalId: string): CustomerRecord | undefined {
    const r = this.byExternalStmt.get(accountId, externalId) as Record<string, string> | undefined;
    return r && {
      id: r.id, accountId: r.account_id, gateway: r.gateway, externalId: r.external_id, name: r.name, email: r.email,
      document: r.document, phone: r.phone ?? null, createdAt: r.created_at,
    };
  }
}
