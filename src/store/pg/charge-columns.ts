import type { AttemptRecord, ChargePatch, ChargeRecord } from '../charges';
import { FIXED } from '../charges';

/** Every field of a charge and its column; a Record, so a field added to ChargeRecord fails to compile until mapped. */
export const COLUMN: Record<keyof ChargeRecord, string> = {
  id: 'id', accountId: 'account_id', gateway: 'gateway', primaryGateway: 'primary_gateway', fallbackUsed: 'fallback_used',
  externalId: 'external_id', paymentMethod: 'payment_method', status: 'status', amount: 'amount', paidAmount: 'paid_amount',
  refundedAmount: 'refunded_amount', currency: 'currency', captured: 'captured', description: 'description',
  customerId: 'customer_id', refs: 'refs', pixQrCode: 'pix_qr_code', pixCopyPaste: 'pix_copy_paste', boletoUrl: 'boleto_url',
  boletoBarcode: 'boleto_barcode', boletoBarcodeNumber: 'boleto_barcode_number', pixExpiresAt: 'pix_expires_at',
  boletoDueDate: 'boleto_due_date', card: 'card', metadata: 'metadata', split: 'split', dispute: 'dispute', installments: 'installments', declineCode: 'decline_code', errorCode: 'error_code',
  errorMessage: 'error_message', createdAt: 'created_at', updatedAt: 'updated_at',
};
export const KEYS = Object.keys(COLUMN) as Array<keyof ChargeRecord>;
// The birth statement names the charge's id as $1 and its account as $2.
if (KEYS[0] !== 'id' || KEYS[1] !== 'accountId') throw new Error('COLUMN must list id, then accountId, first');
/** Named columns, never `*`: a prepared `SELECT *` fails in every other process once a migration adds a column. */
export const SELECT = KEYS.map((k) => COLUMN[k]).join(', ');
const JSON_KEYS = new Set<keyof ChargeRecord>(['refs', 'card', 'metadata', 'split', 'dispute', 'installments']);

/** A field as its column holds it: booleans 0/1 and JSON text, as in the SQLite store. */
export function toColumn(key: keyof ChargeRecord, v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (JSON_KEYS.has(key)) return v ? JSON.stringify(v) : null;
  return v ?? null;
}

export function fromRow(row: Record<string, unknown>): ChargeRecord {
  const c: Record<string, unknown> = {};
  for (const key of KEYS) c[key] = row[COLUMN[key]];
  c.fallbackUsed = row.fallback_used === 1;
  c.captured = row.captured === null ? null : row.captured === 1;
  for (const key of JSON_KEYS) c[key] = c[key] ? JSON.parse(c[key] as string) : null;
  return c as unknown as ChargeRecord;
}

/**
 * Every column an attempt's INSERT writes and where its value comes from: a column added to charge_attempts is one
 * line here, and both the attempt's own INSERT and the create's birth statement write it.
 */
export const ATTEMPT_INSERT: ReadonlyArray<[column: string, value: (chargeId: string, a: AttemptRecord) => unknown]> = [
  ['charge_id', (chargeId) => chargeId], ['seq', (_, a) => a.seq], ['operation', (_, a) => a.operation], ['gateway', (_, a) => a.gateway],
  ['outcome', (_, a) => a.outcome], ['error_code', (_, a) => a.errorCode ?? null], ['failure_kind', (_, a) => a.failureKind ?? null],
  ['gateway_status', (_, a) => a.gatewayStatus ?? null], ['message', (_, a) => a.message ?? null], ['ambiguous', (_, a) => (a.ambiguous ? 1 : 0)],
  ['duration_ms', (_, a) => Math.round(a.durationMs)], ['external_id', (_, a) => a.externalId ?? null], ['amount', (_, a) => a.amount ?? null],
  ['idempotency_key', (_, a) => a.idempotencyKey ?? null], ['created_at', (_, a) => a.createdAt ?? new Date().toISOString()],
  ['sent_at', (_, a) => a.sentAt ?? null], ['client_key', (_, a) => a.clientKey ?? null], ['requested_amount', (_, a) => a.requestedAmount ?? null],
];
/** The attempt INSERT, its placeholders numbered from `first`. */
export const attemptInsert = (first: number): string => `INSERT INTO charge_attempts (${ATTEMPT_INSERT.map(([c]) => c).join(', ')})
      VALUES (${ATTEMPT_INSERT.map((_, i) => `$${first + i}`).join(', ')})`;
export function attemptInsertValues(chargeId: string, a: AttemptRecord): unknown[] {
  return ATTEMPT_INSERT.map(([, value]) => value(chargeId, a));
}
/** The attempt INSERT's columns, in ATTEMPT_INSERT's order. */
export const ATTEMPT_COLUMNS: readonly string[] = ATTEMPT_INSERT.map(([c]) => c);
/** The columns finishAttempt sets, in attemptValues' order. */
export const FINISHED_COLUMNS = ['outcome', 'error_code', 'failure_kind', 'gateway_status', 'message', 'ambiguous', 'duration_ms', 'external_id', 'amount'];
/** The attempt columns both addAttempt and finishAttempt write, in this order. */
export function attemptValues(a: AttemptRecord): unknown[] {
  return [
    a.outcome, a.errorCode ?? null, a.failureKind ?? null, a.gatewayStatus ?? null, a.message ?? null, a.ambiguous ? 1 : 0,
    Math.round(a.durationMs), a.externalId ?? null, a.amount ?? null,
  ];
}


/** The columns a patch sets and their values as the columns hold them; fields that are not columns, or FIXED, are left out. */
export function patchColumns(patch: ChargePatch): Array<[column: string, value: unknown]> {
  return (Object.keys(patch) as Array<keyof ChargeRecord>)
    .filter((k) => patch[k as keyof ChargePatch] !== undefined && Object.hasOwn(COLUMN, k) && !FIXED.has(k))
    .map((k) => [COLUMN[k], toColumn(k, patch[k as keyof ChargePatch])]);
}

/** The gateway ids a patch gives the charge: the gateway's own (externalId) and the other ids of its refs. */
export function nativeIdsOf(patch: ChargePatch): { external: string | null; refs: string[] } {
  const external = typeof patch.externalId === 'string' && patch.externalId !== '' ? patch.externalId : null;
  const refs = [...new Set(Object.values(patch.refs ?? {}))].filter((v): v is string => typeof v === 'string' && v !== '' && v !== external);
  return { external, refs };
}

/**
 * Which gateway ids of a changed charge (a row `changed`) charge_native_ids indexes (as the SQLite store's
 * ChargesRepository.indexNativeIds): the gateway's own id unless the charge's gateway's webhooks name the charge
 * (`naming`, a text[] placeholder), or while the account's compatibility mode is the charge's gateway; its refs ids
 * only in that compatibility mode.
 */
export function compatModeIsGateway(changed: string): string {
  return `EXISTS (SELECT 1 FROM settings s WHERE s.account_id = ${changed}.account_id AND s.compatibility_mode = ${changed}.gateway)`;
}

/** The condition for the gateway's own id (compatModeIsGateway says which ids are indexed). */
export function indexesGatewayId(changed: string, naming: string): string {
  return `(${changed}.gateway IS NULL OR NOT (${changed}.gateway = ANY(${naming}::text[])) OR ${compatModeIsGateway(changed)})`;
}
