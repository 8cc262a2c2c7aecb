import type { AccountRow, SettingsRow } from '../store/accounts';
import type { ChargeRecord } from '../store/charges';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { NormalizedCharge } from '../gateways/types';
import { RouteGateError, rgError, type ErrorCode } from '../errors';
import { planAttempts, type PlannedAttempt } from './router';
import { ChargeLocks } from './charge-locks';
import { type ChargeResult, type GatewayDeps } from './gateway-deps';
import { ChargeCreation } from './create';
import { ChargeSettlement, type CreateReplay, type NotifiedPayment } from './settlement';
import { FollowUps, type FollowUpOptions } from './follow-ups';

// What callers imported from here before the create and settlement had modules of their own.
export { callContext, gatewayContext, reconcileDelayMs, type ChargeResult, type GatewayDeps } from './gateway-deps';
export { newChargeId } from './create';
export type { CreateReplay } from './settlement';

/**
 * The charges API as routes and other callers see it: creates (src/charges/create.ts), settlement
 * (src/charges/settlement.ts) and the follow-up operations (src/charges/follow-ups.ts).
 */
export class ChargeService {
  readonly locks: ChargeLocks;
  private readonly creation: ChargeCreation;
  private readonly settlement: ChargeSettlement;
  /** Capture, cancel, refund and refresh (src/charges/follow-ups.ts). */
  readonly followUps: FollowUps;

  constructor(private readonly deps: GatewayDeps) {
    // A lease outlives every request (whose deadline bounds each holder), so only a dead holder's lease expires.
    this.locks = new ChargeLocks(deps.store, deps.requestDeadlineMs + Math.min(5_000, deps.requestDeadlineMs));
    this.creation = new ChargeCreation(deps, this.locks);
    this.settlement = new ChargeSettlement(deps, this.locks);
    this.followUps = new FollowUps(deps, {
      locks: this.locks, deadline: () => this.deadline(), get: (accountId, id) => this.get(accountId, id),
      settleCreate: (charge, deadline) => this.settleHeld(charge, deadline),
    });
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
      // Installment settings changed since: the total would differ, and a replay is the same request or none. The row
      // holds what that gateway was sent (a gateway charging its own quoted plan is sent the price).
      if (stored && stored.amount !== step.charge.amount) return undefined;
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

  /** Re-read the charge at its gateway and store what changed (src/charges/follow-ups.ts). */
  async refresh(accountId: string, id: string, deadline = this.deadline()): Promise<ChargeResult> {
    // The account owns the charge before any lock is waited for: an unknown or foreign id answers 404 at once.
    await this.get(accountId, id);
    return this.followUps.refresh(accountId, id, deadline);
  }

  /** `opts.clientKey`: the request's Idempotency-Key, bound to the operation before its gateway call. */
  async capture(accountId: string, id: string, amount?: number, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUps.capture(accountId, id, amount, opts);
  }

  async cancel(accountId: string, id: string, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUps.cancel(accountId, id, opts);
  }

  async refund(accountId: string, id: string, amount?: number, opts: FollowUpOptions = {}): Promise<ChargeResult> {
    return this.followUps.refund(accountId, id, amount, opts);
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

  /** An unconfirmed create settled from a verified notification's payment, read at the gateway (src/charges/settlement.ts). */
  settleNotified(id: string, notified: NotifiedPayment, deadline = this.deadline()): Promise<boolean> {
    return this.settlement.settleNotified(id, notified, deadline);
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
