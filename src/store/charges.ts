import type { InstallmentPlan } from '../installments/price-table';
import type { DB } from './db';
import { nowIso } from './db';
import type { AppliedSplitItem, NormalizedCard } from '../gateways/types';

export type DisputeStatus = 'open' | 'won' | 'lost';

/** A chargeback as stored on the charge (column `dispute`, migration 021; src/charges/disputes.ts). Amount in cents. */
export interface ChargeDispute {
  status: DisputeStatus;
  amount: number;
  /** The gateway's own reason code for the chargeback (e.g. `fraudulent`), null when it gives none. */
  reason: string | null;
  openedAt: string;
  /** The status the charge had when the dispute opened: where a won dispute takes it back. Never shown. */
  priorStatus?: string;
}

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
  /** The split as applied on the charge's gateway (migration 009): resolved recipient ids, cents. */
  split?: AppliedSplitItem[] | null;
  /** A chargeback on the charge (migration 021): never a refund, refundedAmount does not move with it. */
  dispute?: ChargeDispute | null;
  /** A card charge in installments: the plan it was charged with (migration 024); amount is its totalAmount, or the price where a gateway financed its own quoted plan. */
  installments?: InstallmentPlan | null;
  declineCode: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export type AttemptOutcome = 'success' | 'decline' | 'failed' | 'skipped' | 'in_flight' | 'unknown' | 'reconciled' | 'pending';

export interface AttemptRecord {
  seq: number;
  operation: string;
  gateway: string;
  /**
   * in_flight: written before the gateway call, so a crash leaves a trace; unknown: the outcome could not be proven;
   * reconciled: an unknown follow-up after which the charge was re-read at the gateway (its amounts are the truth);
   * pending: a refund the gateway holds in process, or refused for now and sent again later (docs/charges.md).
   */
  outcome: AttemptOutcome;
  errorCode?: string | null;
  failureKind?: string | null;
  gatewayStatus?: number | null;
  message?: string | null;
  ambiguous?: boolean;
  durationMs: number;
  /** The gateway's id for what this attempt created there besides the charge (a refund id). */
  externalId?: string | null;
  /** The idempotency key the gateway call carried. */
  idempotencyKey?: string | null;
  /** Cents a successful refund moved (one refund of several on the charge). */
  amount?: number | null;
  /** A follow-up's client Idempotency-Key (as the idempotency store keeps it), bound to this operation. */
  clientKey?: string | null;
  /** A follow-up's amount as asked for and sent (null: all that remained), so a replay sends the same call. */
  requestedAmount?: number | null;
  createdAt?: string;
  /** A create's: when its request left RouteGate (ms since the epoch); written, not read back with the attempts. */
  sentAt?: number | null;
}

/** A create attempt that went out (or may have), as settlement needs it: its key and when it was last sent. */
export interface CreateSend {
  seq: number;
  gateway: string;
  outcome: AttemptOutcome;
  ambiguous: boolean;
  idempotencyKey: string | null;
  /** ms since the epoch; the attempt's createdAt for rows written before migration 018. */
  sentAt: number;
}

/** What RouteGate did with an orphan: nothing yet, undone at the gateway, or left to the merchant (orphanPolicy). */
export type OrphanAction = 'found' | 'refunded' | 'cancelled' | 'notified';

/** A payment found at a gateway with the charge's reference that is not the charge's own (migration 018). */
export interface OrphanRecord {
  gateway: string;
  externalId: string;
  chargeId: string;
  accountId: string;
  paymentMethod: string;
  /** The gateway's status when found (RouteGate's normalized status). */
  status: string;
  amount: number;
  action: OrphanAction;
  message: string | null;
  foundAt: string;
  updatedAt: string;
}

/** The candidates whose lock `tryLock` took, each by its own atomic UPDATE (one taken meanwhile is left out). */
async function lockEach(candidates: Array<{ id: string; accountId: string }>, tryLock: (id: string) => Promise<boolean>): Promise<Array<{ id: string; accountId: string }>> {
  const claimed: Array<{ id: string; accountId: string }> = [];
  for (const due of candidates) {
    if (await tryLock(due.id)) claimed.push(due);
  }
  return claimed;
}

export function orphanFromRow(r: Record<string, unknown>): OrphanRecord {
  return {
    gateway: r.gateway as string, externalId: r.external_id as string, chargeId: r.charge_id as string, accountId: r.account_id as string,
    paymentMethod: r.payment_method as string, status: r.status as string, amount: Number(r.amount), action: r.action as OrphanAction,
    message: (r.message as string | null) ?? null, foundAt: r.found_at as string, updatedAt: r.updated_at as string,
  };
}

export function createSendFromRow(r: Record<string, unknown>): CreateSend {
  const sentAt = r.sent_at === null || r.sent_at === undefined ? Date.parse(r.created_at as string) : Number(r.sent_at);
  return {
    seq: Number(r.seq), gateway: r.gateway as string, outcome: r.outcome as AttemptOutcome, ambiguous: Number(r.ambiguous) === 1,
    idempotencyKey: (r.idempotency_key as string | null) ?? null, sentAt,
  };
}

/** The columns a state change may touch; never id, account_id or created_at. */
export type ChargePatch = Partial<Omit<ChargeRecord, 'id' | 'accountId' | 'createdAt' | 'updatedAt'>>;

const COLUMNS: Array<[keyof ChargeRecord, string]> = [
  ['id', 'id'], ['accountId', 'account_id'], ['gateway', 'gateway'], ['primaryGateway', 'primary_gateway'], ['fallbackUsed', 'fallback_used'],
  ['externalId', 'external_id'], ['paymentMethod', 'payment_method'], ['status', 'status'], ['amount', 'amount'], ['paidAmount', 'paid_amount'],
  ['refundedAmount', 'refunded_amount'], ['currency', 'currency'], ['captured', 'captured'], ['description', 'description'],
  ['customerId', 'customer_id'], ['refs', 'refs'], ['pixQrCode', 'pix_qr_code'], ['pixCopyPaste', 'pix_copy_paste'], ['boletoUrl', 'boleto_url'],
  ['boletoBarcode', 'boleto_barcode'], ['boletoBarcodeNumber', 'boleto_barcode_number'], ['pixExpiresAt', 'pix_expires_at'],
  ['boletoDueDate', 'boleto_due_date'], ['card', 'card'], ['metadata', 'metadata'], ['split', 'split'], ['dispute', 'dispute'], ['installments', 'installments'], ['declineCode', 'decline_code'], ['errorCode', 'error_code'], ['errorMessage', 'error_message'],
  ['createdAt', 'created_at'], ['updatedAt', 'updated_at'],
];

const JSON_COLUMNS = new Set<keyof ChargeRecord>(['refs', 'card', 'metadata', 'split', 'dispute', 'installments']);

// Rows travel as arrays in COLUMNS order (positional parameters, `raw()` statements): better-sqlite3 reads and
// builds objects of ~35 named properties through V8's API one property at a time, which cost ~3 µs a row.
const SELECTED = COLUMNS.map(([, column]) => column).join(', ');
const ACCOUNT_ID = COLUMNS.findIndex(([key]) => key === 'accountId');
const GATEWAY = COLUMNS.findIndex(([key]) => key === 'gateway');

/** A scalar as stored: booleans as 0 or 1, undefined as NULL. */
function scalar(v: unknown): unknown {
  return typeof v === 'boolean' ? (v ? 1 : 0) : (v ?? null);
}

/** A JSON column's value as stored: its text, or NULL for none. */
function json(v: unknown): string | null {
  return v ? JSON.stringify(v) : null;
}

/** How a stored value reads back, as a JS expression of the row's value `v`. */
function readBack(key: keyof ChargeRecord, v: string): string {
  if (key === 'fallbackUsed') return `${v} === 1`;
  if (key === 'captured') return `${v} === null ? null : ${v} === 1`;
  return JSON_COLUMNS.has(key) ? `${v} ? JSON.parse(${v}) : null` : v;
}

// A record's values in COLUMNS order and a row as a record, each one array or object literal generated from COLUMNS
// at load (the keys are COLUMNS' own names, never input). Through 31 computed keys, writing a row's values cost 1.6 µs
// against 0.1 µs, and reading a row 5.2 µs against 1.5 µs (docs/performance.md, seventh round).
const toValues = new Function('scalar', 'json', `return (c) => [${COLUMNS.map(([key]) => `${JSON_COLUMNS.has(key) ? 'json' : 'scalar'}(c.${key})`).join(', ')}];`)(scalar, json) as
  (c: ChargeRecord) => unknown[];
const fromValues = new Function('row', `return { ${COLUMNS.map(([key], i) => `${key}: ${readBack(key, `row[${i}]`)}`).join(', ')} };`) as
  (row: unknown[]) => ChargeRecord;

export interface ListFilter { status?: string; gateway?: string; limit: number; after?: { createdAt: string; id: string }; offset?: number }

const COLUMN_OF = new Map(COLUMNS);

/** The columns a patch sets: defined values of known, settable fields. */
function patchKeys(patch: ChargePatch): Array<keyof ChargeRecord> {
  return (Object.keys(patch) as Array<keyof ChargeRecord>)
    .filter((k) => patch[k as keyof ChargePatch] !== undefined && COLUMN_OF.has(k) && !FIXED.has(k));
}

/**
 * What a patch may never set, on either store (ChargePatch excludes them; a caller's cast cannot move a charge to
 * another account).
 */
export const FIXED = new Set<keyof ChargeRecord>(['id', 'accountId', 'createdAt', 'updatedAt']);

/**
 * SET clauses releasing the lock only when the owner bound to both parameters holds it (both read the row's old
 * lock_owner).
 */
const RELEASE_IF_OWNER = `lock_owner = CASE WHEN lock_owner = ? THEN NULL ELSE lock_owner END,
  lock_expires_at = CASE WHEN lock_owner = ? THEN NULL ELSE lock_expires_at END`;

function columnValue(key: keyof ChargeRecord, v: unknown): unknown {
  return JSON_COLUMNS.has(key) ? json(v) : scalar(v);
}

type Statement = import('better-sqlite3').Statement;

/**
 * One prepared UPDATE per set of patched columns (a handful of shapes in practice). Its parameters are positional,
 * in this order: the patched columns' values and updated_at (patchValues), those of `extraSets`, then the id.
 * better-sqlite3 reads a named parameter's value from its object through V8's API, about 0.1 µs a name.
 */
function preparedPatch(db: DB, cache: Map<string, Statement>, keys: Array<keyof ChargeRecord>, extraSets: string): Statement {
  const sig = keys.join(',');
  let stmt = cache.get(sig);
  if (!stmt) {
    const sets = [...keys.map((k) => `${COLUMN_OF.get(k)} = ?`), 'updated_at = ?'].join(', ');
    stmt = db.prepare(`UPDATE charges SET ${sets}${extraSets} WHERE id = ?`);
    cache.set(sig, stmt);
  }
  return stmt;
}

/** The patched columns' values in `keys` order, then updated_at: the first parameters of preparedPatch's statement. */
function patchValues(keys: Array<keyof ChargeRecord>, patch: ChargePatch): unknown[] {
  const values: unknown[] = [];
  for (const k of keys) values.push(columnValue(k, patch[k as keyof ChargePatch]));
  values.push(nowIso());
  return values;
}

/**
 * The gateway ids a patch gives the charge, indexed in the caller's transaction. Native follow-ups name a charge by
 * any of them, and only accounts whose compatibility mode is the charge's gateway make those (`compatWanted()`).
 * Webhooks name it by the gateway's id (`externalId`), or, at a gateway whose webhooks carry RouteGate's charge id
 * (`gatewayNamesChargeId()`), by that id too (findCharge tries both). So the gateway's id is indexed unless its
 * webhooks name the charge and the mode is not its gateway, and the ids in `refs` only for the mode: each id indexed
 * is a random page written with the charge (docs/compatibility.md, "Which gateway ids are indexed";
 * docs/performance.md, twelfth and sixteenth rounds).
 */
function indexNativeIds(patch: ChargePatch, gatewayNamesChargeId: () => boolean, compatWanted: () => boolean, index: (nativeId: string) => void): void {
  const external = typeof patch.externalId === 'string' && patch.externalId !== '' ? patch.externalId : undefined;
  const refs = refsOf(patch).filter((id) => id !== external);
  if (external === undefined && refs.length === 0) return;
  let wanted: boolean | undefined;
  const compat = () => (wanted ??= compatWanted());
  if (external !== undefined && (!gatewayNamesChargeId() || compat())) index(external);
  if (refs.length > 0 && compat()) for (const id of new Set(refs)) index(id);
}

function refsOf(patch: ChargePatch): string[] {
  return Object.values(patch.refs ?? {}).filter((v): v is string => typeof v === 'string' && v !== '');
}

// The failureKind of a refund refused for now (src/charges/pending-refunds.ts REFUSED_FOR_NOW): nothing to read at its gateway.
export const REFUSED_FOR_NOW_KIND = 'refused_for_now';

/** The attempt rows (aliased `a`) of a refund its gateway holds in process: pending, and not refused for now. */
export function refundInProcessWhere(a: string): string {
  return `${a}.operation = 'refund' AND ${a}.outcome = 'pending' AND (${a}.failure_kind IS NULL OR ${a}.failure_kind <> '${REFUSED_FOR_NOW_KIND}')`;
}

// The charge's own attempt rows (by its key), none of them turned into a record.
export const REFUND_IN_PROCESS_SQL = `SELECT 1 FROM charge_attempts a WHERE a.charge_id = ? AND ${refundInProcessWhere('a')} LIMIT 1`;

/**
 * The attempts that keep a follow-up from beginning in one write (beginOnSnapshot), as the full path would find
 * them under the lock: any operation whose outcome is not known (a create's included), a follow-up pending at its
 * gateway, or a follow-up the client's key (`key`, a placeholder) is already bound to.
 */
export function holdsFollowUpWhere(a: string, key: string): string {
  const followUp = `${a}.operation IN ('capture', 'cancel', 'refund')`;
  return `(${a}.outcome IN ('in_flight', 'unknown') OR (${followUp} AND (${a}.outcome = 'pending' OR ${a}.client_key = ${key})))`;
}

/** The fields of ChargeView, in the order a kept snapshot lists them (src/store/pg/charge-snapshots.ts). */
export const CHARGE_VIEW_KEYS = [
  'id', 'accountId', 'gateway', 'paymentMethod', 'status', 'captured', 'amount', 'paidAmount', 'refundedAmount', 'externalId',
] as const satisfies ReadonlyArray<keyof ChargeRecord>;
/** What a follow-up checks a request against before it writes anything (follow-ups.ts). */
export type ChargeView = Pick<ChargeRecord, (typeof CHARGE_VIEW_KEYS)[number]>;

/** The charge as read (what the checks need of it), and the version of its row that a later beginOnSnapshot compares. */
export interface ChargeSnapshot {
  readonly charge: ChargeView;
  readonly version: string;
}

/**
 * What beginOnSnapshot did: `stale` nothing (the row changed since the snapshot, or a live holder has its lock);
 * `held` took the lock only (an attempt holds the charge: the full path goes on under it); `begun` took the lock and
 * began the operation, number `seq`, on `charge` (the row as locked: the version the snapshot named).
 */
export type SnapshotBegin = { state: 'stale' } | { state: 'held' } | { state: 'begun'; seq: number; charge: ChargeRecord };

/**
 * Charges and their attempts. Every state change is an UPDATE of the columns that changed, made while the
 * caller holds the charge's lock (a row in the database, so it holds across processes on one file); nothing
 * writes back a whole row read earlier.
 */
export class ChargesRepository {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly getAnyStmt;
  private readonly ownerOfStmt;
  private readonly attemptStmt;
  private readonly finishAttemptStmt;
  private readonly resendAttemptStmt;
  private readonly attemptsStmt;
  private readonly refundInProcessStmt;
  private readonly nextSeqStmt;
  private readonly lockStmt;
  private readonly unlockStmt;
  private readonly dueStmt;
  private readonly scheduleStmt;
  private readonly processingCountStmt;
  private readonly unsettledFollowUpsStmt;
  private readonly reconcileAttemptsStmt;
  private readonly nativeIdStmt;
  private readonly byNativeIdStmt;
  private readonly byNumericIdStmt;
  private readonly numericIdStmt;
  private readonly compatModeIsGatewayStmt;
  private readonly markSentStmt;
  private readonly createSendsStmt;
  private readonly recheckStmt;
  private readonly recheckDueStmt;
  private readonly addOrphanStmt;
  private readonly orphansStmt;
  private readonly orphanActionStmt;
  private readonly findOrphanStmt;
  private readonly linkKeyStmt;
  private readonly linkOperationStmt;
  private readonly snapshotStmt;
  private readonly holdsStmt;
  private readonly updateStmts = new Map<string, Statement>();
  private readonly settleStmts = new Map<string, Statement>();
  private readonly listStmts = new Map<string, Statement>();

  constructor(private readonly db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO charges (${SELECTED}, lock_owner, lock_expires_at, op_seq)
      VALUES (${COLUMNS.map(() => '?').join(', ')}, ?, ?, ?)`);
    this.getStmt = db.prepare(`SELECT ${SELECTED} FROM charges WHERE id = ? AND account_id = ?`).raw();
    this.getAnyStmt = db.prepare(`SELECT ${SELECTED} FROM charges WHERE id = ?`).raw();
    // The row's values as the version: the lock and the operation counter change with every operation.
    this.snapshotStmt = db.prepare(`SELECT ${SELECTED}, lock_owner, lock_expires_at, op_seq FROM charges WHERE id = ? AND account_id = ?`).raw();
    this.holdsStmt = db.prepare(`SELECT 1 FROM charge_attempts a WHERE a.charge_id = ? AND ${holdsFollowUpWhere('a', '?')} LIMIT 1`).pluck();
    this.ownerOfStmt = db.prepare('SELECT account_id, gateway FROM charges WHERE id = ?').raw();
    // Positional parameters, in attemptValues' order (see preparedPatch on named ones).
    this.attemptStmt = db.prepare(`INSERT INTO charge_attempts (outcome, error_code, failure_kind, gateway_status, message, ambiguous, duration_ms, external_id, amount,
      charge_id, seq, operation, gateway, idempotency_key, created_at, sent_at, client_key, requested_amount) VALUES (${'?, '.repeat(17)}?)`);
    this.finishAttemptStmt = db.prepare(`UPDATE charge_attempts SET outcome = ?, error_code = ?, failure_kind = ?, gateway_status = ?, message = ?,
      ambiguous = ?, duration_ms = ?, external_id = ?, amount = ? WHERE charge_id = ? AND seq = ?`);
    this.resendAttemptStmt = db.prepare("UPDATE charge_attempts SET outcome = 'in_flight', idempotency_key = ?, message = ? WHERE charge_id = ? AND seq = ? AND outcome = 'pending'");
    this.attemptsStmt = db.prepare('SELECT * FROM charge_attempts WHERE charge_id = ? ORDER BY seq');
    this.refundInProcessStmt = db.prepare(REFUND_IN_PROCESS_SQL).pluck();
    this.nextSeqStmt = db.prepare('UPDATE charges SET op_seq = op_seq + 1 WHERE id = ? RETURNING op_seq').pluck();
    this.lockStmt = db.prepare('UPDATE charges SET lock_owner = ?, lock_expires_at = ? WHERE id = ? AND (lock_owner IS NULL OR lock_expires_at <= ?)');
    this.unlockStmt = db.prepare('UPDATE charges SET lock_owner = NULL, lock_expires_at = NULL WHERE id = ? AND lock_owner = ?');
    this.dueStmt = db.prepare(`SELECT id, account_id FROM charges WHERE status = 'processing' AND reconcile_after <= ?
      AND (lock_owner IS NULL OR lock_expires_at <= ?) ORDER BY reconcile_after, id LIMIT ?`);
    this.processingCountStmt = db.prepare("SELECT COUNT(*) FROM charges WHERE status = 'processing'").pluck();
    // Through charge_attempts_unsettled (migration 017): its WHERE is this one.
    this.unsettledFollowUpsStmt = db.prepare(`SELECT DISTINCT charge_id FROM charge_attempts
      WHERE outcome IN ('in_flight', 'unknown', 'pending') AND operation IN ('capture', 'cancel', 'refund') LIMIT ?`).pluck();
    this.reconcileAttemptsStmt = db.prepare('SELECT reconcile_attempts FROM charges WHERE id = ?').pluck();
    this.scheduleStmt = db.prepare('UPDATE charges SET reconcile_attempts = ?, reconcile_after = ? WHERE id = ?');
    this.nativeIdStmt = db.prepare('INSERT OR IGNORE INTO charge_native_ids (native_id, account_id, charge_id) VALUES (?, ?, ?)');
    this.byNativeIdStmt = db.prepare('SELECT charge_id FROM charge_native_ids WHERE account_id = ? AND native_id = ?').pluck();
    this.byNumericIdStmt = db.prepare('SELECT id FROM charges WHERE numeric_id = ? AND account_id = ?').pluck();
    this.numericIdStmt = db.prepare('SELECT numeric_id FROM charges WHERE id = ? AND account_id = ?').pluck();
    this.compatModeIsGatewayStmt = db.prepare('SELECT 1 FROM settings WHERE account_id = ? AND compatibility_mode = ?').pluck();
    this.markSentStmt = db.prepare('UPDATE charge_attempts SET sent_at = ? WHERE charge_id = ? AND seq = ?');
    this.createSendsStmt = db.prepare(`SELECT seq, gateway, outcome, ambiguous, idempotency_key, sent_at, created_at FROM charge_attempts
      WHERE charge_id = ? AND operation = 'charge' AND outcome <> 'skipped' ORDER BY seq`);
    this.recheckStmt = db.prepare('UPDATE charges SET recheck = ? WHERE id = ?');
    this.recheckDueStmt = db.prepare(`SELECT id, account_id FROM charges WHERE recheck = 1 AND reconcile_after <= ?
      AND (lock_owner IS NULL OR lock_expires_at <= ?) ORDER BY reconcile_after, id LIMIT ?`);
    this.addOrphanStmt = db.prepare(`INSERT OR IGNORE INTO charge_orphans (gateway, external_id, charge_id, account_id, payment_method, status, amount, action, message,
      found_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.orphansStmt = db.prepare('SELECT * FROM charge_orphans WHERE charge_id = ? ORDER BY found_at, gateway');
    this.orphanActionStmt = db.prepare('UPDATE charge_orphans SET action = ?, message = ?, updated_at = ? WHERE gateway = ? AND external_id = ?');
    this.findOrphanStmt = db.prepare('SELECT * FROM charge_orphans WHERE gateway = ? AND external_id = ?');
    // IdempotencyRepository.linkCharge's statement, for birth(): the PostgreSQL store writes the link in the birth's statement.
    this.linkKeyStmt = db.prepare('UPDATE idempotency_keys SET charge_id = ? WHERE account_id = ? AND key = ?');
    // IdempotencyRepository.linkOperation's statement, for beginOperation().
    this.linkOperationStmt = db.prepare('UPDATE idempotency_keys SET charge_id = ?, operation_seq = ? WHERE account_id = ? AND key = ?');
  }

  /** A create attempt's request is about to leave again (a same-key replay): the settle horizon counts from now. */
  async markSent(chargeId: string, seq: number, at: number): Promise<void> {
    this.markSentStmt.run(at, chargeId, seq);
  }

  /** The charge's create attempts that went out or may have (not the skipped ones), oldest first. */
  async createSends(chargeId: string): Promise<CreateSend[]> {
    return (this.createSendsStmt.all(chargeId) as Array<Record<string, unknown>>).map(createSendFromRow);
  }

  /** Keep (or stop) re-checking a settled charge at the gateways its create reached (migration 018). */
  async setRecheck(id: string, on: boolean): Promise<void> {
    this.recheckStmt.run(on ? 1 : 0, id);
  }

  /** As claimDueForReconcile, for settled charges marked for a re-check. */
  async claimRecheckDue(owner: string, now: number, leaseMs: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const due = (this.recheckDueStmt.all(now, now, limit) as Array<{ id: string; account_id: string }>).map((r) => ({ id: r.id, accountId: r.account_id }));
    return await lockEach(due, (id) => this.tryLock(id, owner, now, leaseMs));
  }

  /** Record an orphan once; false when it was recorded already. */
  async addOrphan(o: OrphanRecord): Promise<boolean> {
    return this.addOrphanStmt.run(o.gateway, o.externalId, o.chargeId, o.accountId, o.paymentMethod, o.status, o.amount, o.action, o.message, o.foundAt, o.updatedAt).changes === 1;
  }

  async orphans(chargeId: string): Promise<OrphanRecord[]> {
    return (this.orphansStmt.all(chargeId) as Array<Record<string, unknown>>).map(orphanFromRow);
  }

  async setOrphanAction(gateway: string, externalId: string, action: OrphanAction, message: string | null): Promise<void> {
    this.orphanActionStmt.run(action, message, nowIso(), gateway, externalId);
  }

  /**
   * The orphan a gateway's id names, if any: a webhook about a payment that is not its charge's own is attached to
   * the charge through this (the charge row names another gateway, so the usual lookup finds nothing).
   */
  async findOrphan(gateway: string, externalId: string): Promise<OrphanRecord | undefined> {
    const r = this.findOrphanStmt.get(gateway, externalId) as Record<string, unknown> | undefined;
    return r && orphanFromRow(r);
  }

  /**
   * A new charge, locked by its creator until the create is settled. `opSeq` is the last operation number already
   * taken (a create that writes its first attempt with the row takes 1 here instead of a nextSeq after it).
   */
  async insert(c: ChargeRecord, lock: { owner: string; expiresAt: number }, opSeq = 0): Promise<void> {
    const values = toValues(c);
    values.push(lock.owner, lock.expiresAt, opSeq);
    this.insertStmt.run(values);
  }

  /**
   * A create's first write, before its gateway call: the charge (locked by its creator, operation number 1 taken),
   * its first attempt (in_flight, under its deterministic idempotency key), and the client's Idempotency-Key bound
   * to the charge. Called in a transaction (Store.writeOne): on PostgreSQL it is one statement, one round trip.
   */
  async birth(c: ChargeRecord, lock: { owner: string; expiresAt: number }, attempt: AttemptRecord, clientKey?: string): Promise<void> {
    await this.insert(c, lock, attempt.seq);
    await this.addAttempt(c.id, attempt);
    if (clientKey !== undefined) this.linkKeyStmt.run(c.id, c.accountId, clientKey);
  }

  /**
   * A follow-up's write before its gateway call: its operation number taken (nextSeq), its attempt recorded in_flight
   * under the gateway key `<charge id>-<keyOp>-<seq>`, and the client's Idempotency-Key bound to it; answers the
   * number. Called in a transaction (Store.writeOne) while the caller holds the charge's lock: on PostgreSQL one
   * statement, one round trip.
   */
  async beginOperation(
    chargeId: string, accountId: string, keyOp: string, a: Omit<AttemptRecord, 'seq' | 'idempotencyKey'>, clientKey?: string,
  ): Promise<number> {
    const seq = await this.nextSeq(chargeId);
    await this.addAttempt(chargeId, operationAttempt(chargeId, keyOp, seq, a));
    if (clientKey !== undefined) this.linkOperationStmt.run(chargeId, seq, accountId, clientKey);
    return seq;
  }

  /**
   * The charge with the version of its row (its values here, its xmin on PostgreSQL): what a follow-up decides on
   * before beginOnSnapshot, which acts only if the row is still that version. On PostgreSQL it may come, with no
   * read, from the snapshots the process keeps of the rows its own writes left.
   */
  async snapshot(accountId: string, id: string): Promise<ChargeSnapshot | undefined> {
    const row = this.snapshotStmt.get(id, accountId) as unknown[] | undefined;
    return row && { charge: fromValues(row), version: JSON.stringify(row) };
  }

  /**
   * A follow-up's write before its gateway call when the charge is still as `seen`: its lock taken and, unless an
   * attempt holds the charge (holdsFollowUpWhere), the operation begun as beginOperation begins it, in one write (on
   * PostgreSQL one statement). Called in a transaction (Store.writeOne).
   */
  async beginOnSnapshot(
    seen: ChargeSnapshot, owner: string, now: number, leaseMs: number, keyOp: string, a: Omit<AttemptRecord, 'seq' | 'idempotencyKey'>, clientKey?: string,
  ): Promise<SnapshotBegin> {
    const { id, accountId } = seen.charge;
    const row = this.snapshotStmt.get(id, accountId) as unknown[] | undefined;
    if (!row || JSON.stringify(row) !== seen.version) return { state: 'stale' };
    const locked = await this.tryLock(id, owner, now, leaseMs);
    if (!locked) return { state: 'stale' };
    if (this.holdsStmt.get(id, clientKey ?? null) !== undefined) return { state: 'held' };
    return { state: 'begun', seq: await this.beginOperation(id, accountId, keyOp, a, clientKey), charge: fromValues(row) };
  }

  /**
   * An operation's last write, after its gateway call: how its attempt ended (finishAttempt), then settle(). Called
   * in a transaction (Store.writeOne): on PostgreSQL it is one statement, one round trip.
   */
  async settleOperation(id: string, finished: AttemptRecord, patch: ChargePatch, owner: string): Promise<ChargeRecord> {
    await this.finishAttempt(id, finished);
    return this.settle(id, patch, owner);
  }

  /** Set exactly these columns (and updated_at); nothing else in the row is written. */
  async update(id: string, patch: ChargePatch): Promise<void> {
    const keys = patchKeys(patch);
    const values = patchValues(keys, patch);
    values.push(id);
    // No RETURNING (an ephemeral table per run, as in settle): the account the gateway ids are indexed under, and the
    // gateway as this patch left it, are read only when the patch brings ids, once.
    if (preparedPatch(this.db, this.updateStmts, keys, '').run(values).changes === 0) return;
    let owner: [accountId: string, gateway: string | null] | undefined;
    const ownerOf = () => (owner ??= this.ownerOfStmt.get(id) as [string, string | null]);
    indexNativeIds(patch, () => this.namesChargeId(ownerOf()[1]), () => this.compatModeIsGateway(...ownerOf()), (nativeId) => this.nativeIdStmt.run(nativeId, ownerOf()[0], id));
  }

  /**
   * update() and the release of `owner`'s lock in one statement, answering the row as stored: the last write of an
   * operation, which would otherwise be an update and an unlock. The lock is released only if `owner` still holds it
   * (as unlock()); the columns are set either way (as update()).
   */
  async settle(id: string, patch: ChargePatch, owner: string): Promise<ChargeRecord> {
    // The UPDATE and a read of the row by its key, not `UPDATE ... RETURNING`: SQLite gathers RETURNING rows in an
    // ephemeral table, a pager and page cache of its own made and freed on every run (docs/performance.md, seventh
    // round). In one transaction, the read sees exactly this write.
    const write = (): ChargeRecord => {
      const keys = patchKeys(patch);
      const values = patchValues(keys, patch);
      values.push(owner, owner, id);
      const changed = preparedPatch(this.db, this.settleStmts, keys, `, ${RELEASE_IF_OWNER}`).run(values).changes;
      const row = changed === 1 ? this.getAnyStmt.get(id) as unknown[] | undefined : undefined;
      if (!row) throw new Error(`charge ${id} is not stored`);
      // The row names the account: no lookup of the charge per id.
      const gateway = row[GATEWAY] as string | null;
      indexNativeIds(patch, () => this.namesChargeId(gateway), () => this.compatModeIsGateway(row[ACCOUNT_ID] as string, gateway), (nativeId) => this.nativeIdStmt.run(nativeId, row[ACCOUNT_ID], id));
      return fromValues(row);
    };
    return this.db.inTransaction ? write() : this.db.transaction(write)();
  }

  /**
   * The gateways whose webhooks name RouteGate's charge id (GATEWAYS_NAMING_CHARGE_ID, src/gateways/registry.ts), set
   * by the service. Empty, as the CLI's store has it, every gateway's id is indexed: an extra index entry costs only
   * its write.
   */
  gatewaysNamingChargeId: ReadonlySet<string> = new Set();

  private readonly namesChargeId = (gateway: string | null): boolean => gateway !== null && this.gatewaysNamingChargeId.has(gateway);

  /**
   * Whether the charge's account's compatibility mode is the charge's gateway: then its refs ids are indexed, and its
   * gateway's id at a gateway whose webhooks name the charge. Read in the writer's transaction, so a settle either comes before
   * the settings change that turns the mode on (whose backfill then indexes those ids, AccountsRepository.saveSettings)
   * or sees the mode on.
   */
  private readonly compatModeIsGateway = (accountId: string, gateway: string | null): boolean => this.compatModeIsGatewayStmt.get(accountId, gateway) !== undefined;

  /**
   * The account's charge named by any id RouteGate returned for it: its own, the gateway's, or one of its refs
   * (indexed while the account's compatibility mode is the charge's gateway, and when the mode is turned on).
   */
  async findByAnyId(accountId: string, id: string): Promise<ChargeRecord | undefined> {
    const own = await this.get(accountId, id);
    if (own) return own;
    const chargeId = (this.byNativeIdStmt.get(accountId, id) as string | undefined)
      ?? (numericIdOrNull(id) === null ? undefined : this.byNumericIdStmt.get(numericIdOrNull(id), accountId) as string | undefined);
    return chargeId === undefined ? undefined : this.get(accountId, chargeId);
  }

  /** The charge's numeric id (migration 022): its id on compatibility surfaces whose payment ids are numbers. */
  async numericId(accountId: string, chargeId: string): Promise<number | undefined> {
    const value = this.numericIdStmt.get(chargeId, accountId) as number | bigint | null | undefined;
    return value === null || value === undefined ? undefined : Number(value);
  }

  /** Take the charge's lock unless a live holder has it; an expired lease (a crashed holder) is taken over. */
  async tryLock(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.lockStmt.run(owner, now + leaseMs, id, now).changes === 1;
  }

  async unlock(id: string, owner: string): Promise<void> {
    this.unlockStmt.run(id, owner);
  }

  /** The next operation number of this charge, taken atomically (each gateway call gets its own key from it). */
  async nextSeq(chargeId: string): Promise<number> {
    return this.nextSeqStmt.get(chargeId) as number;
  }

  /** Record an attempt; an in_flight one is written before its gateway call. */
  async addAttempt(chargeId: string, a: AttemptRecord): Promise<void> {
    const values = attemptValues(a);
    values.push(chargeId, a.seq, a.operation, a.gateway, a.idempotencyKey ?? null, a.createdAt ?? nowIso(), a.sentAt ?? null, a.clientKey ?? null, a.requestedAmount ?? null);
    this.attemptStmt.run(values);
    this.notify(chargeId, a);
  }

  /** Record how an in_flight attempt ended. */
  async finishAttempt(chargeId: string, a: AttemptRecord): Promise<void> {
    const values = attemptValues(a);
    values.push(chargeId, a.seq);
    this.finishAttemptStmt.run(values);
    this.notify(chargeId, a);
  }

  /**
   * A pending refund the gateway refused for now, about to be sent again under `idempotencyKey`: back to in_flight
   * with its new key, before the call (a crash then leaves it possibly sent, under that key). false: not pending.
   */
  async resendAttempt(chargeId: string, seq: number, idempotencyKey: string, message: string): Promise<boolean> {
    return this.resendAttemptStmt.run(idempotencyKey, message, chargeId, seq).changes === 1;
  }

  /** Told of every attempt row written (metrics observe gateway calls here); it can never fail the write. */
  attemptListener: ((chargeId: string, a: AttemptRecord) => void) | undefined;

  private notify(chargeId: string, a: AttemptRecord): void {
    try {
      this.attemptListener?.(chargeId, a);
    } catch {
      // an observer's fault is not the charge's
    }
  }

  async get(accountId: string, id: string): Promise<ChargeRecord | undefined> {
    const row = this.getStmt.get(id, accountId) as unknown[] | undefined;
    return row && fromValues(row);
  }

  /** The account's charge and its attempts, read together (a follow-up's read under the charge's lock). */
  async getWithAttempts(accountId: string, id: string): Promise<{ charge: ChargeRecord; attempts: AttemptRecord[] } | undefined> {
    const charge = await this.get(accountId, id);
    return charge && { charge, attempts: await this.attempts(id) };
  }

  /** Any account's charge (the reconciler works across accounts). */
  async getById(id: string): Promise<ChargeRecord | undefined> {
    const row = this.getAnyStmt.get(id) as unknown[] | undefined;
    return row && fromValues(row);
  }

  /** `processing` charges whose next reconciliation is due and that nobody holds. */
  async dueForReconcile(now: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    return (this.dueStmt.all(now, now, limit) as Array<{ id: string; account_id: string }>).map((r) => ({ id: r.id, accountId: r.account_id }));
  }

  /**
   * Take the lock of up to `limit` due `processing` charges that nobody holds, for `owner` (the reconciler). On
   * PostgreSQL one statement with FOR UPDATE SKIP LOCKED, so concurrent reconcilers never take the same charge;
   * here each is taken by its own atomic UPDATE (one connection writes at a time).
   */
  async claimDueForReconcile(owner: string, now: number, leaseMs: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    return await lockEach(await this.dueForReconcile(now, limit), (id) => this.tryLock(id, owner, now, leaseMs));
  }


  async scheduleReconcile(id: string, attempts: number, after: number): Promise<void> {
    this.scheduleStmt.run(attempts, after, id);
  }

  /** Charges with a capture, cancel or refund whose outcome is not known (in_flight or unknown), up to `limit`. */
  async withUnsettledFollowUps(limit: number): Promise<string[]> {
    return this.unsettledFollowUpsStmt.all(limit) as string[];
  }

  async processingCount(): Promise<number> {
    return this.processingCountStmt.get() as number;
  }

  async reconcileAttempts(id: string): Promise<number> {
    return (this.reconcileAttemptsStmt.get(id) as number | undefined) ?? 0;
  }

  /** Whether the charge has a refund its gateway holds in process (pending, not refused for now): one index probe. */
  async hasRefundInProcess(chargeId: string): Promise<boolean> {
    return this.refundInProcessStmt.get(chargeId) !== undefined;
  }

  async attempts(chargeId: string): Promise<AttemptRecord[]> {
    return (this.attemptsStmt.all(chargeId) as Array<Record<string, unknown>>).map((r) => ({
      seq: r.seq as number, operation: r.operation as string, gateway: r.gateway as string, outcome: r.outcome as AttemptOutcome,
      errorCode: r.error_code as string | null, failureKind: r.failure_kind as string | null, gatewayStatus: r.gateway_status as number | null,
      message: r.message as string | null, ambiguous: r.ambiguous === 1, durationMs: r.duration_ms as number,
      ...(r.external_id ? { externalId: r.external_id as string } : {}), ...(typeof r.amount === 'number' ? { amount: r.amount } : {}),
      ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key as string } : {}),
      ...(r.client_key ? { clientKey: r.client_key as string } : {}), ...(typeof r.requested_amount === 'number' ? { requestedAmount: r.requested_amount } : {}),
      createdAt: r.created_at as string,
    }));
  }

  /**
   * Newest first; `after` is the last row of the previous page (keyset pagination, stable under inserts). The
   * cursor is a row-value comparison so SQLite seeks straight to it in the index (an OR of the two columns made it
   * walk every newer row first); one prepared statement per filter combination.
   */
  async list(accountId: string, f: ListFilter): Promise<ChargeRecord[]> {
    const shape = `${f.status ? 's' : ''}${f.gateway ? 'g' : ''}${f.after ? 'a' : ''}`;
    let stmt = this.listStmts.get(shape);
    if (!stmt) {
      const where = ['account_id = @accountId'];
      if (f.status) where.push('status = @status');
      if (f.gateway) where.push('gateway = @gateway');
      if (f.after) where.push('(created_at, id) < (@afterCreated, @afterId)');
      stmt = this.db.prepare(`SELECT ${SELECTED} FROM charges WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`).raw();
      this.listStmts.set(shape, stmt);
    }
    // An offset (native list APIs that page by offset) skips rows of the same index-ordered scan.
    const params: Record<string, unknown> = { accountId, limit: f.limit, offset: f.offset ?? 0 };
    if (f.status) params.status = f.status;
    if (f.gateway) params.gateway = f.gateway;
    if (f.after) Object.assign(params, { afterCreated: f.after.createdAt, afterId: f.after.id });
    return (stmt.all(params) as unknown[][]).map(fromValues);
  }
}

/** What an attempt's end sets: the first nine parameters of both attempt statements, in their column order. */
/** A follow-up's attempt as beginOperation records it: its number, and its gateway key made from it. */
export function operationAttempt(chargeId: string, keyOp: string, seq: number, a: Omit<AttemptRecord, 'seq' | 'idempotencyKey'>): AttemptRecord {
  const attempt = a as AttemptRecord;
  return {
    seq, operation: attempt.operation, gateway: attempt.gateway, outcome: attempt.outcome, idempotencyKey: `${chargeId}-${keyOp}-${seq}`,
    durationMs: attempt.durationMs, clientKey: attempt.clientKey ?? null, requestedAmount: attempt.requestedAmount ?? null,
  };
}

function attemptValues(a: AttemptRecord): unknown[] {
  return [
    a.outcome, a.errorCode ?? null, a.failureKind ?? null, a.gatewayStatus ?? null, a.message ?? null, a.ambiguous ? 1 : 0,
    Math.round(a.durationMs), a.externalId ?? null, a.amount ?? null,
  ];
}

/** A numeric charge id as the store keeps it (digits only, within what a JSON number holds exactly), else null. */
export function numericIdOrNull(id: string): number | null {
  return /^\d{1,16}$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : null;
}
