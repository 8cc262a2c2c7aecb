import type { Repositories, Store } from '../store';
import type { AccountRow, SettingsRow } from '../store/accounts';
import type { AttemptRecord, ChargePatch, ChargeRecord } from '../store/charges';
import { nowIso } from '../store/db';
import type { CredentialVault } from '../accounts/credential-vault';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { GatewayHttp } from '../gateways/http-client';
import {
  GatewayFailure, type CallContext, type ChargeOperation, type ChargeOutcome, type ChargeRef, type NormalizedCharge,
  type NormalizedChargeResult, type PaymentMethod, type RefundResult,
} from '../gateways/types';
import type { MappingRegistry } from '../mapping/loader';
import { RouteGateError, rgError, type ErrorCode } from '../errors';
import { FALLBACK_ON, FALLBACK_ON_SKIP, toPublicError } from './outcomes';
import { planAttempts, type AttemptPlan, type PlannedAttempt } from './router';
import { rgHeaders } from './response-format';
import { ChargeLocks } from './charge-locks';
import { isAmbiguous, settleAmbiguousCreate } from './settle';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { wireContext } from './wire-context';
import { appliedSplit } from '../splits/resolve';
import { customerFor } from './customer-registration';
import { randomHex } from '../lib/random-hex';

export interface GatewayDeps {
  store: Store;
  vault: CredentialVault;
  mappings: MappingRegistry;
  http: GatewayHttp;
  gatewayUrls: Record<GatewayId, string>;
  /** Response timeout of one gateway call. */
  timeoutMs: number;
  /** A client request's overall budget (ROUTEGATE_REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
  /** First delay before an unsettled charge is checked again (ROUTEGATE_RECONCILE_BACKOFF_MS). */
  reconcileBackoffMs?: number;
  /** Wire settings and the public URL the account's webhook URLs start with (src/config.ts). */
  wire?: import('../gateways/types').WireSettings;
  publicUrl?: string;
}

export interface ChargeResult {
  charge: ChargeRecord;
  raw?: unknown;
  /** `raw` as the gateway's text, where it is exactly that text parsed (ChargeOutcome.rawText). */
  rawText?: string;
  /** Set when the charge did not go through: the public error to answer with. */
  error?: RouteGateError;
  /** Set by refunds: the refund as the gateway recorded it. */
  refund?: RefundResult;
}

/**
 * `chg_` and 32 hex digits: the creation time in milliseconds (12 digits), then 80 random bits. Charges created
 * together sit together in the primary key and in the attempts index, so each one's writes land on the pages the
 * previous ones dirtied instead of on a random page each (a third of the store's CPU per charge at 20,000 rows).
 */
export function newChargeId(): string {
  return `chg_${Date.now().toString(16).padStart(12, '0')}${randomHex(10)}`;
}

/** The per-call context an adapter needs. `credentials` were read once for the whole client request. */
export async function gatewayContext(
  deps: GatewayDeps, accountId: string, gateway: GatewayId, credentials: Record<string, string>, chargeId: string, idempotencyKey: string, deadline?: number,
): Promise<CallContext> {
  return {
    gateway, baseUrl: deps.gatewayUrls[gateway], credentials, http: deps.http, mappings: deps.mappings.get(gateway)!,
    idempotencyKey, chargeId, timeoutMs: deps.timeoutMs, deadline,
    ...(await wireContext(deps, accountId, gateway)),
  };
}

/** Reads the credentials and builds the context; undefined when the account has none for that gateway. */
export async function callContext(deps: GatewayDeps, accountId: string, gateway: GatewayId, chargeId: string, idempotencyKey: string, deadline?: number): Promise<CallContext | undefined> {
  const credentials = await deps.vault.reveal(accountId, gateway);
  return credentials && await gatewayContext(deps, accountId, gateway, credentials, chargeId, idempotencyKey, deadline);
}

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

/** Backoff of the reconciler for one charge: `baseMs` (5 s) doubling to an hour, with jitter so a backlog spreads out. */
export function reconcileDelayMs(attempts: number, baseMs = 5_000): number {
  const delay = Math.min(baseMs * 2 ** Math.min(attempts, 20), 3_600_000);
  return Math.round(delay * (0.75 + Math.random() * 0.5));
}

type FollowUp = ChargeOperation | 'retrieve';

/** A write queued to run first in the next transaction of the same charge. */
type PendingWrite = (tx: Repositories) => Promise<void>;

/** The charge's own insert: `opSeq` is the last operation number taken with it (0: none yet). */
type BirthWrite = (tx: Repositories, opSeq?: number) => Promise<void>;

/** A follow-up's hold on the charge: `released` once the lock went with its last write. */
interface Held { owner: string; released?: boolean }

/** How far a create got: `written` once its row is stored; `released` once its lock went with the last write. */
interface Born { written: boolean; released?: boolean }

interface LastFailure {
  err: RouteGateError;
  gateway: GatewayId;
  /** A decline: the charge the gateway recorded, if it sent one back. */
  decline?: { normalized?: NormalizedChargeResult; declineCode: string };
}

/** Creates charges across the primary and fallbacks, runs follow-up operations, and settles unknown outcomes. */
export class ChargeService {
  readonly locks: ChargeLocks;

  constructor(private readonly deps: GatewayDeps) {
    // A lease outlives every request (whose deadline bounds each holder), so only a dead holder's lease expires.
    this.locks = new ChargeLocks(deps.store, deps.requestDeadlineMs + Math.min(5_000, deps.requestDeadlineMs));
  }

  deadline(): number {
    return Date.now() + this.deps.requestDeadlineMs;
  }

  /** `compatGateway`: the request came in that gateway's native format (its tokens' home; src/charges/router.ts). */
  async create(
    account: AccountRow, settings: SettingsRow, request: NormalizedCharge, opts: { idempotencyKey?: string; deadline?: number; compatGateway?: GatewayId } = {},
  ): Promise<ChargeResult> {
    const { store } = this.deps;
    const deadline = opts.deadline ?? this.deadline();
    const plan = await planAttempts(store, this.deps.vault, account.id, settings, request, { compatGateway: opts.compatGateway });
    const now = nowIso();
    const charge: ChargeRecord = {
      id: newChargeId(), accountId: account.id, gateway: plan.first, primaryGateway: plan.first, fallbackUsed: false, externalId: null,
      paymentMethod: request.paymentMethod, status: 'processing', amount: request.amount, paidAmount: 0, refundedAmount: 0,
      currency: request.currency, captured: null, description: request.description ?? null, customerId: request.customerId ?? null,
      refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null,
      errorMessage: null, createdAt: now, updatedAt: now,
    };
    charge.metadata = request.metadata ?? null;
    // The charge is born locked by this request: neither the reconciler nor a follow-up touches it until the
    // create has settled. It is written with the client's Idempotency-Key link and its first attempt (in_flight)
    // in one transaction, before any gateway call (runAttempts commits it).
    const owner = ChargeLocks.newOwner();
    const born: Born = { written: false };
    const insert: BirthWrite = async (tx, opSeq = 0) => {
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
      await store.commit(async (tx) => {
        if (bornWithAttempt) {
          seq = 1;
          await birth.insert(tx, seq);
        } else {
          for (const w of writes) await w(tx);
          seq = await tx.charges.nextSeq(charge.id);
          await tx.charges.update(charge.id, { gateway: step.gateway });
          storedGateway = step.gateway;
        }
        await tx.charges.addAttempt(charge.id, { seq, operation: 'charge', gateway: step.gateway, outcome: 'in_flight', idempotencyKey: `${charge.id}-${seq}`, durationMs: 0 });
      });
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
          pending.push((tx) => tx.charges.finishAttempt(charge.id, record));
          lastFailure = { err: registered.error, gateway: step.gateway };
          const f = registered.failure instanceof GatewayFailure ? registered.failure : undefined;
          if (f && FALLBACK_ON[f.kind]) continue;
          break;
        }
        sent = { ...step.charge, customerId: registered.customerId };
        customerIds.set(step.gateway, registered.customerId);
      }
      try {
        const outcome = await adapter.createCharge(ctx, sent);
        // The spread last (see conclude): its keys are not among these.
        pending.push((tx) => tx.charges.finishAttempt(charge.id, { outcome: 'success', durationMs: performance.now() - started, ...base }));
        won = { outcome, gateway: step.gateway };
        break;
      } catch (err) {
        let failure: unknown = err;
        if (isAmbiguous(err)) {
          const settled = await settleAmbiguousCreate(adapter, ctx, sent);
          if (settled.kind === 'charged') {
            const message = `${err.message}; settled by ${settled.via} at ${step.gateway}`;
            pending.push((tx) => tx.charges.finishAttempt(charge.id, { ...base, outcome: 'success', ambiguous: true, message, durationMs: performance.now() - started }));
            won = { outcome: settled.outcome, gateway: step.gateway };
            break;
          }
          if (settled.kind === 'unknown') {
            const record = failureAttempt(base, err, started, 'unknown');
            record.message = `${record.message}; ${settled.reason}`.slice(0, 500);
            pending.push((tx) => tx.charges.finishAttempt(charge.id, record));
            unknown = { gateway: step.gateway, reason: settled.reason };
            break;
          }
          if (settled.kind === 'declined') failure = settled.failure;
          else {
            const record = failureAttempt(base, err, started);
            record.message = `${record.message}; ${settled.proof}`.slice(0, 500);
            pending.push((tx) => tx.charges.finishAttempt(charge.id, record));
            lastFailure = { err: toPublicError(err, step.gateway), gateway: step.gateway };
            // Proven absent: the fallback rule applies as to any refusal, and cannot charge twice.
            if (FALLBACK_ON[err.kind]) continue;
            break;
          }
        }
        pending.push((tx) => tx.charges.finishAttempt(charge.id, failureAttempt(base, failure, started)));
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
    await store.commit(async (tx) => {
      for (const w of writes) await w(tx);
      if (outcome.patch.status === 'processing') await tx.charges.scheduleReconcile(charge.id, 0, Date.now() + reconcileDelayMs(0, this.deps.reconcileBackoffMs));
      settled = await tx.charges.settle(charge.id, outcome.patch, birth.owner);
    });
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
      return { patch: withPlace(patchFromGateway(charge, r.won.outcome.normalized), r.won.gateway) };
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

  async get(accountId: string, id: string): Promise<ChargeRecord> {
    const charge = await this.deps.store.charges.get(accountId, id);
    if (!charge) throw rgError('CHARGE_NOT_FOUND', { id });
    return charge;
  }

  /** Re-read the charge at its gateway and store what changed (a `processing` charge is reconciled first). */
  async refresh(accountId: string, id: string, deadline = this.deadline()): Promise<ChargeResult> {
    // The account owns the charge before any lock is waited for: an unknown or foreign id answers 404 at once.
    await this.get(accountId, id);
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
   * Settle a charge for the reconciler: only if nobody holds it. Resolves true when it is no longer
   * `processing` (or was not to begin with).
   */
  async reconcile(id: string, deadline = this.deadline()): Promise<boolean> {
    const owner = await this.locks.tryAcquire(id);
    if (!owner) return false;
    return this.reconcileHeld(id, owner, deadline);
  }

  /** `reconcile` for a charge whose lock `owner` already holds (claimed by the reconciler); releases it. */
  async reconcileHeld(id: string, owner: string, deadline = this.deadline()): Promise<boolean> {
    try {
      const charge = await this.deps.store.charges.getById(id);
      if (!charge) return true;
      return await this.settleHeld(charge, deadline);
    } finally {
      await this.locks.release(id, owner);
    }
  }

  /**
   * The charge's truth at its gateway, read-only (never a create): by the gateway's id when known, else by the
   * reference RouteGate sent. Interrupted follow-ups (in_flight attempts whose holder died) are closed as
   * unknown and the amounts re-read. The caller holds the lock. Resolves true once not `processing`.
   */
  private async settleHeld(charge: ChargeRecord, deadline: number): Promise<boolean> {
    const { store } = this.deps;
    const attempts = await store.charges.attempts(charge.id);
    const open = attempts.filter((a) => a.outcome === 'in_flight' || a.outcome === 'unknown');
    const interrupted = open;
    const gateway = (open.at(-1)?.gateway ?? charge.gateway) as GatewayId;
    const seq = await store.charges.nextSeq(charge.id);
    const base = { seq, operation: 'reconcile', gateway };
    const started = performance.now();
    const finish = (patch: ChargePatch | undefined, record: AttemptRecord, settledCreate?: AttemptRecord['outcome']) => store.commit(async (tx) => {
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
        await tx.charges.scheduleReconcile(charge.id, n, Date.now() + reconcileDelayMs(n, this.deps.reconcileBackoffMs));
      }
    });

    if (charge.status === 'processing' && !charge.externalId && !open.some((a) => a.operation === 'charge')) {
      // No create ever left RouteGate: nothing can exist at any gateway.
      const { code, message } = rgError('NEVER_SENT');
      await finish({ status: 'failed', errorCode: code, errorMessage: message }, { ...base, outcome: 'success', message, durationMs: 0 });
      return true;
    }
    const ctx = await callContext(this.deps, charge.accountId, gateway, charge.id, `${charge.id}-reconcile-${seq}`, deadline);
    if (!ctx) {
      await finish(undefined, { ...base, outcome: 'failed', errorCode: 'MISSING_CREDENTIALS', message: `no ${gateway} credentials to read the charge with`, durationMs: 0 });
      return charge.status !== 'processing';
    }
    const adapter = ADAPTERS[gateway];
    const pm = charge.paymentMethod as PaymentMethod;
    try {
      let found: ChargeOutcome | null;
      if (charge.externalId) {
        found = await adapter.retrieveCharge(ctx, { externalId: charge.externalId, paymentMethod: pm, amount: charge.amount, refs: charge.refs ?? undefined });
      } else if (adapter.lookupCharge) {
        found = await adapter.lookupCharge(ctx, charge.id, pm);
        if (!found && adapter.lookupProvesAbsence) {
          const { code, message } = rgError('NEVER_TAKEN', { gateway, id: charge.id });
          await finish({ status: 'failed', errorCode: code, errorMessage: message }, { ...base, outcome: 'success', message, durationMs: performance.now() - started }, 'failed');
          return true;
        }
      } else {
        found = null;
      }
      if (!found) {
        const message = adapter.lookupCharge
          ? `${gateway}'s search does not list ${charge.id} yet; checking again later`
          : `${gateway} offers no lookup by reference: the charge stays processing for the operator (see docs/charges.md)`;
        await finish(undefined, { ...base, outcome: 'unknown', message, durationMs: performance.now() - started });
        return false;
      }
      const patch = { ...patchFromGateway(charge, found.normalized), gateway, errorCode: null, errorMessage: null };
      await finish(patch, { ...base, outcome: 'success', message: `settled at ${gateway}: ${found.normalized.status}`, durationMs: performance.now() - started }, 'success');
      return found.normalized.status !== 'processing';
    } catch (err) {
      if (err instanceof GatewayFailure && err.kind === 'decline') {
        const declined = toPublicError(err, gateway);
        const declineCode = declined.extra.declineCode!;
        const patch: ChargePatch = {
          ...(err.info.normalized ? patchFromGateway(charge, err.info.normalized) : {}), gateway, status: 'declined', declineCode,
          errorCode: declined.code, errorMessage: declined.message.slice(0, 500),
        };
        await finish(patch, { ...base, outcome: 'success', message: `settled at ${gateway}: declined`, durationMs: performance.now() - started }, 'decline');
        return true;
      }
      await finish(undefined, failureAttempt(base, err, started, 'unknown'));
      return false;
    }
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
