import type { Repositories } from '../store';
import type { AccountRow, SettingsRow } from '../store/accounts';
import type { AttemptRecord, ChargePatch, ChargeRecord } from '../store/charges';
import { nowIso } from '../store/db';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import {
  GatewayFailure, type AppliedSplitItem, type CallContext, type ChargeOutcome, type NormalizedCharge, type NormalizedChargeResult,
} from '../gateways/types';
import { RouteGateError, rgError } from '../errors';
import { FALLBACK_ON, FALLBACK_ON_SKIP, toPublicError } from './outcomes';
import { planAttempts, type AttemptPlan, type PlannedAttempt } from './router';
import { rgHeaders } from './response-format';
import { ChargeLocks } from './charge-locks';
import { isAmbiguous, settleAmbiguousCreate, type SendClock } from './settle';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { settleHorizonMs, gatewayContext, reconcileDelayMs, type ChargeResult, type GatewayDeps } from './gateway-deps';
import { appliedSplit } from '../splits/resolve';
import { customerFor } from './customer-registration';
import { randomHex } from '../lib/random-hex';
import { answeredWithWrongAmount, wrongAmountError } from '../gateways/answer-guard';
import { OrphanHandler } from './orphans';
import { ownPlanCharged } from '../installments/own-plan';
import type { InstallmentPlan } from '../installments/price-table';

/**
 * `chg_` and 32 hex digits: the creation time in milliseconds (12 digits), then 80 random bits. Charges created
 * together sit together in the primary key and in the attempts index, so each one's writes land on the pages the
 * previous ones dirtied instead of on a random page each (a third of the store's CPU per charge at 20,000 rows).
 */
export function newChargeId(): string {
  return `chg_${Date.now().toString(16).padStart(12, '0')}${randomHex(10)}`;
}

/** The split a planned attempt sends, as the charge row keeps it (null: none). */
function splitSent(step: PlannedAttempt | undefined): AppliedSplitItem[] | null {
  const resolved = step?.charge.resolvedSplit;
  return resolved ? appliedSplit(resolved) : null;
}

/** The plan as the row holds it while `step` runs: the quoting gateway charging its own plan is named as its financer. */
function plannedFor(plan: AttemptPlan, step: PlannedAttempt | undefined): InstallmentPlan | undefined {
  if (!plan.installments || !step?.charge.creditCard?.gatewayPlan) return plan.installments;
  return { ...plan.installments, financedBy: step.gateway };
}

/** A write queued to run first in the next transaction of the same charge. */
type PendingWrite = (tx: Repositories) => Promise<void>;

/**
 * The charge's own insert: `opSeq` is the last operation number taken with it (0: none yet). With `first` (its
 * attempt numbered `opSeq`) the row, that attempt and the Idempotency-Key's link are one write (ChargesRepository.birth).
 */
type BirthWrite = (tx: Repositories, opSeq?: number, first?: AttemptRecord) => Promise<void>;

/** How far a create got: `written` once its row is stored; `released` once its lock went with the last write. */
interface Born { written: boolean; released?: boolean }

interface LastFailure {
  err: RouteGateError;
  gateway: GatewayId;
  /** A decline: the charge the gateway recorded, if it sent one back. */
  decline?: { normalized?: NormalizedChargeResult; declineCode: string };
}

/**
 * A create across the primary and fallbacks: each attempt on disk (in_flight, with the split and customer it
 * carries) before its gateway call; an ambiguous outcome settled at the same gateway under strict proof of absence
 * (src/charges/settle.ts) before any fallback.
 */
export class ChargeCreation {
  private readonly orphans: OrphanHandler;

  constructor(private readonly deps: GatewayDeps, private readonly locks: ChargeLocks) {
    this.orphans = new OrphanHandler(deps);
  }

  private get horizonMs(): number {
    return settleHorizonMs(this.deps);
  }

  /** `compatGateway`: the request came in that gateway's native format (its tokens' home; src/charges/router.ts). */
  async create(
    account: AccountRow, settings: SettingsRow, request: NormalizedCharge, opts: { idempotencyKey?: string; deadline?: number; compatGateway?: GatewayId } = {},
  ): Promise<ChargeResult> {
    const { store } = this.deps;
    const deadline = opts.deadline ?? Date.now() + this.deps.requestDeadlineMs;
    const plan = await planAttempts(store, this.deps.vault, account.id, settings, request, { compatGateway: opts.compatGateway });
    const now = nowIso();
    const charge: ChargeRecord = {
      id: newChargeId(), accountId: account.id, gateway: plan.first, primaryGateway: plan.first, fallbackUsed: false, externalId: null,
      paymentMethod: request.paymentMethod, status: 'processing', amount: plan.amount, paidAmount: 0, refundedAmount: 0,
      currency: request.currency, captured: null, description: request.description ?? null, customerId: request.customerId ?? null,
      refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null,
      errorMessage: null, createdAt: now, updatedAt: now,
    };
    charge.metadata = request.metadata ?? null;
    // The row holds what its gateway is sent: a gateway charging its own quoted plan is sent the price, not the total,
    // and the plan names it as the plan's financer (a create settled later by the reconciler keeps that truth).
    const firstStep = plan.attempts.find((a) => !a.skip);
    charge.installments = plannedFor(plan, firstStep) ?? null;
    if (firstStep) charge.amount = firstStep.charge.amount;
    // Every fact a later operation needs is in the row before the first gateway call: the split the first attempt
    // carries (a refund after a crash reverses the recipients' shares by it), and the customer (set below when
    // RouteGate registers the payer).
    charge.split = splitSent(plan.attempts.find((a) => !a.skip));
    // The charge is born locked by this request: neither the reconciler nor a follow-up touches it until the
    // create has settled. It is written with the client's Idempotency-Key link and its first attempt (in_flight)
    // in one transaction, before any gateway call (runAttempts commits it).
    const owner = ChargeLocks.newOwner();
    const born: Born = { written: false };
    const insert: BirthWrite = async (tx, opSeq = 0, first) => {
      if (first) return tx.charges.birth(charge, { owner, expiresAt: Date.now() + this.locks.leaseMs }, first, opts.idempotencyKey);
      await tx.charges.insert(charge, { owner, expiresAt: Date.now() + this.locks.leaseMs }, opSeq);
      if (opts.idempotencyKey) await tx.idempotency.linkCharge(account.id, opts.idempotencyKey, charge.id);
    };
    try {
      return await this.runAttempts(charge, plan, deadline, { insert, born, owner });
    } catch (err) {
      if (!born.written) throw err; // nothing stored, nothing sent
      // Past the insert a gateway may have charged. The answer names the charge so the client reads it before
      // retrying; the row stays `processing` for the reconciler, and the Idempotency-Key stays bound to it.
      throw rgError('CHARGE_INCOMPLETE', { id: charge.id, gateway: charge.gateway }, { headers: rgHeaders(charge), cause: err });
    } finally {
      // The last write of runAttempts released the lock in its transaction; this only wakes local waiters
      // (or, after a failure, releases it).
      await this.locks.release(charge.id, owner, { released: born.released });
    }
  }

  /**
   * Run the planned attempts in order; each is on disk (in_flight) before its gateway call. Each attempt's operation
   * number is taken in the transaction that writes it, after the writes pending before it (the charge's own insert
   * first), so one transaction per gateway call carries everything that led to it.
   */
  private async runAttempts(charge: ChargeRecord, plan: AttemptPlan, deadline: number, birth: { insert: BirthWrite; born: Born; owner: string }): Promise<ChargeResult> {
    const { store } = this.deps;
    let pending: PendingWrite[] = [birth.insert];
    /** The attempt each queued finishAttempt write records: alone in the last write, it goes with the settle. */
    const finishes = new WeakMap<PendingWrite, AttemptRecord>();
    const finish = (record: AttemptRecord): void => {
      const write: PendingWrite = (tx) => tx.charges.finishAttempt(charge.id, record);
      finishes.set(write, record);
      pending.push(write);
    };
    let lastFailure: LastFailure | undefined;
    let firstSkip: { err: RouteGateError; gateway: GatewayId } | undefined;
    let won: { outcome: ChargeOutcome; gateway: GatewayId } | undefined;
    let unknown: { gateway: GatewayId; reason: string } | undefined;
    let deadlinePassed = false;
    const tried: GatewayId[] = [];
    /** The gateway the stored row names (the row is born naming the plan's first). */
    let storedGateway = charge.gateway;
    /** The customer each gateway's create was sent with, where RouteGate registered (or reused) the payer. */
    const customerIds = new Map<GatewayId, string>();
    /** When the current attempt's create last left (its send, or a same-key replay): the settle horizon's start. */
    let lastSent = 0;
    /** Gateways whose create was ambiguous: if the charge ends elsewhere, the reconciler keeps checking them. */
    let ambiguousAt: Set<GatewayId> | undefined;

    for (const step of plan.attempts) {
      if (step.skip) {
        const skip = step.skip;
        pending.push(async (tx) => {
          const skipped: AttemptRecord = { seq: await tx.charges.nextSeq(charge.id), operation: 'charge', gateway: step.gateway, outcome: 'skipped', errorCode: skip.reason, message: skip.message, durationMs: 0 };
          await tx.charges.addAttempt(charge.id, skipped);
        });
        firstSkip ??= { err: step.skip.error, gateway: step.gateway };
        if (FALLBACK_ON_SKIP[step.skip.reason]) continue;
        break;
      }
      // Never a split charge without its split: the router resolves it for every gateway it lets through.
      if (step.charge.split?.length && !step.charge.resolvedSplit) throw rgError('SPLIT_NOT_RESOLVED', { gateway: step.gateway });
      if (Date.now() >= deadline) {
        deadlinePassed = true;
        break;
      }
      const writes = pending;
      pending = [];
      // The common case: the charge is born with its first attempt, already naming that attempt's gateway. It is
      // locked by this request from birth, so operation number 1 is this attempt's and is written with the row.
      const bornWithAttempt = writes.length === 1 && writes[0] === birth.insert && charge.gateway === step.gateway;
      let seq = 0;
      if (bornWithAttempt) {
        // One write (on PostgreSQL one statement, one round trip): the row, this attempt and the key's link.
        seq = 1;
        lastSent = Date.now();
        const first: AttemptRecord = { seq, operation: 'charge', gateway: step.gateway, outcome: 'in_flight', idempotencyKey: `${charge.id}-${seq}`, durationMs: 0, sentAt: lastSent };
        await store.writeOne((r) => birth.insert(r, seq, first));
      } else {
        await store.commit(async (tx) => {
          for (const w of writes) await w(tx);
          seq = await tx.charges.nextSeq(charge.id);
          // The split and customer this attempt carries, stored before its call (the row is the crash's record).
          const patch: ChargePatch = { gateway: step.gateway, split: splitSent(step), customerId: step.charge.customerId ?? null, amount: step.charge.amount };
          if (plan.installments) patch.installments = plannedFor(plan, step);
          await tx.charges.update(charge.id, patch);
          storedGateway = step.gateway;
          lastSent = Date.now();
          await tx.charges.addAttempt(charge.id, { seq, operation: 'charge', gateway: step.gateway, outcome: 'in_flight', idempotencyKey: `${charge.id}-${seq}`, durationMs: 0, sentAt: lastSent });
        });
      }
      birth.born.written = true;
      const key = `${charge.id}-${seq}`;
      const base = { seq, operation: 'charge', gateway: step.gateway };
      tried.push(step.gateway);
      const adapter = ADAPTERS[step.gateway];
      const ctx = await gatewayContext(this.deps, charge.accountId, step.gateway, step.credentials!, charge.id, key, deadline);
      const started = performance.now();
      let sent = step.charge;
      if (step.registerPayer) {
        // Before the create: a failure here charged nothing, so the fallback rule applies as to a refused call.
        const registered = await this.registerPayer(step, ctx, charge.accountId, key);
        if ('failure' in registered) {
          const record = failureAttempt(base, registered.failure, started, 'failed');
          record.message = registered.error.message.slice(0, 500);
          finish(record);
          lastFailure = { err: registered.error, gateway: step.gateway };
          const f = registered.failure instanceof GatewayFailure ? registered.failure : undefined;
          if (f && FALLBACK_ON[f.kind]) continue;
          break;
        }
        sent = { ...step.charge, customerId: registered.customerId };
        customerIds.set(step.gateway, registered.customerId);
        // The customer the create is made with is stored before the create leaves, and the send time with it.
        lastSent = Date.now();
        const sentAt = lastSent;
        await store.commit(async (tx) => {
          await tx.charges.update(charge.id, { customerId: registered.customerId });
          await tx.charges.markSent(charge.id, seq, sentAt);
        });
      }
      try {
        const outcome = await adapter.createCharge(ctx, sent);
        // The spread last (see conclude): its keys are not among these.
        finish({ outcome: 'success', durationMs: performance.now() - started, ...base });
        won = { outcome, gateway: step.gateway };
        break;
      } catch (err) {
        let failure: unknown = err;
        if (isAmbiguous(err)) {
          (ambiguousAt ??= new Set()).add(step.gateway);
          const clock: SendClock = {
            horizonMs: this.horizonMs,
            lastSentAt: () => lastSent,
            beforeReplay: async () => {
              lastSent = Date.now();
              const at = lastSent;
              await store.commit((tx) => tx.charges.markSent(charge.id, seq, at));
            },
          };
          const settled = await settleAmbiguousCreate(adapter, ctx, sent.paymentMethod, sent, clock);
          const wrong = settled.kind === 'charged' ? wrongAmountError(step.gateway, sent.amount, settled.outcome) : undefined;
          if (wrong) failure = wrong; // handled below as any answer with another amount: the charge fails, the payment is an orphan
          else if (settled.kind === 'charged') {
            const message = `${err.message}; settled by ${settled.via} at ${step.gateway}`;
            finish({ ...base, outcome: 'success', ambiguous: true, message, durationMs: performance.now() - started });
            won = { outcome: settled.outcome, gateway: step.gateway };
            break;
          }
          else if (settled.kind === 'unknown') {
            const record = failureAttempt(base, err, started, 'unknown');
            record.message = `${record.message}; ${settled.reason}`.slice(0, 500);
            finish(record);
            unknown = { gateway: step.gateway, reason: settled.reason };
            break;
          }
          else if (settled.kind === 'declined') failure = settled.failure;
          else if (settled.kind === 'absent') {
            const record = failureAttempt(base, err, started);
            record.message = `${record.message}; ${settled.proof}`.slice(0, 500);
            finish(record);
            lastFailure = { err: toPublicError(err, step.gateway), gateway: step.gateway };
            // Proven absent: the fallback rule applies as to any refusal, and cannot charge twice.
            if (FALLBACK_ON[err.kind]) continue;
            break;
          }
        }
        finish(failureAttempt(base, failure, started));
        // The gateway took a payment for another amount than asked: the charge fails, and that payment is handled as
        // an orphan of it (recorded, announced, voided or refunded by the account's orphanPolicy), never left behind.
        const wrongAmount = answeredWithWrongAmount(failure);
        if (wrongAmount) await this.orphans.handle(charge, step.gateway, wrongAmount, deadline);
        const f = failure instanceof GatewayFailure ? failure : undefined;
        lastFailure = { err: toPublicError(failure, step.gateway), gateway: step.gateway };
        if (f?.kind === 'decline') {
          lastFailure.decline = { normalized: f.info.normalized, declineCode: f.info.declineCode ?? 'card_declined' };
          break;
        }
        if (f && FALLBACK_ON[f.kind]) continue;
        break;
      }
    }

    const outcome = this.conclude(charge, plan, { won, unknown, lastFailure, firstSkip, deadlinePassed, tried });
    // The charge names the customer it was made with at the gateway that holds it.
    const holder = won?.gateway ?? unknown?.gateway ?? (lastFailure?.decline ? lastFailure.gateway : undefined);
    const customerId = holder ? customerIds.get(holder) : undefined;
    if (customerId) outcome.patch.customerId = customerId;
    // The gateway column is in an index: setting it to the value it holds would still rewrite its index entry.
    // Undefined is left out of the UPDATE by both stores; a `delete` would turn the patch into a dictionary object.
    if (outcome.patch.gateway === storedGateway) outcome.patch.gateway = undefined;
    const writes = pending;
    let settled: ChargeRecord | undefined;
    // A create that was ambiguous, then settled as `failed` or `declined` (a refused replay, a decline read back), or
    // at a gateway the charge did not end at (proven absent there): the reconciler keeps looking until the horizon
    // has passed, so a payment made after all is followed, or found as an orphan.
    const endedAt = outcome.patch.gateway ?? storedGateway;
    const status = outcome.patch.status;
    let recheck = false;
    if (ambiguousAt && status !== 'processing') for (const g of ambiguousAt) recheck ||= g !== endedAt || status === 'failed' || status === 'declined';
    // The normal path: the attempt's end and the charge's settle are one write (on PostgreSQL one statement).
    const finished = writes.length === 1 && status !== 'processing' && !recheck ? finishes.get(writes[0]) : undefined;
    if (finished) settled = await store.writeOne((r) => r.charges.settleOperation(charge.id, finished, outcome.patch, birth.owner));
    else {
      await store.commit(async (tx) => {
        for (const w of writes) await w(tx);
        if (outcome.patch.status === 'processing') await tx.charges.scheduleReconcile(charge.id, 0, Date.now() + reconcileDelayMs(0, this.deps.reconcileBackoffMs));
        if (recheck) {
          await tx.charges.setRecheck(charge.id, true);
          await tx.charges.scheduleReconcile(charge.id, 0, Date.now() + reconcileDelayMs(0, this.deps.reconcileBackoffMs));
        }
        settled = await tx.charges.settle(charge.id, outcome.patch, birth.owner);
      });
    }
    birth.born.written = true;
    birth.born.released = true;
    return { charge: settled!, raw: won?.outcome.raw, rawText: won?.outcome.rawText, error: outcome.error };
  }

  /**
   * The customerId a planned attempt's payer is charged as (src/charges/customer-registration.ts), or why it could
   * not be registered. The create is keyed by the attempt's own idempotency key, so it is never made twice for it.
   */
  private async registerPayer(
    step: PlannedAttempt, ctx: CallContext, accountId: string, attemptKey: string,
  ): Promise<{ customerId: string } | { failure: unknown; error: RouteGateError }> {
    try {
      const { customer } = await customerFor(this.deps.store, ADAPTERS[step.gateway], { ...ctx, idempotencyKey: `${attemptKey}-customer` }, accountId, step.registerPayer!);
      return { customerId: customer.externalId };
    } catch (failure) {
      const refused = toPublicError(failure, step.gateway);
      return { failure, error: refused.extend('CUSTOMER_REGISTRATION_FAILED', { gateway: step.gateway }) };
    }
  }

  /** The charge's final columns and the public answer, from how the attempts went. */
  private conclude(
    charge: ChargeRecord, plan: AttemptPlan,
    r: {
      won?: { outcome: ChargeOutcome; gateway: GatewayId }; unknown?: { gateway: GatewayId; reason: string };
      lastFailure?: LastFailure; firstSkip?: { err: RouteGateError; gateway: GatewayId };
      deadlinePassed: boolean; tried: GatewayId[];
    },
  ): { patch: ChargePatch; error?: RouteGateError } {
    const tried = r.tried.join(', ');
    // The patches are built by setting keys, not by spreading one object into another: Node 20's V8 gives an object
    // made by a leading spread a hidden class of its own, and then makes a new one for each key added after it, about
    // 0.5 µs a key (docs/performance.md, eighteenth round).
    // The split the gateway was sent, where money may have moved (charged, declined, or not known yet), and where it went.
    const withPlace = (patch: ChargePatch, gateway: GatewayId): ChargePatch => {
      const sent = plan.attempts.find((a) => a.gateway === gateway && !a.skip)?.charge.resolvedSplit;
      if (sent) patch.split = appliedSplit(sent);
      patch.gateway = gateway;
      patch.fallbackUsed = gateway !== plan.first;
      return patch;
    };
    if (r.won) {
      const patch = withPlace(patchFromGateway(charge, r.won.outcome.normalized), r.won.gateway);
      const sent = plan.attempts.find((a) => a.gateway === r.won!.gateway && !a.skip)?.charge;
      const own = plan.installments && sent ? ownPlanCharged(plan.installments, sent, r.won.gateway, r.won.outcome.normalized) : undefined;
      if (own) {
        patch.installments = own;
        if (own.quotedTotalAmount !== undefined) {
          this.deps.log?.warn({ chargeId: charge.id, gateway: r.won.gateway, quoted: own.quotedTotalAmount, charged: own.totalAmount }, 'the gateway charged its own installment plan for another total than it quoted');
        }
      }
      return { patch };
    }
    if (r.unknown) {
      const error = rgError('CHARGE_OUTCOME_UNKNOWN', { gateway: r.unknown.gateway, tried, id: charge.id }, { gateway: r.unknown.gateway });
      const patch = withPlace({ status: 'processing' }, r.unknown.gateway);
      patch.errorCode = error.code;
      patch.errorMessage = error.message.slice(0, 500);
      return { patch, error };
    }
    if (r.lastFailure && !r.deadlinePassed) {
      const { err, gateway, decline } = r.lastFailure;
      let patch: ChargePatch;
      if (decline) {
        patch = withPlace(decline.normalized ? patchFromGateway(charge, decline.normalized) : {}, gateway);
        patch.status = 'declined';
        patch.declineCode = decline.declineCode;
      } else {
        patch = { status: 'failed', gateway, fallbackUsed: gateway !== plan.first };
      }
      patch.errorCode = err.code;
      patch.errorMessage = err.message.slice(0, 500);
      return { patch, error: err };
    }
    if (r.deadlinePassed) {
      const extra = { gateway: r.lastFailure?.gateway };
      const err = r.lastFailure ? rgError('DEADLINE_PASSED', { tried, lastError: r.lastFailure.err.message }, extra) : rgError('DEADLINE_PASSED_UNTRIED', {}, extra);
      return { patch: { status: 'failed', errorCode: err.code, errorMessage: err.message.slice(0, 500) }, error: err };
    }
    const skip = r.firstSkip!;
    // A split skip says which recipient is missing where: the merchant learns what to add.
    const others = plan.attempts.filter((a) => a.skip && a.gateway !== skip.gateway)
      .map((a) => `${a.gateway} (${a.skip!.reason}${a.skip!.reason === 'SPLIT_RECIPIENT_UNAVAILABLE' ? `: ${a.skip!.message}` : ''})`);
    const err = others.length ? skip.err.extend('NO_FALLBACK', { others: others.join(', ') }) : skip.err;
    return { patch: { status: 'failed', gateway: plan.first, errorCode: err.code, errorMessage: err.message.slice(0, 500) }, error: err };
  }

}
