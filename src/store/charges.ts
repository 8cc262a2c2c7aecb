import type { DB } from './db';
import { nowIso } from './db';
import type { NormalizedCard } from '../gateways/types';

export interface ChargeRecord {
  id: string;
  accountId: string;
  gateway: string | null;
  primaryGateway: string | null;
  fallbackUsed: boolean;
  externalId: string | null;
  paymentMethod: string;
  status: string;
  amount: number;
  paidAmount: number;
  refundedAmount: number;
  currency: string;
  captured: boolean | null;
  description: string | null;
  customerId: string | null;
  refs: Record<string, string> | null;
  pixQrCode: string | null;
  pixCopyPaste: string | null;
  boletoUrl: string | null;
  boletoBarcode: string | null;
  /** Real-API fidelity fields (migration 005); optional so older writers keep compiling. */
  boletoBarcodeNumber?: string | null;
  pixExpiresAt?: string | null;
  boletoDueDate?: string | null;
  card?: NormalizedCard | null;
  metadata?: Record<string, string> | null;
  declineCode: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AttemptRecord {
  seq: number;
  operation: string;
  gateway: string;
  outcome: 'success' | 'decline' | 'failed' | 'skipped';
  errorCode?: string | null;
  failureKind?: string | null;
  gatewayStatus?: number | null;
  message?: string | null;
  ambiguous?: boolean;
  durationMs: number;
  /** The gateway's id for what this attempt created there besides the charge (a refund id). */
  externalId?: string | null;
  createdAt?: string;
}

const COLUMNS: Array<[keyof ChargeRecord, string]> = [
  ['id', 'id'], ['accountId', 'account_id'], ['gateway', 'gateway'], ['primaryGateway', 'primary_gateway'], ['fallbackUsed', 'fallback_used'],
  ['externalId', 'external_id'], ['paymentMethod', 'payment_method'], ['status', 'status'], ['amount', 'amount'], ['paidAmount', 'paid_amount'],
  ['refundedAmount', 'refunded_amount'], ['currency', 'currency'], ['captured', 'captured'], ['description', 'description'],
  ['customerId', 'customer_id'], ['refs', 'refs'], ['pixQrCode', 'pix_qr_code'], ['pixCopyPaste', 'pix_copy_paste'], ['boletoUrl', 'boleto_url'],
  ['boletoBarcode', 'boleto_barcode'], ['boletoBarcodeNumber', 'boleto_barcode_number'], ['pixExpiresAt', 'pix_expires_at'],
  ['boletoDueDate', 'boleto_due_date'], ['card', 'card'], ['metadata', 'metadata'], ['declineCode', 'decline_code'], ['errorCode', 'error_code'], ['errorMessage', 'error_message'],
  ['createdAt', 'created_at'], ['updatedAt', 'updated_at'],
];

const JSON_COLUMNS = new Set<keyof ChargeRecord>(['refs', 'card', 'metadata']);

function toRow(c: ChargeRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of COLUMNS) {
    const v = c[key];
    row[column] = typeof v === 'boolean' ? (v ? 1 : 0) : JSON_COLUMNS.has(key) ? (v ? JSON.stringify(v) : null) : (v ?? null);
  }
  return row;
}

function fromRow(row: Record<string, unknown>): ChargeRecord {
  const c: Record<string, unknown> = {};
  for (const [key, column] of COLUMNS) c[key] = row[column];
  c.fallbackUsed = row.fallback_used === 1;
  c.captured = row.captured === null ? null : row.captured === 1;
  for (const key of JSON_COLUMNS) c[key] = c[key] ? JSON.parse(c[key] as string) : null;
  return c as unknown as ChargeRecord;
}

export interface ListFilter { status?: string; gateway?: string; limit: number; after?: { createdAt: string; id: string } }

/** Charges and their attempts; a charge and the attempts that produced it are written in one transaction. */
export class ChargesRepository {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly getStmt;
  private readonly attemptStmt;
  private readonly attemptsStmt;
  private readonly maxSeqStmt;

  constructor(private readonly db: DB) {
    const cols = COLUMNS.map(([, c]) => c);
    this.insertStmt = db.prepare(`INSERT INTO charges (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`);
    this.updateStmt = db.prepare(`UPDATE charges SET ${cols.filter((c) => c !== 'id' && c !== 'account_id' && c !== 'created_at').map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
    this.getStmt = db.prepare('SELECT * FROM charges WHERE id = ? AND account_id = ?');
    this.attemptStmt = db.prepare(`INSERT INTO charge_attempts (charge_id, seq, operation, gateway, outcome, error_code, failure_kind, gateway_status, message, ambiguous, duration_ms, external_id, created_at)
      VALUES (@chargeId, @seq, @operation, @gateway, @outcome, @errorCode, @failureKind, @gatewayStatus, @message, @ambiguous, @durationMs, @externalId, @createdAt)`);
    this.attemptsStmt = db.prepare('SELECT * FROM charge_attempts WHERE charge_id = ? ORDER BY seq');
    this.maxSeqStmt = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM charge_attempts WHERE charge_id = ?').pluck();
  }

  insert(c: ChargeRecord): void {
    this.insertStmt.run(toRow(c));
  }

  /** Save the charge and append its attempts atomically. */
  save(c: ChargeRecord, attempts: AttemptRecord[]): void {
    this.db.transaction(() => {
      this.updateStmt.run(toRow({ ...c, updatedAt: nowIso() }));
      for (const a of attempts) {
        this.attemptStmt.run({
          chargeId: c.id, seq: a.seq, operation: a.operation, gateway: a.gateway, outcome: a.outcome, errorCode: a.errorCode ?? null,
          failureKind: a.failureKind ?? null, gatewayStatus: a.gatewayStatus ?? null, message: a.message ?? null, ambiguous: a.ambiguous ? 1 : 0,
          durationMs: Math.round(a.durationMs), externalId: a.externalId ?? null, createdAt: a.createdAt ?? nowIso(),
        });
      }
    })();
  }

  get(accountId: string, id: string): ChargeRecord | undefined {
    const row = this.getStmt.get(id, accountId) as Record<string, unknown> | undefined;
    return row && fromRow(row);
  }

  nextSeq(chargeId: string): number {
    return (this.maxSeqStmt.get(chargeId) as number) + 1;
  }

  attempts(chargeId: string): AttemptRecord[] {
    return (this.attemptsStmt.all(chargeId) as Array<Record<string, unknown>>).map((r) => ({
      seq: r.seq as number, operation: r.operation as string, gateway: r.gateway as string, outcome: r.outcome as AttemptRecord['outcome'],
      errorCode: r.error_code as string | null, failureKind: r.failure_kind as string | null, gatewayStatus: r.gateway_status as number | null,
      message: r.message as string | null, ambiguous: r.ambiguous === 1, durationMs: r.duration_ms as number,
      ...(r.external_id ? { externalId: r.external_id as string } : {}), createdAt: r.created_at as string,
    }));
  }

  /** Newest first; `after` is the last row of the previous page (keyset pagination, stable under inserts). */
  list(accountId: string, f: ListFilter): ChargeRecord[] {
    const where = ['account_id = @accountId'];
    if (f.status) where.push('status = @status');
    if (f.gateway) where.push('gateway = @gateway');
    if (f.after) where.push('(created_at < @afterCreated OR (created_at = @afterCreated AND id < @afterId))');
    const sql = `SELECT * FROM charges WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`;
    const rows = this.db.prepare(sql).all({
      accountId, status: f.status, gateway: f.gateway, afterCreated: f.after?.createdAt, afterId: f.after?.id, limit: f.limit,
    }) as Array<Record<string, unknown>>;
    return rows.map(fromRow);
  }
}
