import type { DB } from './db';
import type { PayerAddress } from '../gateways/types';

export interface CustomerRecord {
  id: string;
  accountId: string;
  gateway: string;
  externalId: string;
  name: string;
  email: string;
  document: string;
  phone: string | null;
  address?: PayerAddress | null;
  metadata?: Record<string, string> | null;
  createdAt: string;
}

export class CustomersRepository {
  private readonly insertStmt;
  private readonly byExternalStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly byDocumentStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO customers (id, account_id, gateway, external_id, name, email, document, phone, address, metadata, created_at)
      VALUES (@id, @accountId, @gateway, @externalId, @name, @email, @document, @phone, @address, @metadata, @createdAt)`);
    this.byExternalStmt = db.prepare('SELECT * FROM customers WHERE account_id = ? AND external_id = ? LIMIT 1');
    this.byIdStmt = db.prepare('SELECT * FROM customers WHERE account_id = ? AND id = ?');
    this.byDocumentStmt = db.prepare('SELECT * FROM customers WHERE account_id = ? AND gateway = ? AND document = ? ORDER BY created_at DESC, id DESC LIMIT 1');
    this.listStmt = db.prepare('SELECT * FROM customers WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?');
  }

  async insert(c: CustomerRecord): Promise<void> {
    this.insertStmt.run({ ...c, address: c.address ? JSON.stringify(c.address) : null, metadata: c.metadata ? JSON.stringify(c.metadata) : null });
  }

  /** The customer RouteGate created under this gateway id, if it did. */
  async byExternalId(accountId: string, externalId: string): Promise<CustomerRecord | undefined> {
    return fromRow(this.byExternalStmt.get(accountId, externalId) as Record<string, string> | undefined);
  }

  /** The newest customer RouteGate created at this gateway for this document (a charge's inline payer reuses it). */
  async byDocument(accountId: string, gateway: string, document: string): Promise<CustomerRecord | undefined> {
    return fromRow(this.byDocumentStmt.get(accountId, gateway, document) as Record<string, string> | undefined);
  }

  /** The account's customer by RouteGate's id (cus_rg_...) or by the gateway's id. */
  async findByAnyId(accountId: string, id: string): Promise<CustomerRecord | undefined> {
    return fromRow(this.byIdStmt.get(accountId, id) as Record<string, string> | undefined) ?? this.byExternalId(accountId, id);
  }

  /** The account's customers, newest first (a compat gateway's native customer list). */
  async list(accountId: string, limit: number, offset = 0): Promise<CustomerRecord[]> {
    return (this.listStmt.all(accountId, limit, offset) as Array<Record<string, string>>).map((r) => fromRow(r)!);
  }
}

function fromRow(r: Record<string, string> | undefined): CustomerRecord | undefined {
  return r && {
    id: r.id, accountId: r.account_id, gateway: r.gateway, externalId: r.external_id, name: r.name, email: r.email,
    document: r.document, phone: r.phone ?? null, address: r.address ? JSON.parse(r.address) : null,
    metadata: r.metadata ? JSON.parse(r.metadata) : null, createdAt: r.created_at,
  };
}
