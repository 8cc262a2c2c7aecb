import type { AttemptRecord, ChargePatch, ChargeRecord, ChargeView } from '../store/charges';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import {
  GatewayFailure, type CallContext, type ChargeOperation, type ChargeOutcome, type ChargeRef, type GatewayAdapter, type PaymentMethod, type RefundResult,
} from '../gateways/types';
import { RouteGateError, rgError, type ErrorCode } from '../errors';
import { toPublicError } from './outcomes';
import { rgHeaders } from './response-format';
import { ChargeLocks } from './charge-locks';
import { isAmbiguous } from './settle';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { settleHorizonMs, callContext, gatewayContext, type ChargeResult, type GatewayDeps } from './gateway-deps';
import { REFUSED_FOR_NOW, isPendingRefund, pendingPatch, pendingRefundOfRow, refusedForNow, settlePendingRefund } from './pending-refunds';

// Capture, cancel, refund and refresh of a stored charge (docs/charges.md, "Follow-up idempotency"). Each
// money-moving follow-up is a charge_attempts row written before its gateway call, under the charge's lock, with its
// operation number, its gateway idempotency key, the amount asked for and the client's Idempotency-Key; the key is
// bound to that row in the same transaction. A retry of the key settles that operation and never starts another;
// while any operation's outcome is unknown, no other money-moving operation starts on the charge.

export type FollowUp = ChargeOperation | 'retrieve';

/** The follow-ups that move money (their attempt rows' `operation`). */
const MONEY_MOVING = new Set(['capture', 'cancel', 'refund']);

/** Whether an attempt row is a money-moving follow-up (settled by its own identity, never by a create's settle). */
export const isFollowUp = (a: AttemptRecord): boolean => MONEY_MOVING.has(a.operation);

/**
 * Whether an attempt row is a money-moving follow-up not settled yet: its outcome not known (interrupted or
 * unanswered), or a refund pending at its gateway (pending-refunds.ts). Either holds the charge: no other
 * money-moving operation starts until it is settled.
 */
export const isUnsettledFollowUp = (a: AttemptRecord): boolean => MONEY_MOVING.has(a.operation) && (a.outcome === 'in_flight' || a.outcome === 'unknown' || a.outcome === 'pending');

/**
 * How long the gateways keep an idempotency key (24 h, the shortest any documents): a replay later than this
 * could be a second operation, so an operation that old is only ever settled by its identity, or by an operator.
 */
const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What a follow-up asks of the charge, once checked against it: the operation and its amount (undefined: all). */
interface Decided { op: FollowUp; amount?: number }
/** The checks of one follow-up against the charge: what it asks, or the RouteGateError that refuses it. */
type Decide = (c: ChargeView) => Decided;

/** A follow-up's attempt row as recorded before its gateway call. */
function inFlight(d: Decided, gateway: GatewayId, clientKey: string | undefined): Omit<AttemptRecord, 'seq' | 'idempotencyKey'> {
  return {
    operation: d.op === 'partial_refund' ? 'refund' : d.op, gateway, outcome: 'in_flight', durationMs: 0, clientKey: clientKey ?? null,
    requestedAmount: d.amount ?? null,
  };
}

/** A follow-up's hold on the charge: `released` once the lock went with its last write. */
interface Held { owner: string; released?: boolean }

export interface FollowUpOptions {
  /** The client's Idempotency-Key (as the idempotency store keeps it): bound to the operation before its gateway call. */
  clientKey?: string;
  deadline?: number;
}

/** What the follow-ups need of the charge service they serve. */
export interface FollowUpHost {
  readonly locks: ChargeLocks;
  deadline(): number;
  get(accountId: string, id: string): Promise<ChargeRecord>;
  /** Settle an unconfirmed create (or an interrupted reconcile) at the gateway, read-only; the caller holds the lock. */
  settleCreate(charge: ChargeRecord, deadline: number): Promise<boolean>;
}

/**
 * What the gateway can never do answers 422 before the charge's state is looked at: "<gateway> cannot capture a
 * pix" is the useful answer, not "this pix is not an uncaptured pre-authorization".
 */
function assertSupported(c: ChargeView, op: ChargeOperation): void {
  const gateway = c.gateway as GatewayId;
  const pm = c.paymentMethod as PaymentMethod;
  if (ADAPTERS[gateway]?.capabilities[pm]?.[op] === 'unsupported') {
    throw rgError('OPERATION_UNSUPPORTED', { gateway, operation: op.replace('_', ' '), method: pm }, { gateway });
  }
}

const refOf = (charge: ChargeRecord): ChargeRef => ({
  externalId: charge.externalId!, paymentMethod: charge.paymentMethod as PaymentMethod, amount: charge.amount, refs: charge.refs ?? undefined,
  split: charge.split ?? undefined,
});

/** The gateway call of one follow-up; `amount` as it was asked for (undefined: all of it). */
function callGateway(adapter: GatewayAdapter, op: FollowUp, ctx: CallContext, ref: ChargeRef, amount: number | undefined): Promise<ChargeOutcome> {
  return op === 'capture' ? adapter.captureCharge(ctx, ref, amount)
    : op === 'cancel' ? adapter.cancelCharge(ctx, ref)
      : op === 'retrieve' ? adapter.retrieveCharge(ctx, ref)
        : adapter.refundCharge(ctx, ref, amount);
}

/** The operation a follow-up row's gateway key names (`${chargeId}-${op}-${seq}`): partial_refund or refund. */
function opOfRow(chargeId: string, a: AttemptRecord): FollowUp {
  const key = a.idempotencyKey ?? '';
  const op = key.startsWith(`${chargeId}-`) ? key.slice(chargeId.length + 1, key.lastIndexOf('-')) : a.operation;
  return op === 'partial_refund' || op === 'refund' || op === 'capture' || op === 'cancel' ? op : (a.operation as FollowUp);
}

/** The refund a settled refund row records, for an answer made from the row. */
function refundOfRow(a: AttemptRecord): RefundResult | undefined {
  if (a.operation !== 'refund') return undefined;
  return { refundId: a.externalId ?? undefined, amount: a.amount ?? undefined };
}

/**
 * The charge's amounts after a refund the gateway accepted but whose read-back failed: raised by the refund the
 * gateway's own answer reports (the caller holds the charge's lock, so `charge` is current). Undefined when the answer
 * names no amount: the next read (?refresh=true, a webhook) brings them.
 */
export function patchFromAcceptedRefund(charge: ChargeRecord, refund: RefundResult | undefined): ChargePatch | undefined {
  if (!refund || !Number.isInteger(refund.amount) || refund.amount! <= 0) return undefined;
  const refundable = charge.paidAmount || charge.amount;
  const refundedAmount = Math.min(refundable, charge.refundedAmount + refund.amount!);
  const patch: ChargePatch = { refundedAmount };
  if (refundedAmount >= refundable) patch.status = 'refunded';
  return patch;
}

/**
 * Capture, cancel, refund and refresh, each under the charge's lock. ChargeService's methods of the same names
 * delegate here.
 */
export class FollowUps {
  /** Past this age an unknown operation that its gateway still does not show is proven never applied (see findApplied). */
  readonly settleHorizonMs: number;

  constructor(private readonly deps: GatewayDeps, private readonly host: FollowUpHost) {
    this.settleHorizonMs = settleHorizonMs(deps);
  }

  /** Re-read the charge at its gateway and store what changed; unknown follow-ups are settled first where they can be. */
  async refresh(accountId: string, id: string, deadline = this.host.deadline()): Promise<ChargeResult> {
    return this.run(accountId, id, { deadline }, () => ({ op: 'retrieve' }));
  }

  async capture(accountId: string, id: string, amount?: number, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUp(accountId, id, 'capture', opts, (c) => {
      if (!(c.status === 'approved' && c.captured === false)) {
        throw rgError(c.captured ? 'CAPTURE_ALREADY_CAPTURED' : 'CAPTURE_NOT_PREAUTHORIZED', { id, status: c.status });
      }
      if (amount !== undefined && amount > c.amount) throw rgError('CAPTURE_AMOUNT_TOO_LARGE', { amount, authorized: c.amount });
      return { op: 'capture', amount };
    });
  }

  async cancel(accountId: string, id: string, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUp(accountId, id, 'cancel', opts, (c) => {
      const cancellable = (c.status === 'approved' && c.captured === false) || c.status === 'pending' || c.status === 'processing';
      if (!cancellable) {
        throw rgError(c.status === 'approved' ? 'CANCEL_CAPTURED' : 'CANCEL_NOT_CANCELLABLE', { id, status: c.status });
      }
      return { op: 'cancel' };
    });
  }

  async refund(accountId: string, id: string, amount?: number, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUp(accountId, id, 'refund', opts, (c) => {
      if (c.status !== 'approved' || c.captured === false) {
        throw rgError(c.captured === false ? 'REFUND_NOT_CAPTURED' : 'REFUND_NOT_REFUNDABLE', { id, status: c.status });
      }
      const refundable = (c.paidAmount || c.amount) - c.refundedAmount;
      if (refundable <= 0) throw rgError('REFUND_NOTHING_LEFT', { id });
      if (amount !== undefined && amount > refundable) {
        throw rgError('REFUND_AMOUNT_TOO_LARGE', { amount, refundable });
      }
      const partial = amount !== undefined && amount < refundable;
      if (partial) assertSupported(c, 'partial_refund');
      return { op: partial ? 'partial_refund' : 'refund', amount: partial ? amount : undefined };
    });
  }

  /**
   * A money-moving follow-up: begun in one write where the normal path holds (beginOnSnapshot), otherwise the full
   * path, which answers what the gateway can never do before it looks at the charge's state.
   */
  private async followUp(accountId: string, id: string, op: ChargeOperation, opts: FollowUpOptions, decide: Decide): Promise<ChargeResult> {
    const quick = await this.beginOnSnapshot(accountId, id, op, opts, decide);
    if (quick) return quick;
    assertSupported(await this.host.get(accountId, id), op);
    return this.run(accountId, id, opts, decide);
  }

  /**
   * The normal path with one write before the gateway call (one round trip on PostgreSQL, where the charge usually
   * comes from the snapshots the process keeps, with no read): the request checked against the charge as last
   * seen, then its lock taken and its operation begun only while the row is still that version and no attempt holds
   * it. Undefined, with nothing written, when that does not hold or the request would be refused: the full path
   * then decides under the lock, on the charge as stored then. A snapshot found stale is read again once.
   */
  private async beginOnSnapshot(accountId: string, id: string, op: ChargeOperation, opts: FollowUpOptions, decide: Decide): Promise<ChargeResult | undefined> {
    const { store } = this.deps;
    for (let tries = 0; tries < 2; tries++) {
      const seen = await store.charges.snapshot(accountId, id);
      if (!seen || seen.charge.status === 'processing' || !seen.charge.externalId) return undefined;
      let decided: Decided;
      try {
        assertSupported(seen.charge, op);
        decided = decide(seen.charge);
      } catch (err) {
        if (err instanceof RouteGateError) return undefined;
        throw err;
      }
      const gateway = seen.charge.gateway as GatewayId;
      const credentials = await this.deps.vault.reveal(accountId, gateway);
      if (!credentials) return undefined;
      const owner = ChargeLocks.newOwner();
      const begun = await store.writeOne((r) => r.charges.beginOnSnapshot(
        seen, owner, Date.now(), this.host.locks.leaseMs, decided.op, inFlight(decided, gateway, opts.clientKey), opts.clientKey,
      ));
      if (begun.state === 'stale') continue;
      if (begun.state === 'held') return this.run(accountId, id, opts, decide, owner);
      const held: Held = { owner };
      try {
        return await this.operate(begun.charge, decided.op, decided.amount, opts.deadline ?? this.host.deadline(), held, opts.clientKey, { seq: begun.seq, credentials });
      } finally {
        await this.host.locks.release(id, owner, { released: held.released });
      }
    }
    return undefined;
  }

  /** The charge and its attempts as stored now, in one read (one round trip on PostgreSQL). */
  private async read(accountId: string, id: string): Promise<{ charge: ChargeRecord; attempts: AttemptRecord[] }> {
    const found = await this.deps.store.charges.getWithAttempts(accountId, id);
    if (!found) throw rgError('CHARGE_NOT_FOUND', { id });
    return found;
  }

  /**
   * One follow-up under the charge's lock: wait for any other operation on the charge (unless `taken`, the lock this
   * request already holds), read it afresh. A retry of a client key bound to an operation settles and answers that
   * operation. Otherwise: settle an unconfirmed create; settle every money-moving operation whose outcome is unknown
   * (409 OPERATION_UNSETTLED while one stays unknown); check the request against what is stored now; then run it
   * as an operation of its own.
   */
  private async run(accountId: string, id: string, opts: FollowUpOptions, decide: Decide, taken?: string): Promise<ChargeResult> {
    const deadline = opts.deadline ?? this.host.deadline();
    const owner = taken ?? await this.host.locks.acquire(id, this.lockWaitUntil(deadline));
    const held: Held = { owner };
    try {
      let { charge, attempts } = await this.read(accountId, id);
      const bound = opts.clientKey === undefined ? undefined : attempts.find((a) => a.clientKey === opts.clientKey && MONEY_MOVING.has(a.operation));
      if (bound) return await this.answerBound(charge, bound, deadline);
      // An unconfirmed create (or an interrupted read of it): re-read first, so the checks below see the gateway's
      // amounts, not ours. Follow-up rows are not settled there: only by their own identity, below.
      const createUnsettled = charge.status === 'processing'
        || attempts.some((a) => !MONEY_MOVING.has(a.operation) && (a.outcome === 'in_flight' || a.outcome === 'unknown'));
      if (createUnsettled) {
        await this.host.settleCreate(charge, deadline);
        charge = await this.host.get(accountId, id);
        if (charge.status === 'processing' && !charge.externalId) {
          throw rgError('CHARGE_UNCONFIRMED', { id, gateway: charge.gateway }, { gateway: charge.gateway ?? undefined, headers: rgHeaders(charge) });
        }
      }
      const open = attempts.filter(isUnsettledFollowUp);
      if (open.length > 0) {
        for (const a of open) await this.settleOperation(charge, a, deadline);
        ({ charge, attempts } = await this.read(accountId, id));
      }
      const { op, amount } = decide(charge);
      // An operation unknown when this request came may have been what the client is retrying without its key: once it
      // turns out applied, this request starts nothing, and the client decides with the charge's amounts in hand.
      const applied = op === 'retrieve' ? undefined : open.map((a) => attempts.find((x) => x.seq === a.seq)).find((a) => a?.outcome === 'success');
      if (applied) {
        throw rgError('OPERATION_SETTLED_JUST_NOW', { id, operation: opOfRow(id, applied).replace('_', ' '), seq: applied.seq, gateway: applied.gateway }, {
          gateway: applied.gateway, headers: rgHeaders(charge),
        });
      }
      const still = attempts.find(isUnsettledFollowUp);
      if (still && op !== 'retrieve') {
        throw rgError('OPERATION_UNSETTLED', { id, operation: opOfRow(id, still).replace('_', ' '), seq: still.seq, gateway: still.gateway }, {
          gateway: still.gateway, headers: rgHeaders(charge),
        });
      }
      if (op === 'retrieve' && createUnsettled) return { charge }; // settleCreate has just read it at the gateway
      return await this.operate(charge, op, amount, deadline, held, opts.clientKey);
    } finally {
      await this.host.locks.release(id, owner, { released: held.released });
    }
  }

  /**
   * How long a follow-up waits for the charge's lock: 15 s at most, and not into the time its gateway call needs, one
   * gateway timeout before its request's deadline (at most half the request's budget, so it always waits some). Past
   * that it answers 409 CHARGE_BUSY having done nothing. A lock taken later left the call less than its timeout,
   * down to none at all: the refund was then recorded, refused by the deadline before it was sent, answered 504
   * GATEWAY_TIMEOUT, and left an attempt the next operation had to settle at the gateway.
   */
  private lockWaitUntil(deadline: number): number {
    const reserve = Math.min(this.deps.timeoutMs, this.deps.requestDeadlineMs / 2);
    return Math.min(deadline - reserve, Date.now() + 15_000);
  }

  /** The answer to a retry of a client key bound to `a`: that operation, settled first if its outcome is unknown. */
  private async answerBound(charge: ChargeRecord, a: AttemptRecord, deadline: number): Promise<ChargeResult> {
    let row = a;
    if (isUnsettledFollowUp(a)) {
      await this.settleOperation(charge, a, deadline);
      row = (await this.deps.store.charges.attempts(charge.id)).find((x) => x.seq === a.seq) ?? a;
      charge = await this.host.get(charge.accountId, charge.id);
    }
    if (row.outcome === 'success') return { charge, refund: refundOfRow(row) };
    // Still in process at the gateway (or refused for now): the same pending answer, never a second refund.
    if (isPendingRefund(row)) return { charge, refund: pendingRefundOfRow(row) };
    if (isUnsettledFollowUp(row)) {
      const error = rgError('OPERATION_OUTCOME_UNKNOWN', { id: charge.id, operation: opOfRow(charge.id, row).replace('_', ' '), seq: row.seq, gateway: row.gateway }, { gateway: row.gateway });
      return { charge, error };
    }
    const code = (row.errorCode ?? 'GATEWAY_ERROR') as ErrorCode;
    return { charge, error: RouteGateError.restore(code, row.message ?? rgError('CHARGE_FAILED', { id: charge.id }).message, { gateway: row.gateway }) };
  }

  /**
   * `begun`: the operation as beginOnSnapshot recorded it, and the credentials it was recorded with: it is sent with
   * those, since a row recorded is an operation that may be sent (read again, they could have gone meanwhile).
   */
  private async operate(
    charge: ChargeRecord, op: FollowUp, amount: number | undefined, deadline: number, held: Held, clientKey?: string,
    begun?: { seq: number; credentials: Record<string, string> },
  ): Promise<ChargeResult> {
    const { store } = this.deps;
    const gateway = charge.gateway as GatewayId;
    if (!charge.externalId) throw rgError('CHARGE_NEVER_CREATED', { id: charge.id, status: charge.status });
    const adapter = ADAPTERS[gateway];
    // The credentials first: an operation is recorded only once it can be sent.
    const credentials = begun?.credentials ?? await this.deps.vault.reveal(charge.accountId, gateway);
    if (!credentials) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
    const operation = op === 'partial_refund' ? 'refund' : op;
    // The operation's number, its row (in_flight, under the gateway key made from that number) and the client key's
    // binding to it, in one write before the gateway call (on PostgreSQL one statement): after a crash or a 504, a
    // retry of the key finds this operation (and its gateway key) and settles it. A refresh records nothing before.
    const seq = begun?.seq ?? (op === 'retrieve'
      ? await store.charges.nextSeq(charge.id)
      : await store.writeOne((r) => r.charges.beginOperation(charge.id, charge.accountId, op, inFlight({ op, amount }, gateway, clientKey), clientKey)));
    const key = `${charge.id}-${op}-${seq}`;
    const ctx = await gatewayContext(this.deps, charge.accountId, gateway, credentials, charge.id, key, deadline);
    const ref = refOf(charge);
    const base = { seq, operation, gateway };
    /** The attempt's end and what it changed; answers the charge as stored. */
    const record = async (a: AttemptRecord, patch?: ChargePatch): Promise<ChargeRecord> => {
      if (op !== 'retrieve' && patch) {
        // The normal path: the attempt's end, the charge's change and the lock's release in one write (on PostgreSQL one statement).
        const stored = await store.writeOne((r) => r.charges.settleOperation(charge.id, a, patch, held.owner));
        held.released = true;
        return stored;
      }
      let settled: ChargeRecord | undefined;
      await store.commit(async (tx) => {
        if (op === 'retrieve') await tx.charges.addAttempt(charge.id, a);
        else await tx.charges.finishAttempt(charge.id, a);
        // The operation's last write: it releases the lock in the same statement and answers the row (an update, an
        // unlock and a read before). Without a patch nothing of the charge changed: updated_at stays.
        if (patch) settled = await tx.charges.settle(charge.id, patch, held.owner);
      });
      if (!settled) return (await store.charges.getById(charge.id))!;
      held.released = true;
      return settled;
    };
    const started = performance.now();
    try {
      let outcome: ChargeOutcome;
      try {
        outcome = await callGateway(adapter, op, ctx, ref, amount);
      } catch (err) {
        if (op === 'retrieve' || !isAmbiguous(err) || (err instanceof GatewayFailure && err.info.accepted)) throw err;
        // The gateway may have moved the money without answering: where it keeps keys, the same call under the same
        // key returns what it did (or does it once); elsewhere the operation is looked for by its own identity.
        const found = adapter.keepsIdempotencyKeys ? await callGateway(adapter, op, ctx, ref, amount) : await this.findApplied(adapter, op, ctx, ref, key).catch(() => null);
        if (!found) throw err;
        outcome = found;
      }
      if (operation === 'refund' && outcome.refund?.status === 'pending') {
        // Taken but in process at the gateway: pending, not counted in refundedAmount until the gateway says done.
        const refundId = outcome.refund.refundId;
        const stored = await record({
          seq, operation, gateway, outcome: 'pending', durationMs: performance.now() - started, externalId: refundId,
          message: `in process at ${gateway} (${outcome.refund.gatewayStatus ?? 'pending'}): settled by a re-read or ${gateway}'s notification`,
        }, pendingPatch(charge, outcome.normalized));
        return { charge: stored, raw: outcome.raw, refund: { ...outcome.refund, status: 'pending' } };
      }
      const patch = patchFromGateway(charge, outcome.normalized);
      // What this refund moved, kept per refund: the charge row holds only the total (native refund lists read it).
      const moved = operation === 'refund' ? outcome.refund?.amount ?? Math.max(0, (patch.refundedAmount ?? charge.refundedAmount) - charge.refundedAmount) : undefined;
      // A plain literal, not `{ ...base, ... }`: a request's path builds no object with a leading spread (README).
      const stored = await record({ seq, operation, gateway, outcome: 'success', durationMs: performance.now() - started, externalId: outcome.refund?.refundId, amount: moved }, patch);
      return { charge: stored, raw: outcome.raw, refund: outcome.refund };
    } catch (err) {
      const accepted = err instanceof GatewayFailure ? err.info.accepted : undefined;
      if (accepted && op !== 'retrieve') {
        // The gateway's own answer says it was done; only the read after it failed. A success, answered with that
        // answer; the charge's amounts are left as stored until the next read (?refresh=true, a webhook).
        const message = `accepted; the charge was not read back: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
        const stored = await record({
          seq, operation, gateway, outcome: 'success', message, durationMs: performance.now() - started, externalId: accepted.refund?.refundId, amount: accepted.refund?.amount,
        }, patchFromAcceptedRefund(charge, accepted.refund));
        return { charge: stored, raw: accepted.raw, refund: accepted.refund };
      }
      // A refusal that means "not yet" (nothing done at the gateway): pending, sent again by RouteGate later.
      if (operation === 'refund' && err instanceof GatewayFailure && adapter.refundNotYet?.(err)) {
        const stored = await record(refusedForNow(base, err, performance.now() - started));
        return { charge: stored, refund: { ...(amount !== undefined ? { amount } : {}), status: 'pending', gatewayStatus: 'refused_for_now' } };
      }
      // Reading a declined charge is not a failed read: the gateway says it is (still) declined.
      if (op === 'retrieve' && err instanceof GatewayFailure && err.kind === 'decline' && err.info.normalized) {
        const declined = patchFromGateway(charge, err.info.normalized);
        declined.status = 'declined';
        const stored = await record({ seq, operation, gateway, outcome: 'success', durationMs: performance.now() - started }, declined);
        return { charge: stored, raw: err.info.body };
      }
      // An ambiguous failure stays `unknown` on the operation's row: never settled by re-reading totals, which may
      // not show the operation yet (a gateway still holding it). It is settled by its identity: a retry of its key,
      // a refresh, or the next follow-up (settleOperation).
      const failed = failureAttempt(base, err, started, isAmbiguous(err) && op !== 'retrieve' ? 'unknown' : undefined);
      return { charge: await record(failed), error: toPublicError(err, gateway) };
    }
  }

  /**
   * Read-only: the operation at its gateway by its own identity, where the gateway keeps no keys. A refund by the
   * operation key it carries (adapter.findRefund); a capture or a cancel by the charge's state, which each of them
   * sets once and which nothing but RouteGate's own call changes that way. Null: not there (yet).
   */
  private async findApplied(adapter: GatewayAdapter, op: FollowUp, ctx: CallContext, ref: ChargeRef, operationKey: string): Promise<ChargeOutcome | null> {
    if (op === 'refund' || op === 'partial_refund') return adapter.findRefund ? adapter.findRefund(ctx, ref, operationKey) : null;
    const now = await adapter.retrieveCharge(ctx, ref);
    const n = now.normalized;
    if (op === 'capture') return n.captured === true && n.status === 'approved' ? now : null;
    if (op === 'cancel') return n.status === 'cancelled' || (n.status === 'refunded' && n.paidAmount === 0) ? now : null;
    return null;
  }

  /**
   * The reconciler's sweep: settle the unknown follow-ups of up to `limit` charges that nobody holds (a live
   * operation holds its charge's lock from before its row is written until its outcome is). Resolves how many
   * operations were settled and how many stay unknown.
   */
  async settlePending(limit = 100): Promise<{ settled: number; unknown: number }> {
    const { store } = this.deps;
    const report = { settled: 0, unknown: 0 };
    for (const id of await store.charges.withUnsettledFollowUps(limit)) {
      const owner = await this.host.locks.tryAcquire(id);
      if (!owner) continue;
      try {
        const charge = await store.charges.getById(id);
        if (!charge) continue;
        const deadline = this.host.deadline();
        for (const a of (await store.charges.attempts(id)).filter(isUnsettledFollowUp)) {
          if (await this.settleOperation(charge, a, deadline)) report.settled += 1;
          else report.unknown += 1;
        }
      } finally {
        await this.host.locks.release(id, owner);
      }
    }
    return report;
  }

  /**
   * A notification about the charge came: settle the refunds it holds in process now, by reading them (the
   * notification says something changed; the read says what). Nothing when none is pending or someone holds the
   * charge (its holder settles it; the reconciler's sweep otherwise). Refunds refused for now wait for the sweep.
   */
  async settleRefundsOf(chargeId: string): Promise<number> {
    const { store } = this.deps;
    const inProcess = (a: AttemptRecord) => isPendingRefund(a) && a.failureKind !== REFUSED_FOR_NOW;
    // Every verified notification about a charge comes here: an index probe answers the usual "none" without
    // reading the charge's attempts.
    if (!(await store.charges.hasRefundInProcess(chargeId))) return 0;
    const owner = await this.host.locks.tryAcquire(chargeId);
    if (!owner) return 0;
    let settled = 0;
    try {
      const charge = await store.charges.getById(chargeId);
      if (!charge) return 0;
      const deadline = this.host.deadline();
      for (const a of (await store.charges.attempts(chargeId)).filter(inProcess)) {
        if (await this.settleOperation(charge, a, deadline)) settled += 1;
      }
    } finally {
      await this.host.locks.release(chargeId, owner);
    }
    return settled;
  }

  /**
   * Settle one money-moving operation whose outcome is unknown (interrupted by a crash, or unanswered), under the
   * charge's lock held by the caller. Where the gateway keeps keys, the same call is replayed under the same gateway
   * key with the same amount: the gateway answers what it did, or does it once. Elsewhere it is looked for by its
   * identity (findApplied); not found, it stays unknown until the settle horizon has passed since it was sent, after
   * which the gateway would show it: then it is recorded failed (never applied). Never settled by comparing totals.
   */
  async settleOperation(charge: ChargeRecord, a: AttemptRecord, deadline: number): Promise<boolean> {
    if (isPendingRefund(a)) return await settlePendingRefund(this.deps, charge, a, deadline);
    const { store } = this.deps;
    const gateway = a.gateway as GatewayId;
    const adapter = ADAPTERS[gateway];
    const op = opOfRow(charge.id, a);
    const key = a.idempotencyKey ?? `${charge.id}-${op}-${a.seq}`;
    const base = { seq: a.seq, operation: a.operation, gateway, clientKey: a.clientKey, requestedAmount: a.requestedAmount };
    const age = Date.now() - Date.parse(a.createdAt ?? '');
    const why = a.outcome === 'in_flight' ? 'interrupted' : 'no answer';
    const keep = async (message: string) => {
      await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, { ...a, outcome: 'unknown', message: message.slice(0, 500) }));
      return false;
    };
    if (!charge.externalId) return keep(`${why}; the charge has no ${gateway} id to settle it with`);
    const ctx = await callContext(this.deps, charge.accountId, gateway, charge.id, key, deadline);
    if (!ctx) return keep(`${why}; no ${gateway} credentials to settle it with`);
    const ref = refOf(charge);
    const amount = a.requestedAmount ?? undefined;
    const started = performance.now();
    let found: ChargeOutcome | null;
    try {
      if (adapter.keepsIdempotencyKeys) {
        if (age > KEY_RETENTION_MS) return keep(`${why}; older than ${gateway}'s idempotency key retention: settle it by reading ${gateway}'s dashboard`);
        found = await callGateway(adapter, op, ctx, ref, amount);
      } else {
        found = await this.findApplied(adapter, op, ctx, ref, key);
      }
    } catch (err) {
      const accepted = err instanceof GatewayFailure ? err.info.accepted : undefined;
      if (accepted) {
        const patch = patchFromAcceptedRefund(charge, accepted.refund);
        await store.commit(async (tx) => {
          await tx.charges.finishAttempt(charge.id, {
            ...base, outcome: 'success', durationMs: a.durationMs, externalId: accepted.refund?.refundId, amount: accepted.refund?.amount,
            message: `${why}; settled by replaying ${key} (accepted; the charge was not read back)`,
          });
          if (patch) await tx.charges.update(charge.id, patch);
        });
        return true;
      }
      if (isAmbiguous(err) || !adapter.keepsIdempotencyKeys) return keep(`${why}; settling it failed: ${err instanceof Error ? err.message : String(err)}`);
      // The replay was refused in the way that means "not yet": nothing was done, the refund is pending again.
      if (a.operation === 'refund' && err instanceof GatewayFailure && adapter.refundNotYet?.(err)) {
        await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, { ...refusedForNow(base, err, a.durationMs), clientKey: a.clientKey }));
        return false;
      }
      // The gateway answered the replay under the operation's own key with a refusal: the operation was refused.
      const failed = failureAttempt(base, err, started);
      failed.durationMs = a.durationMs;
      failed.message = `${why}; the replay under ${key} was refused: ${failed.message}`.slice(0, 500);
      await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, failed));
      return true;
    }
    if (!found) {
      if (age <= this.settleHorizonMs) return keep(`${why}; ${gateway} shows no ${op.replace('_', ' ')} ${key} yet`);
      const message = `${why}; ${gateway} shows no ${op.replace('_', ' ')} ${key} ${Math.round(age / 1000)} s after it was sent: never applied`;
      await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, { ...base, outcome: 'failed', errorCode: 'GATEWAY_ERROR', message, durationMs: a.durationMs }));
      return true;
    }
    const patch = patchFromGateway(charge, found.normalized);
    const how = adapter.keepsIdempotencyKeys ? `replaying ${key}` : `finding ${key} at ${gateway}`;
    await store.commit(async (tx) => {
      await tx.charges.finishAttempt(charge.id, {
        ...base, outcome: 'success', durationMs: a.durationMs, message: `${why}; settled by ${how}`,
        externalId: found.refund?.refundId, amount: a.operation === 'refund' ? found.refund?.amount : undefined,
      });
      await tx.charges.update(charge.id, patch);
    });
    return true;
  }
}
