import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { AccountRow, SettingsRow } from '../store/accounts';
import type { AttemptRecord, ChargeRecord } from '../store/charges';
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
import { RouteGateError, validationError } from '../errors';
import { FALLBACK_ON, FALLBACK_ON_SKIP, toPublicError, type SkipReason } from './outcomes';
import { planAttempts, type PlannedAttempt } from './router';
import { rgHeaders } from './response-format';
import { wireContext } from './wire-context';
import { applyDetails } from './details';

export interface GatewayDeps {
  store: Store;
  vault: CredentialVault;
  mappings: MappingRegistry;
  http: GatewayHttp;
  gatewayUrls: Record<GatewayId, string>;
  timeoutMs: number;
  /** Wire settings and the public URL the account's webhook URLs start with (src/config.ts). */
  wire?: import('../gateways/types').WireSettings;
  publicUrl?: string;
}

export interface ChargeResult {
  charge: ChargeRecord;
  raw?: unknown;
  /** Set when the charge did not go through: the public error to answer with. */
  error?: RouteGateError;
  /** Set by refunds: the refund as the gateway recorded it. */
  refund?: RefundResult;
}

export function newChargeId(): string {
  return `chg_${randomUUID().replace(/-/g, '')}`;
}

/** Builds the per-call context an adapter needs; credentials are decrypted here and nowhere else. */
export function callContext(deps: GatewayDeps, accountId: string, gateway: GatewayId, chargeId: string, idempotencyKey: string): CallContext | undefined {
  const credentials = deps.vault.reveal(accountId, gateway);
  if (!credentials) return undefined;
  return {
    gateway, baseUrl: deps.gatewayUrls[gateway], credentials, http: deps.http, mappings: deps.mappings.get(gateway)!,
    idempotencyKey, chargeId, timeoutMs: deps.timeoutMs,
    ...wireContext(deps, accountId, gateway),
  };
}

function applyNormalized(c: ChargeRecord, n: NormalizedChargeResult): void {
  c.externalId = n.externalId ?? c.externalId;
  c.status = n.status;
  c.amount = Number.isInteger(n.amount) ? n.amount : c.amount;
  c.paidAmount = n.paidAmount ?? c.paidAmount;
  c.refundedAmount = n.refundedAmount ?? c.refundedAmount;
  c.currency = n.currency ?? c.currency;
  if (typeof n.captured === 'boolean') c.captured = n.captured;
  c.pixQrCode = n.pixQrCode ?? c.pixQrCode;
  c.pixCopyPaste = n.pixCopyPaste ?? c.pixCopyPaste;
  c.boletoUrl = n.boletoUrl ?? c.boletoUrl;
  c.boletoBarcode = n.boletoBarcode ?? c.boletoBarcode;
  if (n.refs) c.refs = { ...(c.refs ?? {}), ...n.refs };
  c.declineCode = n.declineCode ?? null;
  applyDetails(c, n);
}

function failureAttempt(seq: number, operation: string, gateway: string, err: unknown, started: number): AttemptRecord {
  const publicError = toPublicError(err, gateway);
  const f = err instanceof GatewayFailure ? err : undefined;
  return {
    seq, operation, gateway, outcome: f?.kind === 'decline' ? 'decline' : 'failed', errorCode: publicError.code, failureKind: f?.kind ?? 'internal',
    gatewayStatus: f?.info.status ?? null, message: publicError.message.slice(0, 500), ambiguous: f?.info.ambiguous ?? false,
    durationMs: performance.now() - started,
  };
}

/**
 * What the gateway can never do answers 422 before the charge's state is looked at: "Stripe cannot capture a
 * pix" is the useful answer, not "this pix is not an uncaptured pre-authorization".
 */
function assertSupported(c: ChargeRecord, op: ChargeOperation): void {
  const gateway = c.gateway as GatewayId;
  const pm = c.paymentMethod as PaymentMethod;
  if (ADAPTERS[gateway]?.capabilities[pm]?.[op] === 'unsupported') {
    throw new RouteGateError('GATEWAY_UNSUPPORTED_OPERATION', `${gateway} does not support ${op.replace('_', ' ')} for ${pm} charges`, { gateway });
  }
}

const SKIP_STATUS: Record<SkipReason, 'MISSING_CREDENTIALS' | 'GATEWAY_UNSUPPORTED_OPERATION' | 'VALIDATION_ERROR'> = {
  MISSING_CREDENTIALS: 'MISSING_CREDENTIALS',
  GATEWAY_UNSUPPORTED_OPERATION: 'GATEWAY_UNSUPPORTED_OPERATION',
  CARD_TOKEN_NOT_PORTABLE: 'GATEWAY_UNSUPPORTED_OPERATION',
  SPLIT_RECIPIENT_UNAVAILABLE: 'GATEWAY_UNSUPPORTED_OPERATION',
  RAW_CARD_NOT_ACCEPTED: 'GATEWAY_UNSUPPORTED_OPERATION',
  AUTHENTICATION_REQUIRED: 'GATEWAY_UNSUPPORTED_OPERATION',
  MISSING_PAYER_DATA: 'VALIDATION_ERROR',
};

/** Creates charges across the primary and fallbacks, and runs follow-up operations on stored charges. */
export class ChargeService {
  constructor(private readonly deps: GatewayDeps) {}

  async create(account: AccountRow, settings: SettingsRow, request: NormalizedCharge): Promise<ChargeResult> {
    const { store } = this.deps;
    const plan = planAttempts(store, this.deps.vault, account.id, settings, request);
    const now = nowIso();
    const charge: ChargeRecord = {
      id: newChargeId(), accountId: account.id, gateway: plan.first, primaryGateway: plan.first, fallbackUsed: false, externalId: null,
      paymentMethod: request.paymentMethod, status: 'processing', amount: request.amount, paidAmount: 0, refundedAmount: 0,
      currency: request.currency, captured: null, description: request.description ?? null, customerId: request.customerId ?? null,
      refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null,
      errorMessage: null, createdAt: now, updatedAt: now,
    };
    charge.metadata = request.metadata ?? null;
    await store.commit(() => store.charges.insert(charge));
    try {
      return await this.attempt(charge, plan, account);
    } catch (err) {
      // Past the insert a gateway may have charged. The answer names the charge so the client reads it before
      // retrying, and carries X-RG-Charge-Id, which tells the Idempotency-Key layer to keep this answer
      // rather than free the key for a retry that could charge twice.
      throw new RouteGateError('INTERNAL_ERROR',
        `Charge ${charge.id} may have reached ${charge.gateway} but could not be completed; read GET /api/v1/charges/${charge.id} before retrying`,
        { headers: rgHeaders(charge), cause: err });
    }
  }

  /** Run the planned attempts in order and record the charge with every attempt. */
  private async attempt(charge: ChargeRecord, plan: ReturnType<typeof planAttempts>, account: AccountRow): Promise<ChargeResult> {
    const { store } = this.deps;
    const attempts: AttemptRecord[] = [];
    let lastFailure: { err: RouteGateError; gateway: GatewayId; decline?: NormalizedChargeResult } | undefined;
    let firstSkip: { err: RouteGateError; gateway: GatewayId } | undefined;
    let outcome: ChargeOutcome | undefined;
    let seq = 0;
    for (const step of plan.attempts) {
      seq += 1;
      if (step.skip) {
        attempts.push({ seq, operation: 'charge', gateway: step.gateway, outcome: 'skipped', errorCode: step.skip.reason, message: step.skip.message, durationMs: 0 });
        firstSkip ??= { err: new RouteGateError(SKIP_STATUS[step.skip.reason], step.skip.message, { gateway: step.gateway }), gateway: step.gateway };
        if (FALLBACK_ON_SKIP[step.skip.reason]) continue;
        break;
      }
      const started = performance.now();
      const ctx = callContext(this.deps, account.id, step.gateway, charge.id, `${charge.id}-${seq}`)!;
      try {
        outcome = await ADAPTERS[step.gateway].createCharge(ctx, step.charge);
        attempts.push({ seq, operation: 'charge', gateway: step.gateway, outcome: 'success', durationMs: performance.now() - started });
        charge.gateway = step.gateway;
        break;
      } catch (err) {
        attempts.push(failureAttempt(seq, 'charge', step.gateway, err, started));
        const f = err instanceof GatewayFailure ? err : undefined;
        lastFailure = { err: toPublicError(err, step.gateway), gateway: step.gateway, decline: f?.kind === 'decline' ? f.info.normalized : undefined };
        charge.gateway = step.gateway;
        if (f?.kind === 'decline') charge.declineCode = f.info.declineCode ?? 'card_declined';
        if (f && FALLBACK_ON[f.kind]) continue;
        break;
      }
    }

    let result: ChargeResult;
    if (outcome) {
      applyNormalized(charge, outcome.normalized);
      charge.fallbackUsed = charge.gateway !== plan.first;
      result = { charge, raw: outcome.raw };
    } else if (lastFailure) {
      if (lastFailure.decline) applyNormalized(charge, lastFailure.decline);
      charge.status = charge.declineCode ? 'declined' : 'failed';
      charge.errorCode = lastFailure.err.code;
      charge.errorMessage = lastFailure.err.message.slice(0, 500);
      charge.fallbackUsed = charge.gateway !== plan.first;
      result = { charge, error: lastFailure.err };
    } else {
      const skipped = attempts.filter((a) => a.outcome === 'skipped').map((a) => `${a.gateway} (${a.errorCode})`);
      const base = firstSkip!.err;
      const message = skipped.length > 1 ? `${base.message}; no fallback could take the charge: ${skipped.slice(1).join(', ')}` : base.message;
      const err = new RouteGateError(base.code, message, { gateway: firstSkip!.gateway });
      charge.status = 'failed';
      charge.gateway = plan.first;
      charge.errorCode = err.code;
      charge.errorMessage = message.slice(0, 500);
      result = { charge, error: err };
    }
    await store.commit(() => store.charges.save(charge, attempts));
    return result;
  }

  get(accountId: string, id: string): ChargeRecord {
    const charge = this.deps.store.charges.get(accountId, id);
    if (!charge) throw new RouteGateError('NOT_FOUND', `Charge ${id} not found`);
    return charge;
  }

  /** Re-read the charge at its gateway and store what changed (e.g. a boleto that got paid). */
  async refresh(accountId: string, id: string): Promise<ChargeResult> {
    return this.operate(accountId, id, 'retrieve');
  }

  async capture(accountId: string, id: string, amount?: number): Promise<ChargeResult> {
    const c = this.get(accountId, id);
    assertSupported(c, 'capture');
    if (!(c.status === 'approved' && c.captured === false)) {
      throw validationError(`Charge ${id} is not an uncaptured pre-authorization (status ${c.status}${c.captured ? ', already captured' : ''})`);
    }
    if (amount !== undefined && amount > c.amount) throw validationError(`Capture amount ${amount} is larger than the authorized ${c.amount}`, [{ field: 'amount', message: `must be <= ${c.amount}` }]);
    return this.operate(accountId, id, 'capture', amount);
  }

  async cancel(accountId: string, id: string): Promise<ChargeResult> {
    const c = this.get(accountId, id);
    assertSupported(c, 'cancel');
    const cancellable = (c.status === 'approved' && c.captured === false) || c.status === 'pending' || c.status === 'processing';
    if (!cancellable) {
      throw validationError(`Charge ${id} cannot be cancelled (status ${c.status}${c.status === 'approved' ? ', captured: refund it instead' : ''})`);
    }
    return this.operate(accountId, id, 'cancel');
  }

  async refund(accountId: string, id: string, amount?: number): Promise<ChargeResult> {
    const c = this.get(accountId, id);
    assertSupported(c, 'refund');
    const refundable = (c.paidAmount || c.amount) - c.refundedAmount;
    if (c.status !== 'approved' || c.captured === false) {
      throw validationError(`Charge ${id} cannot be refunded (status ${c.status}${c.captured === false ? ', not captured: cancel it instead' : ''})`);
    }
    if (refundable <= 0) throw validationError(`Charge ${id} has nothing left to refund`);
    if (amount !== undefined && amount > refundable) {
      throw validationError(`Refund amount ${amount} is larger than the refundable ${refundable}`, [{ field: 'amount', message: `must be <= ${refundable}` }]);
    }
    const partial = amount !== undefined && amount < refundable;
    if (partial) assertSupported(c, 'partial_refund');
    return this.operate(accountId, id, partial ? 'partial_refund' : 'refund', partial ? amount : undefined);
  }

  private async operate(accountId: string, id: string, op: ChargeOperation | 'retrieve', amount?: number): Promise<ChargeResult> {
    const { store } = this.deps;
    const charge = this.get(accountId, id);
    const gateway = charge.gateway as GatewayId;
    if (!charge.externalId) throw validationError(`Charge ${id} was never created at a gateway (status ${charge.status})`);
    const adapter = ADAPTERS[gateway];
    const pm = charge.paymentMethod as PaymentMethod;
    const seq = store.charges.nextSeq(charge.id);
    const ctx = callContext(this.deps, accountId, gateway, charge.id, `${charge.id}-${op}-${seq}`);
    if (!ctx) throw new RouteGateError('MISSING_CREDENTIALS', `No ${gateway} credentials stored for this account: POST /api/v1/credentials`, { gateway });
    const ref: ChargeRef = { externalId: charge.externalId, paymentMethod: pm, amount: charge.amount, refs: charge.refs ?? undefined };
    const started = performance.now();
    const operation = op === 'partial_refund' ? 'refund' : op;
    try {
      const outcome = op === 'capture' ? await adapter.captureCharge(ctx, ref, amount)
        : op === 'cancel' ? await adapter.cancelCharge(ctx, ref)
          : op === 'retrieve' ? await adapter.retrieveCharge(ctx, ref)
            : await adapter.refundCharge(ctx, ref, amount);
      applyNormalized(charge, outcome.normalized);
      const attempt: AttemptRecord = { seq, operation, gateway, outcome: 'success', durationMs: performance.now() - started, externalId: outcome.refund?.refundId };
      await store.commit(() => store.charges.save(charge, [attempt]));
      return { charge, raw: outcome.raw, refund: outcome.refund };
    } catch (err) {
      // Reading a declined charge is not a failed read: the gateway says it is (still) declined.
      if (op === 'retrieve' && err instanceof GatewayFailure && err.kind === 'decline' && err.info.normalized) {
        applyNormalized(charge, err.info.normalized);
        charge.status = 'declined';
        const attempt: AttemptRecord = { seq, operation, gateway, outcome: 'success', durationMs: performance.now() - started };
        await store.commit(() => store.charges.save(charge, [attempt]));
        return { charge, raw: err.info.body };
      }
      const attempt = failureAttempt(seq, operation, gateway, err, started);
      await store.commit(() => store.charges.save(charge, [attempt]));
      return { charge, error: toPublicError(err, gateway) };
    }
  }
}

export type { PlannedAttempt };
export { resolveGatewayId };
