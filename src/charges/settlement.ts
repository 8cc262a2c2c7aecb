import type { ChargePatch, ChargeRecord, AttemptRecord } from '../store/charges';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import { GatewayFailure, type CallContext, type ChargeOutcome, type NormalizedCharge, type PaymentMethod } from '../gateways/types';
import { rgError } from '../errors';
import { wrongAmountError } from '../gateways/answer-guard';
import { toPublicError } from './outcomes';
import { ChargeLocks } from './charge-locks';
import { settleAmbiguousCreate, type SendClock, type Settlement } from './settle';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { isFollowUp } from './follow-ups';
import { settleHorizonMs, callContext, reconcileDelayMs, type GatewayDeps } from './gateway-deps';
import { OrphanHandler } from './orphans';

/**
 * The create request as it was sent to `gateway`, rebuilt from a client's retry with the same Idempotency-Key and
 * body: where the gateway keeps idempotency keys, replaying it under the attempt's key is a safe lookup.
 */
export type CreateReplay = (gateway: GatewayId) => Promise<NormalizedCharge | undefined>;

/** Outcomes of a create attempt that may have left RouteGate (a refused or unreachable call made nothing). */
const mayHaveCharged = (s: { outcome: string; ambiguous: boolean }) => s.outcome !== 'failed' || s.ambiguous;

/**
 * Settling charges to their gateway's truth, read-only except for a same-key replay of a create: unconfirmed
 * creates and interrupted follow-ups (settleHeld), and settled charges kept under watch until the settle horizon
 * has passed since their last send (recheckHeld), where payments made after all, and orphans, are found.
 */
/** A payment a verified notification named for a charge whose create is unsettled: a candidate, read at the gateway. */
export interface NotifiedPayment { gateway: GatewayId; externalId: string }

export class ChargeSettlement {
  private readonly orphans: OrphanHandler;

  constructor(private readonly deps: GatewayDeps, private readonly locks: ChargeLocks) {
    this.orphans = new OrphanHandler(deps);
  }

  private get horizonMs(): number {
    return settleHorizonMs(this.deps);
  }

  private deadline(): number {
    return Date.now() + this.deps.requestDeadlineMs;
  }

  /**
   * Settle a charge for the reconciler or a client's retry: only if nobody holds it. Resolves true when it is no
   * longer `processing` (or was not to begin with).
   */
  async reconcile(id: string, deadline = this.deadline(), replay?: CreateReplay): Promise<boolean> {
    const owner = await this.locks.tryAcquire(id);
    if (!owner) return false;
    return this.reconcileHeld(id, owner, deadline, replay);
  }

  /**
   * Settle an unconfirmed create from a verified notification that names a payment (src/webhooks/gateway-reads.ts):
   * the payment is read at the gateway with the account's credentials and taken only when the gateway's own answer
   * carries this charge's reference. Waits for the lock like a follow-up; resolves true once not `processing`.
   */
  async settleNotified(id: string, notified: NotifiedPayment, deadline = this.deadline()): Promise<boolean> {
    const owner = await this.locks.acquire(id, Math.min(deadline, Date.now() + 15_000));
    try {
      const charge = await this.deps.store.charges.getById(id);
      if (!charge || charge.status !== 'processing' || charge.externalId) return true;
      return await this.settleHeld(charge, deadline, undefined, notified);
    } finally {
      await this.locks.release(id, owner);
    }
  }

  /** The notified payment as the gateway answers it, when it is this charge's (its reference); else undefined. */
  private async confirmNotified(ctx: CallContext, charge: ChargeRecord, notified: NotifiedPayment): Promise<ChargeOutcome | undefined> {
    const adapter = ADAPTERS[notified.gateway];
    if (!adapter.referenceOf) return undefined;
    try {
      const read = await adapter.retrieveCharge(ctx, { externalId: notified.externalId, paymentMethod: charge.paymentMethod as PaymentMethod, amount: charge.amount });
      return adapter.referenceOf(read.raw) === charge.id ? read : undefined;
    } catch (err) {
      if (err instanceof GatewayFailure && err.kind === 'decline' && adapter.referenceOf(err.info.body) === charge.id) throw err;
      return undefined;
    }
  }

  /** `reconcile` for a charge whose lock `owner` already holds (claimed by the reconciler); releases it. */
  async reconcileHeld(id: string, owner: string, deadline = this.deadline(), replay?: CreateReplay): Promise<boolean> {
    try {
      const charge = await this.deps.store.charges.getById(id);
      if (!charge) return true;
      return await this.settleHeld(charge, deadline, replay);
    } finally {
      await this.locks.release(id, owner);
    }
  }

  /**
   * The charge's truth at its gateway: by the gateway's id when known, else by a same-key replay of the create
   * (where the gateway keeps keys and the request is at hand) and the reference RouteGate sent, under strict proof of
   * absence (src/charges/settle.ts). Interrupted follow-ups (in_flight attempts whose holder died) are closed as
   * unknown and the amounts re-read. The caller holds the lock. Resolves true once not `processing`.
   */
  async settleHeld(charge: ChargeRecord, deadline: number, replay?: CreateReplay, notified?: NotifiedPayment): Promise<boolean> {
    const { store } = this.deps;
    const attempts = await store.charges.attempts(charge.id);
    // Follow-ups whose outcome is unknown are settled by their own identity (follow-ups.ts), never by this read.
    const open = attempts.filter((a) => (a.outcome === 'in_flight' || a.outcome === 'unknown') && !isFollowUp(a));
    const interrupted = open;
    const gateway = (open.at(-1)?.gateway ?? charge.gateway) as GatewayId;
    const seq = await store.charges.nextSeq(charge.id);
    const base = { seq, operation: 'reconcile', gateway };
    const started = performance.now();
    /** When the create being settled last left RouteGate (0: not a create's settlement). */
    let lastSent = 0;
    const finish = (patch: ChargePatch | undefined, record: AttemptRecord, settledCreate?: AttemptRecord['outcome'], recheck = false) => store.commit(async (tx) => {
      if (record.outcome === 'success') {
        for (const a of interrupted) {
          const outcome = a.operation === 'charge' ? settledCreate ?? 'unknown' : 'reconciled';
          const why = a.outcome === 'in_flight' ? 'interrupted' : 'no answer';
          await tx.charges.finishAttempt(charge.id, { ...a, outcome, message: `${why}; ${record.message ?? 'settled by the reconciler'}`.slice(0, 500) });
        }
      }
      if (patch) await tx.charges.update(charge.id, patch);
      await tx.charges.addAttempt(charge.id, record);
      const status = patch?.status ?? charge.status;
      if (status === 'processing') {
        const n = await tx.charges.reconcileAttempts(charge.id) + 1;
        let delay = reconcileDelayMs(n, this.deps.reconcileBackoffMs);
        // Checked again soon after the horizon ends, when a lookup's "none" starts to prove something.
        const untilHorizon = lastSent + this.horizonMs - Date.now();
        if (lastSent > 0 && untilHorizon > 0) delay = Math.min(delay, untilHorizon + 1_000);
        await tx.charges.scheduleReconcile(charge.id, n, Date.now() + delay);
      } else if (recheck) {
        // `failed` or `declined` by settlement: watched until the horizon has passed (recheckHeld).
        await tx.charges.setRecheck(charge.id, true);
        await tx.charges.scheduleReconcile(charge.id, 0, Date.now() + reconcileDelayMs(0, this.deps.reconcileBackoffMs));
      }
    });

    if (charge.status === 'processing' && !charge.externalId && !open.some((a) => a.operation === 'charge')) {
      // No create ever left RouteGate: nothing can exist at any gateway.
      const { code, message } = rgError('NEVER_SENT');
      await finish({ status: 'failed', errorCode: code, errorMessage: message }, { ...base, outcome: 'success', message, durationMs: 0 });
      return true;
    }
    // The create being settled: its own idempotency key, so a replay is the same request to the gateway.
    const sends = charge.externalId ? [] : (await store.charges.createSends(charge.id)).filter((s) => s.gateway === gateway);
    const openCreate = open.filter((a) => a.operation === 'charge' && a.gateway === gateway).at(-1);
    const send = (openCreate && sends.find((s) => s.seq === openCreate.seq)) ?? sends.at(-1);
    const ctx = await callContext(this.deps, charge.accountId, gateway, charge.id, send?.idempotencyKey ?? `${charge.id}-reconcile-${seq}`, deadline);
    if (!ctx) {
      await finish(undefined, { ...base, outcome: 'failed', errorCode: 'MISSING_CREDENTIALS', message: `no ${gateway} credentials to read the charge with`, durationMs: 0 });
      return charge.status !== 'processing';
    }
    const adapter = ADAPTERS[gateway];
    const pm = charge.paymentMethod as PaymentMethod;
    const declined = async (err: GatewayFailure) => {
      const publicError = toPublicError(err, gateway);
      const patch: ChargePatch = {
        ...(err.info.normalized ? patchFromGateway(charge, err.info.normalized) : {}), gateway, status: 'declined', declineCode: publicError.extra.declineCode!,
        errorCode: publicError.code, errorMessage: publicError.message.slice(0, 500),
      };
      await finish(patch, { ...base, outcome: 'success', message: `settled at ${gateway}: declined`, durationMs: performance.now() - started }, 'decline', !charge.externalId);
      return true;
    };
    try {
      let found: ChargeOutcome;
      if (charge.externalId) {
        found = await adapter.retrieveCharge(ctx, { externalId: charge.externalId, paymentMethod: pm, amount: charge.amount, refs: charge.refs ?? undefined });
      } else {
        lastSent = send?.sentAt ?? Date.parse(charge.createdAt);
        const clock: SendClock = {
          horizonMs: this.horizonMs,
          lastSentAt: () => lastSent,
          beforeReplay: async () => {
            lastSent = Date.now();
            const at = lastSent;
            if (send) await store.commit((tx) => tx.charges.markSent(charge.id, send.seq, at));
          },
        };
        const confirmed = notified && notified.gateway === gateway ? await this.confirmNotified(ctx, charge, notified) : undefined;
        // Only under the key the create was sent with: any other key would be a second create.
        const body = !confirmed && replay && send?.idempotencyKey && adapter.keepsIdempotencyKeys ? await replay(gateway) : undefined;
        const settled: Settlement = confirmed ? { kind: 'charged', outcome: confirmed, via: 'lookup' } : await settleAmbiguousCreate(adapter, ctx, pm, body, clock, { refusalProves: false });
        if (settled.kind === 'declined') return await declined(settled.failure);
        if (settled.kind === 'absent') {
          const { code, message } = rgError('NEVER_TAKEN', { gateway, id: charge.id });
          const record: AttemptRecord = { ...base, outcome: 'success', message: `${message} (${settled.proof})`.slice(0, 500), durationMs: performance.now() - started };
          await finish({ status: 'failed', errorCode: code, errorMessage: message }, record, 'failed', true);
          return true;
        }
        if (settled.kind === 'unknown') {
          await finish(undefined, { ...base, outcome: 'unknown', message: settled.reason.slice(0, 500), durationMs: performance.now() - started });
          return false;
        }
        found = settled.outcome;
        // Found for another amount than asked: never approved; the charge fails and the payment is its orphan.
        const wrong = wrongAmountError(gateway, charge.amount, found);
        if (wrong) {
          await this.orphans.handle(charge, gateway, found, deadline);
          const message = wrong.message.slice(0, 500);
          await finish({ status: 'failed', errorCode: wrong.code, errorMessage: message }, { ...base, outcome: 'success', message, durationMs: performance.now() - started }, 'failed');
          return true;
        }
      }
      const patch = { ...patchFromGateway(charge, found.normalized), gateway, errorCode: null, errorMessage: null };
      await finish(patch, { ...base, outcome: 'success', message: `settled at ${gateway}: ${found.normalized.status}`, durationMs: performance.now() - started }, 'success');
      return found.normalized.status !== 'processing';
    } catch (err) {
      if (err instanceof GatewayFailure && err.kind === 'decline') return await declined(err);
      await finish(undefined, failureAttempt(base, err, started, 'unknown'));
      return false;
    }
  }

  /**
   * A settled charge under watch (recheck): every gateway its create may have reached is looked up by the charge's
   * reference. At the charge's own gateway, a payment found for a charge stored `failed` or `declined` by settlement
   * moves it to what the gateway holds; anywhere else it is an orphan (OrphanHandler). The watch ends once the horizon
   * has passed since the last send and every lookup answered. Releases `owner`'s lock.
   */
  async recheckHeld(id: string, owner: string, deadline = this.deadline()): Promise<boolean> {
    const { store } = this.deps;
    try {
      const charge = await store.charges.getById(id);
      if (!charge) return true;
      if (charge.status === 'processing') return await this.settleHeld(charge, deadline);
      const sends = (await store.charges.createSends(id)).filter(mayHaveCharged);
      const lastSent = Math.max(0, ...sends.map((s) => s.sentAt));
      const pm = charge.paymentMethod as PaymentMethod;
      let complete = true;
      for (const g of new Set(sends.map((s) => s.gateway as GatewayId))) {
        if (g === charge.gateway && charge.externalId) continue; // the charge's own payment
        const adapter = ADAPTERS[g];
        if (!adapter?.lookupCharge) continue; // nothing to look up by: left to the gateway's webhooks
        const seq = await store.charges.nextSeq(id);
        const base = { seq, operation: 'reconcile', gateway: g };
        const ctx = await callContext(this.deps, charge.accountId, g, id, `${id}-recheck-${seq}`, deadline);
        if (!ctx) continue;
        const started = performance.now();
        let found: ChargeOutcome | null;
        try {
          found = await adapter.lookupCharge(ctx, id, pm);
        } catch (err) {
          if (err instanceof GatewayFailure && err.kind === 'decline') continue; // a declined payment moved no money
          complete = false;
          await store.commit((tx) => tx.charges.addAttempt(id, failureAttempt(base, err, started, 'unknown')));
          continue;
        }
        if (!found || (found.normalized.externalId && found.normalized.externalId === charge.externalId)) continue;
        if (g === charge.gateway) {
          // Stored failed or declined by settlement, yet the gateway made it: the gateway's truth wins.
          const patch: ChargePatch = { ...patchFromGateway(charge, found.normalized), errorCode: null, errorMessage: null };
          const message = `${g} holds ${found.normalized.externalId} (${found.normalized.status}) with this reference after all; the charge follows it`;
          const unsettled = (await store.charges.attempts(id)).filter((a) => a.operation === 'charge' && a.gateway === g && (a.outcome === 'in_flight' || a.outcome === 'unknown'));
          await store.commit(async (tx) => {
            for (const a of unsettled) await tx.charges.finishAttempt(id, { ...a, outcome: 'success', message: `${a.message ?? 'no answer'}; ${message}`.slice(0, 500) });
            await tx.charges.update(id, patch);
            await tx.charges.addAttempt(id, { ...base, outcome: 'success', message, durationMs: performance.now() - started });
          });
          continue;
        }
        if (!await this.orphans.handle(charge, g, found, deadline)) complete = false;
      }
      const done = complete && Date.now() - lastSent >= this.horizonMs;
      await store.commit(async (tx) => {
        if (done) {
          await tx.charges.setRecheck(id, false);
          return;
        }
        const n = await tx.charges.reconcileAttempts(id) + 1;
        const untilHorizon = lastSent + this.horizonMs - Date.now();
        const delay = Math.min(reconcileDelayMs(n, this.deps.reconcileBackoffMs), Math.max(untilHorizon + 1_000, 1_000));
        await tx.charges.scheduleReconcile(id, n, Date.now() + delay);
      });
      return done;
    } finally {
      await this.locks.release(id, owner);
    }
  }
}
