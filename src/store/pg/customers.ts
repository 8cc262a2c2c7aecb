import type { CustomerRecord } from '../customers';
import type { Queryable } from './pool';
import { withValues } from './queryable';

const SELECT = 'id, account_id, gateway, external_id, name, email, document, phone, address, metadata, created_at';
const INSERT = {
  name: 'customers.insert',
  text: `INSERT INTO customers (${SELECT}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
};
const BY_EXTERNAL = { name: 'customers.by-external', text: `SELECT ${SELECT} FROM customers WHERE account_id = $1 AND external_id = $2 LIMIT 1` };
const BY_ID = { name: 'customers.by-id', text: `SELECT ${SELECT} FROM customers WHERE account_id = $1 AND id = $2` };
const BY_DOCUMENT = {
  name: 'customers.by-document',
  text: `SELECT ${SELECT} FROM customers WHERE account_id = $1 AND gateway = $2 AND document = $3 ORDER BY created_at DESC, id DESC LIMIT 1`,
};
const LIST = { name: 'customers.list', text: `SELECT ${SELECT} FROM customers WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3` };

/** Customers created at gateways: CustomersRepository's contract on PostgreSQL. */
export class PgCustomersRepository {
  constructor(private readonly q: Queryable) {}

  async insert(c: CustomerRecord): Promise<void> {
    await this.q.query(withValues(INSERT, [
      c.id, c.accountId, c.gateway, c.externalId, c.name, c.email, c.document, c.phone ?? null,
      c.address ? JSON.stringify(c.address) : null, c.metadata ? JSON.stringify(c.metadata) : null, c.createdAt,
    ]));
  }

  /** The customer RouteGate created under this gateway id, if it did. */
  async byExternalId(accountId: string, externalId: string): Promise<CustomerRecord | undefined> {
    return fromRow((await this.q.query(withValues(BY_EXTERNAL, [accountId, externalId]))).rows[0]);
  }

  /** The newest customer RouteGate created at this gateway for this document (a charge's inline payer reuses it). */
  async byDocument(accountId: string, gateway: string, document: string): Promise<CustomerRecord | undefined> {
    return fromRow((await this.q.query(withValues(BY_DOCUMENT, [accountId, gateway, document]))).rows[0]);
  }

  /** The account's customer by RouteGate's id (cus_rg_...) or by the gateway's id. */
  async findByAnyId(accountId: string, id: string): Promise<CustomerRecord | undefined> {
    return fromRow((await this.q.query(withValues(BY_ID, [accountId, id]))).rows[0]) ?? this.byExternalId(accountId, id);
  }

  /** The account's customers, newest first (a compat gateway's native customer list). */
  async list(accountId: string, limit: number, offset = 0): Promise<CustomerRecord[]> {
    return (await this.q.query(withValues(LIST, [accountId, limit, offset]))).rows.map((r) => fromRow(r)!);
  }
}

function fromRow(r: Record<string, string> | undefined): CustomerRecord | undefined {
  return r && {
    id: r.id, accountId: r.account_id, gateway: r.gateway, externalId: r.external_id, name: r.name, email: r.email,
    document: r.document, phone: r.phone ?? null, address: r.address ? JSON.parse(r.address) : null,
    metadata: r.metadata ? JSON.parse(r.metadata) : null, createdAt: r.created_at,
  };
}
