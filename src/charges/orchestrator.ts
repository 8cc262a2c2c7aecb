import type { AccountRow, SettingsRow } from '../store/accounts';
import type { AttemptRecord, ChargePatch, ChargeRecord } from '../store/charges';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import { GatewayFailure, type ChargeOperation, type ChargeOutcome, type ChargeRef, type NormalizedCharge, type PaymentMethod } from '../gateways/types';
import { RouteGateError, rgError, type ErrorCode } from '../errors';
import { toPublicError } from './outcomes';
import { planAttempts, type PlannedAttempt } from './router';
import { rgHeaders } from './response-format';
import { ChargeLocks } from './charge-locks';
import { isAmbiguous } from './settle';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { callContext, type ChargeResult, type GatewayDeps } from './gateway-deps';
import { ChargeCreation } from './create';
import { ChargeSettlement, type CreateReplay } from './settlement';

// What callers imported from here before the create and settlement had modules of their own.
export { callContext, gatewayContext, reconcileDelayMs, type ChargeResult, type GatewayDeps } from './gateway-deps';
export { newChargeId } from './create';
export type { CreateReplay } from './settlement';

/**
 * What the gateway can never do answers 422 before the charge's state is looked at: "<gateway> cannot capture a
 * pix" is the useful answer, not "this pix is not an uncaptured pre-authorization".
 */
function assertSupported(c: ChargeRecord, op: ChargeOperation): void {
  const gateway = c.gateway as GatewayId;
  const pm = c.paymentMethod as PaymentMethod;
  if (ADAPTERS[gateway]?.capabilities[pm]?.[op] === 'unsupported') {
    throw rgError('OPERATION_UNSUPPORTED', { gateway, operation: op.replace('_', ' '), method: pm }, { gateway });
  }
}

type FollowUp = ChargeOperation | 'retrieve';

/** A follow-up's hold on the charge: `released` once the lock went with its last write. */
interface Held { owner: string; released?: boolean }

/**
 * The charges API as routes and other callers see it: creates (src/charges/create.ts), settlement
 * (src/charges/settlement.ts), and the follow-up operations, which run here.
 */
export class ChargeService {
  readonly locks: ChargeLocks;
  private readonly creation: ChargeCreation;
  private readonly settlement: ChargeSettlement;

  constructor(private readonly deps: GatewayDeps) {
    // A lease outlives every request (whose deadline bounds each holder), so only a dead holder's lease expires.
    this.locks = new ChargeLocks(deps.store, deps.requestDeadlineMs + Math.min(5_000, deps.requestDeadlineMs));
    this.creation = new ChargeCreation(deps, this.locks);
    this.settlement = new ChargeSettlement(deps, this.locks);
  }

  deadline(): number {
    return Date.now() + this.deps.requestDeadlineMs;
  }

  /** `compatGateway`: the request came in that gateway's native format (its tokens' home; src/charges/router.ts). */
  create(
    account: AccountRow, settings: SettingsRow, request: NormalizedCharge, opts: { idempotencyKey?: string; deadline?: number; compatGateway?: GatewayId } = {},
  ): Promise<ChargeResult> {
    return this.creation.create(account, settings, request, opts);
  }

  /**
   * A client's retry of a create (same Idempotency-Key and body) as the replay settlement may send to `gateway`
   * under the create's own key: the request planned again, with the customer the stored charge was made with.
   */
  createReplay(account: AccountRow, settings: SettingsRow, request: NormalizedCharge, chargeId: string, opts: { compatGateway?: GatewayId } = {}): CreateReplay {
    return async (gateway) => {
      const stored = await this.deps.store.charges.get(account.id, chargeId);
      // A request that no longer plans (settings or credentials changed since) is not replayed: the lookup still runs.
      const plan = await planAttempts(this.deps.store, this.deps.vault, account.id, settings, request, { compatGateway: opts.compatGateway }).catch(() => undefined);
      if (!plan) return undefined;
      const step = plan.attempts.find((a) => a.gateway === gateway && !a.skip);
      if (!step) return undefined;
      // A payer RouteGate registered is on the row (stored before the create left); without one the request's own.
      if (step.registerPayer && !stored?.customerId) return undefined;
      return step.registerPayer ? { ...step.charge, customerId: stored!.customerId! } : step.charge;
    };
  }


  async get(accountId: string, id: string): Promise<ChargeRecord> {
    const charge = await this.deps.store.charges.get(accountId, id);
    if (!charge) throw rgError('CHARGE_NOT_FOUND', { id });
    return charge;
  }

  /** Re-read the charge at its gateway and store what changed (a `processing` charge is reconciled first). */
  async refresh(accountId: string, id: string, deadline = this.deadline()): Promise<ChargeResult> {
    return this.followUp(accountId, id, deadline, () => ({ op: 'retrieve' }));
  }

  async capture(accountId: string, id: string, amount?: number, deadline = this.deadline()): Promise<ChargeResult> {
    assertSupported(await this.get(accountId, id), 'capture');
    return this.followUp(accountId, id, deadline, (c) => {
      if (!(c.status === 'approved' && c.captured === false)) {
        throw rgError(c.captured ? 'CAPTURE_ALREADY_CAPTURED' : 'CAPTURE_NOT_PREAUTHORIZED', { id, status: c.status });
      }
      if (amount !== undefined && amount > c.amount) throw rgError('CAPTURE_AMOUNT_TOO_LARGE', { amount, authorized: c.amount });
      return { op: 'capture', amount };
    });
  }

  async cancel(accountId: string, id: string, deadline = this.deadline()): Promise<ChargeResult> {
    assertSupported(await this.get(accountId, id), 'cancel');
    return this.followUp(accountId, id, deadline, (c) => {
      const cancellable = (c.status === 'approved' && c.captured === false) || c.status === 'pending' || c.status === 'processing';
      if (!cancellable) {
        throw rgError(c.status === 'approved' ? 'CANCEL_CAPTURED' : 'CANCEL_NOT_CANCELLABLE', { id, status: c.status });
      }
      return { op: 'cancel' };
    });
  }

  async refund(accountId: string, id: string, amount?: number, deadline = this.deadline()): Promise<ChargeResult> {
    assertSupported(await this.get(accountId, id), 'refund');
    return this.followUp(accountId, id, deadline, (c) => {
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
   * One follow-up under the charge's lock: wait for any other operation on the charge, read it afresh, settle it
   * first if its create is unconfirmed, check the request against what is stored now, take a fresh operation
   * number (the gateway idempotency key), record the attempt, call the gateway and store what it answered.
   */
  private async followUp(accountId: string, id: string, deadline: number, decide: (c: ChargeRecord) => { op: FollowUp; amount?: number }): Promise<ChargeResult> {
    const { store } = this.deps;
    const owner = await this.locks.acquire(id, this.lockWaitUntil(deadline));
    const held: Held = { owner };
    try {
      let charge = await this.get(accountId, id);
      // An unconfirmed create, or a follow-up whose outcome is unknown (interrupted, or no answer): re-read first,
      // so the checks below see the gateway's amounts, not ours.
      const unsettled = charge.status === 'processing' || (await store.charges.attempts(id)).some((a) => a.outcome === 'in_flight' || a.outcome === 'unknown');
      if (unsettled) {
        await this.settleHeld(charge, deadline);
        charge = await this.get(accountId, id);
        if (charge.status === 'processing' && !charge.externalId) {
          throw rgError('CHARGE_UNCONFIRMED', { id, gateway: charge.gateway }, { gateway: charge.gateway ?? undefined, headers: rgHeaders(charge) });
        }
      }
      const { op, amount } = decide(charge);
      if (op === 'retrieve' && unsettled) return { charge }; // settleHeld has just read it at the gateway
      return await this.operate(charge, op, amount, deadline, held);
    } finally {
      await this.locks.release(id, owner, { released: held.released });
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

  private async operate(charge: ChargeRecord, op: FollowUp, amount: number | undefined, deadline: number, held: Held): Promise<ChargeResult> {
    const { store } = this.deps;
    const gateway = charge.gateway as GatewayId;
    if (!charge.externalId) throw rgError('CHARGE_NEVER_CREATED', { id: charge.id, status: charge.status });
    const adapter = ADAPTERS[gateway];
    const seq = await store.charges.nextSeq(charge.id);
    const key = `${charge.id}-${op}-${seq}`;
    const ctx = await callContext(this.deps, charge.accountId, gateway, charge.id, key, deadline);
    if (!ctx) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
    const ref: ChargeRef = {
      externalId: charge.externalId, paymentMethod: charge.paymentMethod as PaymentMethod, amount: charge.amount, refs: charge.refs ?? undefined,
      split: charge.split ?? undefined,
    };
    const operation = op === 'partial_refund' ? 'refund' : op;
    const base = { seq, operation, gateway };
    if (op !== 'retrieve') await store.commit(async (tx) => await tx.charges.addAttempt(charge.id, { ...base, outcome: 'in_flight', idempotencyKey: key, durationMs: 0 }));
    /** The attempt's end and what it changed; answers the charge as stored. */
    const record = async (a: AttemptRecord, patch?: ChargePatch): Promise<ChargeRecord> => {
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
    const call = () => (op === 'capture' ? adapter.captureCharge(ctx, ref, amount)
      : op === 'cancel' ? adapter.cancelCharge(ctx, ref)
        : op === 'retrieve' ? adapter.retrieveCharge(ctx, ref)
          : adapter.refundCharge(ctx, ref, amount));
    const started = performance.now();
    try {
      let outcome: ChargeOutcome;
      try {
        outcome = await call();
      } catch (err) {
        // The gateway may have moved the money without answering: the same call under the same key returns
        // what it did (or does it once). Where the gateway keeps no keys, the next operation re-reads first.
        if (!(op !== 'retrieve' && isAmbiguous(err) && adapter.keepsIdempotencyKeys)) throw err;
        outcome = await call();
      }
      const patch = patchFromGateway(charge, outcome.normalized);
      // What this refund moved, kept per refund: the charge row holds only the total (native refund lists read it).
      const moved = operation === 'refund' ? outcome.refund?.amount ?? Math.max(0, (patch.refundedAmount ?? charge.refundedAmount) - charge.refundedAmount) : undefined;
      const stored = await record({ ...base, outcome: 'success', durationMs: performance.now() - started, externalId: outcome.refund?.refundId, amount: moved }, patch);
      return { charge: stored, raw: outcome.raw, refund: outcome.refund };
    } catch (err) {
      // Reading a declined charge is not a failed read: the gateway says it is (still) declined.
      if (op === 'retrieve' && err instanceof GatewayFailure && err.kind === 'decline' && err.info.normalized) {
        const stored = await record({ ...base, outcome: 'success', durationMs: performance.now() - started }, { ...patchFromGateway(charge, err.info.normalized), status: 'declined' });
        return { charge: stored, raw: err.info.body };
      }
      const failed = failureAttempt(base, err, started, isAmbiguous(err) ? 'unknown' : undefined);
      let patch: ChargePatch | undefined;
      if (op !== 'retrieve') {
        // The call may have moved money before failing (a refund accepted, then its read-back failed): the stored
        // amounts follow a fresh read, or, if that fails too, the next operation re-reads before anything else.
        try {
          patch = patchFromGateway(charge, (await adapter.retrieveCharge(ctx, ref)).normalized);
          if (failed.outcome === 'unknown') failed.outcome = 'reconciled';
        } catch {
          failed.outcome = 'unknown';
        }
      }
      return { charge: await record(failed, patch), error: toPublicError(err, gateway) };
    }
  }

  /**
   * Settle a charge for the reconciler (or a client's retry, whose request `replay` rebuilds): only if nobody holds
   * it. Resolves true when it is no longer `processing` (or was not to begin with).
   */
  reconcile(id: string, deadline = this.deadline(), replay?: CreateReplay): Promise<boolean> {
    return this.settlement.reconcile(id, deadline, replay);
  }

  /** `reconcile` for a charge whose lock `owner` already holds (claimed by the reconciler); releases it. */
  reconcileHeld(id: string, owner: string, deadline = this.deadline()): Promise<boolean> {
    return this.settlement.reconcileHeld(id, owner, deadline);
  }

  /** A settled charge under watch (claimed by the reconciler): payments made after all, and orphans. */
  recheckHeld(id: string, owner: string, deadline = this.deadline()): Promise<boolean> {
    return this.settlement.recheckHeld(id, owner, deadline);
  }

  /** The charge's truth at its gateway (src/charges/settlement.ts); the caller holds the lock. */
  private settleHeld(charge: ChargeRecord, deadline: number): Promise<boolean> {
    return this.settlement.settleHeld(charge, deadline);
  }
}

/** The public error a stored, settled charge answers a replayed create with (undefined: it succeeded). */
export function storedChargeError(c: ChargeRecord): RouteGateError | undefined {
  if (c.status === 'declined') {
    const extra = { gateway: c.gateway ?? undefined };
    return c.errorMessage == null ? rgError('DECLINE_RECORDED', { declineCode: c.declineCode ?? 'card_declined' }, extra) : RouteGateError.restore('GATEWAY_ERROR', c.errorMessage, extra);
  }
  if (c.status === 'failed') {
    const code = (c.errorCode ?? 'GATEWAY_ERROR') as ErrorCode;
    return RouteGateError.restore(code, c.errorMessage ?? rgError('CHARGE_FAILED', { id: c.id }).message, { gateway: c.gateway ?? undefined });
  }
  if (c.status === 'processing' && !c.externalId) {
    const extra = { gateway: c.gateway ?? undefined };
    return c.errorMessage == null ? rgError('CHARGE_BEING_CONFIRMED', { id: c.id, gateway: c.gateway }, extra) : RouteGateError.restore('GATEWAY_TIMEOUT', c.errorMessage, extra);
  }
  return undefined;
}

export type { PlannedAttempt };
export { resolveGatewayId };
