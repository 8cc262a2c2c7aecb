import {
  createSendFromRow, operationAttempt, orphanFromRow, type AttemptOutcome, type AttemptRecord, type ChargePatch, type ChargeRecord, type CreateSend, type ListFilter,
  type OrphanAction, type OrphanRecord, type ChargeSnapshot, type SnapshotBegin, holdsFollowUpWhere, numericIdOrNull, REFUND_IN_PROCESS_SQL,
} from '../charges';
import type { Queryable } from './pool';
import { withValues } from './queryable';
import {
  ATTEMPT_INSERT, COLUMN, FINISHED_COLUMNS, KEYS, SELECT, attemptInsert, attemptInsertValues, attemptValues, compatModeIsGateway, fromRow, indexesGatewayId, nativeIdsOf, patchColumns, toColumn,
} from './charge-columns';
import type { ChargeBatches } from './charge-batches';
import type { ChargeSnapshots } from './charge-snapshots';

function attemptFromRow(r: Record<string, unknown>): AttemptRecord {
  return {
    seq: r.seq as number, operation: r.operation as string, gateway: r.gateway as string, outcome: r.outcome as AttemptOutcome,
    errorCode: r.error_code as string | null, failureKind: r.failure_kind as string | null, gatewayStatus: r.gateway_status as number | null,
    message: r.message as string | null, ambiguous: r.ambiguous === 1, durationMs: r.duration_ms as number,
    ...(r.external_id ? { externalId: r.external_id as string } : {}), ...(typeof r.amount === 'number' ? { amount: r.amount } : {}),
    ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key as string } : {}),
    ...(r.client_key ? { clientKey: r.client_key as string } : {}), ...(r.requested_amount != null ? { requestedAmount: Number(r.requested_amount) } : {}),
    createdAt: r.created_at as string,
  };
}

const INSERT = {
  name: 'charges.insert',
  text: `INSERT INTO charges (${SELECT}, lock_owner, lock_expires_at, op_seq) VALUES (${[...KEYS, 0, 1, 2].map((_, i) => `$${i + 1}`).join(', ')})`,
};
const GET = { name: 'charges.get', text: `SELECT ${SELECT} FROM charges WHERE id = $1 AND account_id = $2` };
const GET_ANY = { name: 'charges.get-any', text: `SELECT ${SELECT} FROM charges WHERE id = $1` };
// The charge's own id first, then a gateway id indexed for it, in one round trip.
const BY_ANY_ID = {
  name: 'charges.by-any-id',
  text: `SELECT ${SELECT} FROM (
      SELECT 0 AS preference, ${SELECT} FROM charges WHERE id = $2 AND account_id = $1
      UNION ALL
      SELECT 1 AS preference, ${KEYS.map((k) => `c.${COLUMN[k]}`).join(', ')} FROM charge_native_ids n JOIN charges c ON c.id = n.charge_id
        WHERE n.account_id = $1 AND n.native_id = $2 AND c.account_id = $1
      UNION ALL
      SELECT 2 AS preference, ${SELECT} FROM charges WHERE numeric_id = $3::bigint AND account_id = $1
    ) found ORDER BY preference LIMIT 1`,
};
const NUMERIC_ID = { name: 'charges.numeric-id', text: 'SELECT numeric_id FROM charges WHERE id = $1 AND account_id = $2' };
const ADD_ATTEMPT = { name: 'charges.add-attempt', text: attemptInsert(1) };
/** The UPDATE of how an attempt ended: its charge and seq at these placeholders, attemptValues from $`first`. */
const finishAttemptText = (charge: number, seq: number, first: number): string => `UPDATE charge_attempts
      SET ${FINISHED_COLUMNS.map((c, i) => `${c} = $${first + i}`).join(', ')} WHERE charge_id = $${charge} AND seq = $${seq}`;
const FINISH_ATTEMPT = { name: 'charges.finish-attempt', text: finishAttemptText(1, 2, 3) };
/** The charge INSERT's values: every column of COLUMN, then lock_owner, lock_expires_at and op_seq. */
const CHARGE_INSERT_VALUES = KEYS.length + 3;
/**
 * A follow-up's write before its gateway call as one statement: the operation number taken ($1 the charge, $2 its
 * account, $3 the client's key or null, $4 the operation the gateway key names), its attempt inserted with that
 * number and the gateway key made from it, and the client's key bound to it. The attempt's other columns follow.
 */
/** The attempt columns a follow-up's statement sends as values: all but those it makes from the number it takes. */
const OPERATION_VALUES = ATTEMPT_INSERT.filter(([c]) => c !== 'seq' && c !== 'idempotency_key');
/**
 * The CTEs that begin an operation numbered by the CTE `taken` (its `op_seq`; none when it has no row): the attempt
 * row under the gateway key made from that number, and the client's key bound to it. $1 the charge, $2 its account;
 * `key` and `keyOp` the placeholders of the client's key and of the operation the gateway key names; the attempt's
 * other columns from placeholder `first` on.
 */
const beginCtes = (key: string, keyOp: string, first: number): string => `attempt AS (INSERT INTO charge_attempts (seq, idempotency_key, ${OPERATION_VALUES.map(([c]) => c).join(', ')})
        SELECT taken.op_seq, $1 || '-' || ${keyOp}::text || '-' || taken.op_seq, ${OPERATION_VALUES.map((_, i) => `$${first + i}`).join(', ')} FROM taken),
      linked AS (UPDATE idempotency_keys SET charge_id = $1, operation_seq = (SELECT op_seq FROM taken)
        WHERE account_id = $2 AND key = ${key} AND EXISTS (SELECT 1 FROM taken))`;
const BEGIN_OPERATION = {
  name: 'charges.begin-operation',
  text: `WITH taken AS (UPDATE charges SET op_seq = op_seq + 1 WHERE id = $1 RETURNING op_seq),
      ${beginCtes('$3', '$4', 5)}
    SELECT op_seq FROM taken`,
};

/**
 * The charge with its xmin, the transaction that wrote this version of the row: any later UPDATE of it (a lock, an
 * unlock, a patch, by any process) gives the row another, so an equal xmin means the row is as read.
 */
const SNAPSHOT = { name: 'charges.snapshot', text: `SELECT ${SELECT}, xmin::text AS row_version FROM charges WHERE id = $1 AND account_id = $2` };
/**
 * beginOnSnapshot as one statement ($1 the charge, $2 its account, $3 the lock's owner, $4 its expiry, $5 the xmin
 * the follow-up decided on, $6 now, $7 the client's key or null, $8 the operation the gateway key names; the
 * attempt's other columns follow). The lock is taken only from a free (or expired) lock on the row version read,
 * re-checked on the newest version after any wait (READ COMMITTED), so no other holder came between. The attempts
 * are read in the statement's snapshot, taken before the lock: a writer of attempts holds the lock, so one that
 * wrote after that snapshot took the lock after it too, which changed the xmin this statement requires. A holding
 * attempt (holdsFollowUpWhere) leaves the lock taken and nothing begun; otherwise as BEGIN_OPERATION.
 */
const BEGIN_ON_SNAPSHOT = {
  name: 'charges.begin-on-snapshot',
  text: `WITH holds AS (SELECT EXISTS (SELECT 1 FROM charge_attempts a WHERE a.charge_id = $1 AND ${holdsFollowUpWhere('a', '$7::text')}) AS held),
      locked AS (UPDATE charges SET lock_owner = $3, lock_expires_at = $4, op_seq = op_seq + CASE WHEN (SELECT held FROM holds) THEN 0 ELSE 1 END
        WHERE id = $1 AND account_id = $2 AND xmin = $5::text::xid AND (lock_owner IS NULL OR lock_expires_at <= $6)
        RETURNING ${SELECT}, op_seq, (SELECT held FROM holds) AS held),
      taken AS (SELECT op_seq FROM locked WHERE NOT held),
      ${beginCtes('$7', '$8', 9)}
    SELECT ${SELECT}, op_seq, held FROM locked`,
};

/**
 * A create's first write as one statement (one transaction: all of it or none): the charge row (locked by its
 * creator, op_seq taken), its first attempt, and the client's Idempotency-Key bound to the charge (a null key binds
 * none). The attempt's foreign key is checked at the statement's end, when the charge row is there.
 */
const BIRTH = {
  name: 'charges.birth',
  text: `WITH born AS (INSERT INTO charges (${SELECT}, lock_owner, lock_expires_at, op_seq)
        VALUES (${Array.from({ length: CHARGE_INSERT_VALUES }, (_, i) => `$${i + 1}`).join(', ')}) RETURNING id),
      attempt AS (${attemptInsert(CHARGE_INSERT_VALUES + 1)}),
      linked AS (UPDATE idempotency_keys SET charge_id = $1 WHERE account_id = $2 AND key = $${CHARGE_INSERT_VALUES + ATTEMPT_INSERT.length + 1})
    SELECT id FROM born`,
};
const RESEND_ATTEMPT = {
  name: 'charges.resend-attempt',
  text: `UPDATE charge_attempts SET outcome = 'in_flight', idempotency_key = $3, message = $4 WHERE charge_id = $1 AND seq = $2 AND outcome = 'pending'`,
};
/** The attempt columns attemptFromRow reads. */
const ATTEMPT_READ = `seq, operation, gateway, outcome, error_code, failure_kind, gateway_status, message, ambiguous, duration_ms, external_id, amount,
      created_at, idempotency_key, client_key, requested_amount`;
const ATTEMPTS = { name: 'charges.attempts', text: `SELECT ${ATTEMPT_READ} FROM charge_attempts WHERE charge_id = $1 ORDER BY seq` };
/** The charge and its attempts (as ATTEMPTS reads them, by seq) in one snapshot; JSON numbers read as the columns do. */
const GET_WITH_ATTEMPTS = {
  name: 'charges.get-with-attempts',
  text: `SELECT ${SELECT}, COALESCE((SELECT json_agg(a ORDER BY a.seq) FROM (
        SELECT ${ATTEMPT_READ} FROM charge_attempts WHERE charge_id = charges.id) a), '[]'::json) AS attempts
    FROM charges WHERE id = $1 AND account_id = $2`,
};
const NEXT_SEQ = { name: 'charges.next-seq', text: 'UPDATE charges SET op_seq = op_seq + 1 WHERE id = $1 RETURNING op_seq' };
// READ COMMITTED: a second UPDATE of the row waits for the first to commit, then re-checks this WHERE on the row as
// the first left it, so of any number of callers on any number of connections exactly one gets rowCount 1.
const LOCK = {
  name: 'charges.lock',
  text: 'UPDATE charges SET lock_owner = $1, lock_expires_at = $2 WHERE id = $3 AND (lock_owner IS NULL OR lock_expires_at <= $4)',
};
const UNLOCK = { name: 'charges.unlock', text: 'UPDATE charges SET lock_owner = NULL, lock_expires_at = NULL WHERE id = $1 AND lock_owner = $2' };
const DUE_WHERE = "status = 'processing' AND reconcile_after <= $1 AND (lock_owner IS NULL OR lock_expires_at <= $1)";
// Ties in reconcile_after go by id, bytewise, as in the SQLite store.
const DUE = { name: 'charges.due', text: `SELECT id, account_id FROM charges WHERE ${DUE_WHERE} ORDER BY reconcile_after, id COLLATE "C" LIMIT $2` };
// SKIP LOCKED: a row another reconciler's statement has locked is passed over, not waited for; one it has already
// claimed and committed fails the re-checked due condition (lock_owner is set). The locking select is a CTE, run
// exactly once: as `WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` the planner may rescan it per row,
// and each rescan skips the rows just updated and returns new ones, so one call took far more than `limit` charges.
/** Lock up to $2 charges due by `where` ($1: now) for owner $3 until $4, in one statement. */
const claimStatement = (name: string, where: string) => ({
  name,
  text: `WITH due AS (SELECT id FROM charges WHERE ${where} ORDER BY reconcile_after LIMIT $2 FOR UPDATE SKIP LOCKED),
    claimed AS (UPDATE charges SET lock_owner = $3, lock_expires_at = $4 FROM due WHERE charges.id = due.id
      RETURNING charges.id, charges.account_id, charges.reconcile_after)
    SELECT id, account_id FROM claimed ORDER BY reconcile_after, id`,
});
const CLAIM_DUE = claimStatement('charges.claim-due', DUE_WHERE);
// Through charge_attempts_unsettled (migration 017): its WHERE is this one.
const UNSETTLED_FOLLOW_UPS = {
  name: 'charges.unsettled-follow-ups',
  text: `SELECT DISTINCT charge_id FROM charge_attempts
    WHERE outcome IN ('in_flight', 'unknown', 'pending') AND operation IN ('capture', 'cancel', 'refund') LIMIT $1`,
};
const REFUND_IN_PROCESS = { name: 'charges.refund-in-process', text: REFUND_IN_PROCESS_SQL.replace('?', '$1') };
const SCHEDULE = { name: 'charges.schedule', text: 'UPDATE charges SET reconcile_attempts = $1, reconcile_after = $2 WHERE id = $3' };
const PROCESSING_COUNT = { name: 'charges.processing-count', text: "SELECT COUNT(*) AS n FROM charges WHERE status = 'processing'" };
const MARK_SENT = { name: 'charges.mark-sent', text: 'UPDATE charge_attempts SET sent_at = $1 WHERE charge_id = $2 AND seq = $3' };
const CREATE_SENDS = {
  name: 'charges.create-sends',
  text: `SELECT seq, gateway, outcome, ambiguous, idempotency_key, sent_at, created_at FROM charge_attempts
    WHERE charge_id = $1 AND operation = 'charge' AND outcome <> 'skipped' ORDER BY seq`,
};
const RECHECK = { name: 'charges.recheck', text: 'UPDATE charges SET recheck = $1 WHERE id = $2' };
const RECHECK_WHERE = 'recheck = 1 AND reconcile_after <= $1 AND (lock_owner IS NULL OR lock_expires_at <= $1)';
const CLAIM_RECHECK = claimStatement('charges.claim-recheck', RECHECK_WHERE);
const ADD_ORPHAN = {
  name: 'charges.add-orphan',
  text: `INSERT INTO charge_orphans (gateway, external_id, charge_id, account_id, payment_method, status, amount, action, message, found_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
};
const ORPHANS = { name: 'charges.orphans', text: 'SELECT * FROM charge_orphans WHERE charge_id = $1 ORDER BY found_at, gateway' };
const ORPHAN_ACTION = { name: 'charges.orphan-action', text: 'UPDATE charge_orphans SET action = $1, message = $2, updated_at = $3 WHERE gateway = $4 AND external_id = $5' };
const FIND_ORPHAN = { name: 'charges.find-orphan', text: 'SELECT * FROM charge_orphans WHERE gateway = $1 AND external_id = $2' };
const RECONCILE_ATTEMPTS = { name: 'charges.reconcile-attempts', text: 'SELECT reconcile_attempts FROM charges WHERE id = $1' };

/**
 * The name of each shape of patch statement: its text follows from the shape alone, so it is prepared once per
 * connection and PostgreSQL parses and plans it once. The shapes a service meets are a few dozen (the fields a
 * gateway's answer sets); past NAMED_PATCH_SHAPES a new shape goes unnamed, parsed each time, so that what each
 * connection keeps prepared stays bounded whatever the patches.
 */
const PATCH_NAMES = new Map<string, string>();
const NAMED_PATCH_SHAPES = 256;
function patchStatementName(kind: string, shape: string): string | undefined {
  let name = PATCH_NAMES.get(shape);
  if (name === undefined && PATCH_NAMES.size < NAMED_PATCH_SHAPES) {
    name = `charges.${kind}.${PATCH_NAMES.size + 1}`;
    PATCH_NAMES.set(shape, name);
  }
  return name;
}

/**
 * The UPDATE of a patch (and updated_at), with the INSERT of the gateway ids it gives the charge into
 * charge_native_ids in the same statement. With `releaseFor` it also releases that owner's lock (both CASEs read
 * the row's old lock_owner) and returns the row. With `finished` the same statement also records how that attempt
 * ended (an operation's last write, one round trip). Each part is a CTE of one statement: all of it or none.
 */
function patchStatement(
  id: string, patch: ChargePatch, namingChargeId: ReadonlySet<string>, releaseFor?: string, finished?: AttemptRecord,
): { name?: string; text: string; values: unknown[] } {
  const columns = patchColumns(patch);
  const values: unknown[] = [id, new Date().toISOString()];
  const sets = columns.map(([column, value]) => `${column} = $${values.push(value)}`);
  sets.push('updated_at = $2');
  if (releaseFor !== undefined) {
    const owner = `$${values.push(releaseFor)}::text`;
    sets.push(`lock_owner = CASE WHEN lock_owner = ${owner} THEN NULL ELSE lock_owner END`,
      `lock_expires_at = CASE WHEN lock_owner = ${owner} THEN NULL ELSE lock_expires_at END`);
  }
  // A released row goes back with its xmin (ChargeSnapshots).
  const returning = releaseFor !== undefined ? `${SELECT}, row_version` : 'id, account_id, gateway';
  const returned = releaseFor !== undefined ? `${SELECT}, xmin::text AS row_version` : returning;
  const update = `UPDATE charges SET ${sets.join(', ')} WHERE id = $1`;
  const ctes: string[] = [];
  if (finished) {
    const seq = values.push(finished.seq);
    values.push(...attemptValues(finished));
    ctes.push(`finished AS (${finishAttemptText(1, seq, seq + 1)})`);
  }
  const { external, refs } = nativeIdsOf(patch);
  const indexes = external !== null || refs.length > 0;
  const name = patchStatementName(finished ? 'settle-operation' : 'patch', `${columns.map(([column]) => column).join(',')}|${releaseFor !== undefined}|${finished !== undefined}|${indexes}`);
  if (!indexes && ctes.length === 0) return { name, text: releaseFor !== undefined ? `${update} RETURNING ${returned}` : update, values };
  ctes.push(`changed AS (${update} RETURNING ${returned})`);
  if (indexes) {
    // Which ids are indexed: indexesGatewayId (PgAccountsRepository.saveSettings indexes them when compatibility
    // mode is turned on).
    ctes.push(`indexed AS (INSERT INTO charge_native_ids (account_id, native_id, charge_id)
        SELECT changed.account_id, n.native_id, changed.id FROM changed, unnest($${values.push(external === null ? [] : [external])}::text[]) AS n(native_id)
          WHERE ${indexesGatewayId('changed', `$${values.push([...namingChargeId])}`)}
        UNION ALL
        SELECT changed.account_id, n.native_id, changed.id FROM changed, unnest($${values.push(refs)}::text[]) AS n(native_id)
          WHERE ${compatModeIsGateway('changed')}
        ON CONFLICT DO NOTHING)`);
  }
  return { name, text: `WITH ${ctes.join(',\n      ')}\n      SELECT ${returning} FROM changed`, values };
}

/** PgChargesRepository.birth as a statement of its own (BIRTH). */
async function birthAlone(q: Queryable, c: ChargeRecord, lock: { owner: string; expiresAt: number }, attempt: AttemptRecord, clientKey?: string): Promise<void> {
  const values = KEYS.map((k) => toColumn(k, c[k]));
  values.push(lock.owner, lock.expiresAt, attempt.seq, ...attemptInsertValues(c.id, attempt), clientKey ?? null);
  await q.query(withValues(BIRTH, values));
}

/** PgChargesRepository.settleOperation as a statement of its own (patchStatement). */
async function settleOperationAlone(
  q: Queryable, namingChargeId: ReadonlySet<string>, id: string, finished: AttemptRecord, patch: ChargePatch, owner: string,
): Promise<Record<string, unknown>> {
  const { rows } = await q.query(patchStatement(id, patch, namingChargeId, owner, finished));
  if (!rows[0]) throw new Error(`charge ${id} is not stored`);
  return rows[0];
}

/**
 * The snapshots kept for the repository on `q`: only on the pool, where each statement commits as it answers. A
 * transaction's row could still roll back, and an xmin seen there name a version no one else ever sees.
 */
function keptOn(q: Queryable, shared: PgChargesShared): ChargeSnapshots | undefined {
  return shared.batches?.pool === q ? shared.snapshots : undefined;
}

/** The charge a row returned with `row_version` holds, kept first where keptOn keeps it. */
function kept(q: Queryable, shared: PgChargesShared, row: Record<string, unknown>): ChargeRecord {
  const charge = fromRow(row);
  keptOn(q, shared)?.remember(charge, row.row_version as string);
  return charge;
}

/** What every PgChargesRepository of one store shares, whatever connection or transaction it is bound to. */
export interface PgChargesShared {
  attemptListener?: (chargeId: string, a: AttemptRecord) => void;
  /** ChargesRepository.gatewaysNamingChargeId. */
  gatewaysNamingChargeId?: ReadonlySet<string>;
  /** The pool's group commit of births and settles (charge-batches.ts); a transaction's repositories write alone. */
  batches?: ChargeBatches;
  /** The rows this process's settles left, for follow-ups to decide on without a read. */
  snapshots?: ChargeSnapshots;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Charges and their attempts on PostgreSQL: the contract of ChargesRepository (src/store/charges.ts), every method
 * async. Each state change is an UPDATE of the columns that changed, made while the caller holds the charge's lock
 * (lock_owner with a lease, a row value, so it holds across processes); the lock, the operation counter and the
 * reconciler's claim are each one atomic statement.
 */
export class PgChargesRepository {
  constructor(private readonly q: Queryable, private readonly shared: PgChargesShared) {}

  /**
   * A new charge, locked by its creator until the create is settled. `opSeq` is the last operation number already
   * taken (a create that writes its first attempt with the row takes 1 here instead of a nextSeq after it).
   */
  async insert(c: ChargeRecord, lock: { owner: string; expiresAt: number }, opSeq = 0): Promise<void> {
    await this.q.query(withValues(INSERT, [...KEYS.map((k) => toColumn(k, c[k])), lock.owner, lock.expiresAt, opSeq]));
  }

  /**
   * A create's first write, before its gateway call, in one statement (BIRTH): the charge (locked by its creator,
   * operation number `attempt.seq` taken), its first attempt (in_flight, under its deterministic idempotency key),
   * and the client's Idempotency-Key bound to the charge.
   */
  async birth(c: ChargeRecord, lock: { owner: string; expiresAt: number }, attempt: AttemptRecord, clientKey?: string): Promise<void> {
    const alone = () => birthAlone(this.q, c, lock, attempt, clientKey);
    const batches = this.shared.batches;
    await (batches?.pool === this.q ? batches.births.submit({ charge: c, lock, attempt, clientKey }, alone) : alone());
    this.notify(c.id, attempt);
  }

  /** ChargesRepository.beginOperation, in one statement (BEGIN_OPERATION). */
  async beginOperation(
    chargeId: string, accountId: string, keyOp: string, a: Omit<AttemptRecord, 'seq' | 'idempotencyKey'>, clientKey?: string,
  ): Promise<number> {
    const values: unknown[] = [chargeId, accountId, clientKey ?? null, keyOp];
    for (const [, value] of OPERATION_VALUES) values.push(value(chargeId, a as AttemptRecord));
    const seq = (await this.q.query<{ op_seq: number }>(withValues(BEGIN_OPERATION, values))).rows[0]?.op_seq;
    if (seq === undefined) throw new Error(`charge ${chargeId} is not stored`);
    this.notify(chargeId, operationAttempt(chargeId, keyOp, seq, a));
    return seq;
  }

  /**
   * An operation's last write, after its gateway call, in one statement: how its attempt ended (finishAttempt) and
   * settle() (the patch, the gateway ids it brings indexed, the lock released), answering the row as stored.
   */
  async settleOperation(id: string, finished: AttemptRecord, patch: ChargePatch, owner: string): Promise<ChargeRecord> {
    const alone = () => settleOperationAlone(this.q, this.gatewaysNamingChargeId, id, finished, patch, owner);
    const batches = this.shared.batches;
    const settled = await (batches?.pool === this.q ? batches.settles.submit({ id, finished, patch, owner }, alone) : alone());
    this.notify(id, finished);
    return kept(this.q, this.shared, settled);
  }

  /** ChargesRepository.snapshot: from the snapshots this process keeps, or read with the row's xmin and kept. */
  async snapshot(accountId: string, id: string): Promise<ChargeSnapshot | undefined> {
    const recalled = keptOn(this.q, this.shared)?.recall(accountId, id);
    if (recalled) return recalled;
    const row = (await this.q.query(withValues(SNAPSHOT, [id, accountId]))).rows[0];
    if (!row) return undefined;
    return { charge: kept(this.q, this.shared, row), version: row.row_version as string };
  }

  /** ChargesRepository.beginOnSnapshot, in one statement (BEGIN_ON_SNAPSHOT). */
  async beginOnSnapshot(
    seen: ChargeSnapshot, owner: string, now: number, leaseMs: number, keyOp: string, a: Omit<AttemptRecord, 'seq' | 'idempotencyKey'>, clientKey?: string,
  ): Promise<SnapshotBegin> {
    const { id, accountId } = seen.charge;
    const values: unknown[] = [id, accountId, owner, now + leaseMs, seen.version, now, clientKey ?? null, keyOp];
    for (const [, value] of OPERATION_VALUES) values.push(value(id, a as AttemptRecord));
    const row = (await this.q.query(withValues(BEGIN_ON_SNAPSHOT, values))).rows[0];
    // Whatever it did, the kept row is no longer the row: stale, or changed by this statement's lock.
    this.shared.snapshots?.forget(id);
    if (!row) return { state: 'stale' };
    if (row.held) return { state: 'held' };
    const seq = row.op_seq as number;
    this.notify(id, operationAttempt(id, keyOp, seq, a));
    return { state: 'begun', seq, charge: fromRow(row) };
  }


  /**
   * Set exactly these columns (and updated_at); nothing else in the row is written. The gateway ids the patch gives
   * the charge are indexed for findByAnyId (those patchStatement says) in the same statement, so the two cannot part
   * even outside a transaction.
   */
  async update(id: string, patch: ChargePatch): Promise<void> {
    await this.q.query(patchStatement(id, patch, this.gatewaysNamingChargeId));
  }

  /**
   * update() and the release of `owner`'s lock in one statement, answering the row as stored: the last write of an
   * operation, which would otherwise be an update, an unlock and a read of the row back. The lock is released only if
   * `owner` still holds it (as unlock()); the columns are set either way (as update()).
   */
  async settle(id: string, patch: ChargePatch, owner: string): Promise<ChargeRecord> {
    const { rows } = await this.q.query(patchStatement(id, patch, this.gatewaysNamingChargeId, owner));
    if (!rows[0]) throw new Error(`charge ${id} is not stored`);
    return kept(this.q, this.shared, rows[0]);
  }

  /** The account's charge named by any id RouteGate returned for it: its own, the gateway's, or one of its refs. */
  async findByAnyId(accountId: string, id: string): Promise<ChargeRecord | undefined> {
    const { rows } = await this.q.query(withValues(BY_ANY_ID, [accountId, id, numericIdOrNull(id)]));
    return rows[0] && fromRow(rows[0]);
  }

  /** The charge's numeric id (migration 022): its id on compatibility surfaces whose payment ids are numbers. */
  async numericId(accountId: string, chargeId: string): Promise<number | undefined> {
    const { rows } = await this.q.query(withValues(NUMERIC_ID, [chargeId, accountId]));
    return rows[0] ? Number(rows[0].numeric_id) : undefined;
  }

  /** Take the charge's lock unless a live holder has it; an expired lease (a crashed holder) is taken over. */
  async tryLock(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return (await this.q.query(withValues(LOCK, [owner, now + leaseMs, id, now]))).rowCount === 1;
  }

  async unlock(id: string, owner: string): Promise<void> {
    await this.q.query(withValues(UNLOCK, [id, owner]));
  }

  /** The next operation number of this charge, taken atomically (each gateway call gets its own key from it). */
  async nextSeq(chargeId: string): Promise<number> {
    return (await this.q.query<{ op_seq: number }>(withValues(NEXT_SEQ, [chargeId]))).rows[0]?.op_seq as number;
  }

  /** Record an attempt; an in_flight one is written before its gateway call. */
  async addAttempt(chargeId: string, a: AttemptRecord): Promise<void> {
    await this.q.query(withValues(ADD_ATTEMPT, attemptInsertValues(chargeId, a)));
    this.notify(chargeId, a);
  }

  /** Record how an in_flight attempt ended. */
  async finishAttempt(chargeId: string, a: AttemptRecord): Promise<void> {
    await this.q.query(withValues(FINISH_ATTEMPT, [chargeId, a.seq, ...attemptValues(a)]));
    this.notify(chargeId, a);
  }

  /** ChargesRepository.resendAttempt. */
  async resendAttempt(chargeId: string, seq: number, idempotencyKey: string, message: string): Promise<boolean> {
    return ((await this.q.query(withValues(RESEND_ATTEMPT, [chargeId, seq, idempotencyKey, message]))).rowCount ?? 0) === 1;
  }

  /** ChargesRepository.gatewaysNamingChargeId, for every repository of this store. */
  get gatewaysNamingChargeId(): ReadonlySet<string> {
    return this.shared.gatewaysNamingChargeId ?? NONE;
  }

  set gatewaysNamingChargeId(gateways: ReadonlySet<string>) {
    this.shared.gatewaysNamingChargeId = gateways;
  }

  /** Told of every attempt row written (metrics observe gateway calls here); it can never fail the write. */
  get attemptListener(): ((chargeId: string, a: AttemptRecord) => void) | undefined {
    return this.shared.attemptListener;
  }

  set attemptListener(listener: ((chargeId: string, a: AttemptRecord) => void) | undefined) {
    this.shared.attemptListener = listener;
  }

  private notify(chargeId: string, a: AttemptRecord): void {
    try {
      this.shared.attemptListener?.(chargeId, a);
    } catch {
      // an observer's fault is not the charge's
    }
  }

  async get(accountId: string, id: string): Promise<ChargeRecord | undefined> {
    const { rows } = await this.q.query(withValues(GET, [id, accountId]));
    return rows[0] && fromRow(rows[0]);
  }

  /** Any account's charge (the reconciler works across accounts). */
  async getById(id: string): Promise<ChargeRecord | undefined> {
    const { rows } = await this.q.query(withValues(GET_ANY, [id]));
    return rows[0] && fromRow(rows[0]);
  }

  /** `processing` charges whose next reconciliation is due and that nobody holds (a look: nothing is taken). */
  async dueForReconcile(now: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const { rows } = await this.q.query<{ id: string; account_id: string }>(withValues(DUE, [now, limit]));
    return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
  }

  /**
   * Take the charge lock (as `owner`, for `leaseMs`) on up to `limit` due `processing` charges nobody holds, in one
   * statement: reconcilers in several processes get disjoint sets. The caller unlocks each when done with it.
   */
  async claimDueForReconcile(owner: string, now: number, leaseMs: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const { rows } = await this.q.query<{ id: string; account_id: string }>(withValues(CLAIM_DUE, [now, limit, owner, now + leaseMs]));
    return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
  }

  async scheduleReconcile(id: string, attempts: number, after: number): Promise<void> {
    await this.q.query(withValues(SCHEDULE, [attempts, after, id]));
  }

  /** Charges with a capture, cancel or refund whose outcome is not known (in_flight or unknown), up to `limit`. */
  async withUnsettledFollowUps(limit: number): Promise<string[]> {
    return (await this.q.query<{ charge_id: string }>(withValues(UNSETTLED_FOLLOW_UPS, [limit]))).rows.map((r) => r.charge_id);
  }

  async processingCount(): Promise<number> {
    return (await this.q.query<{ n: number }>(PROCESSING_COUNT)).rows[0].n;
  }

  async reconcileAttempts(id: string): Promise<number> {
    return (await this.q.query<{ reconcile_attempts: number }>(withValues(RECONCILE_ATTEMPTS, [id]))).rows[0]?.reconcile_attempts ?? 0;
  }

  /** ChargesRepository.hasRefundInProcess. */
  async hasRefundInProcess(chargeId: string): Promise<boolean> {
    return (await this.q.query(withValues(REFUND_IN_PROCESS, [chargeId]))).rows.length > 0;
  }

  async attempts(chargeId: string): Promise<AttemptRecord[]> {
    return (await this.q.query(withValues(ATTEMPTS, [chargeId]))).rows.map(attemptFromRow);
  }

  /** ChargesRepository.getWithAttempts, in one statement (one snapshot) that also carries the attempts as JSON. */
  async getWithAttempts(accountId: string, id: string): Promise<{ charge: ChargeRecord; attempts: AttemptRecord[] } | undefined> {
    const row = (await this.q.query(withValues(GET_WITH_ATTEMPTS, [id, accountId]))).rows[0];
    if (!row) return undefined;
    return { charge: fromRow(row), attempts: (row.attempts as Array<Record<string, unknown>>).map(attemptFromRow) };
  }

  /** ChargesRepository.markSent. */
  async markSent(chargeId: string, seq: number, at: number): Promise<void> {
    await this.q.query(withValues(MARK_SENT, [at, chargeId, seq]));
  }

  /** ChargesRepository.createSends. */
  async createSends(chargeId: string): Promise<CreateSend[]> {
    return (await this.q.query(withValues(CREATE_SENDS, [chargeId]))).rows.map(createSendFromRow);
  }

  async setRecheck(id: string, on: boolean): Promise<void> {
    await this.q.query(withValues(RECHECK, [on ? 1 : 0, id]));
  }

  /** As claimDueForReconcile (one statement, SKIP LOCKED), for settled charges marked for a re-check. */
  async claimRecheckDue(owner: string, now: number, leaseMs: number, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const { rows } = await this.q.query<{ id: string; account_id: string }>(withValues(CLAIM_RECHECK, [now, limit, owner, now + leaseMs]));
    return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
  }

  async addOrphan(o: OrphanRecord): Promise<boolean> {
    const values = [o.gateway, o.externalId, o.chargeId, o.accountId, o.paymentMethod, o.status, o.amount, o.action, o.message, o.foundAt, o.updatedAt];
    return (await this.q.query(withValues(ADD_ORPHAN, values))).rowCount === 1;
  }

  async orphans(chargeId: string): Promise<OrphanRecord[]> {
    return (await this.q.query(withValues(ORPHANS, [chargeId]))).rows.map(orphanFromRow);
  }

  async setOrphanAction(gateway: string, externalId: string, action: OrphanAction, message: string | null): Promise<void> {
    await this.q.query(withValues(ORPHAN_ACTION, [action, message, new Date().toISOString(), gateway, externalId]));
  }

  /** ChargesRepository.findOrphan: for webhooks about a payment that is not its charge's own. */
  async findOrphan(gateway: string, externalId: string): Promise<OrphanRecord | undefined> {
    const { rows } = await this.q.query(withValues(FIND_ORPHAN, [gateway, externalId]));
    return rows[0] && orphanFromRow(rows[0]);
  }

  /**
   * Newest first, ties by id; `after` is the last row of the previous page (keyset pagination, stable under
   * inserts), and `offset` skips rows of the same ordered scan (native list APIs that page by offset). Eight
   * shapes (status, gateway, cursor), each a named statement.
   */
  async list(accountId: string, f: ListFilter): Promise<ChargeRecord[]> {
    const values: unknown[] = [accountId, f.limit, f.offset ?? 0];
    const where = ['account_id = $1'];
    if (f.status) where.push(`status = $${values.push(f.status)}`);
    if (f.gateway) where.push(`gateway = $${values.push(f.gateway)}`);
    if (f.after) where.push(`(created_at, id) < ($${values.push(f.after.createdAt)}, $${values.push(f.after.id)})`);
    const { rows } = await this.q.query({
      name: `charges.list.${f.status ? 's' : ''}${f.gateway ? 'g' : ''}${f.after ? 'a' : ''}`,
      text: `SELECT ${SELECT} FROM charges WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      values,
    });
    return rows.map(fromRow);
  }
}
