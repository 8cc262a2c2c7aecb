import { newDeliveryId, newEventId } from '../webhooks/ids';
import { REFUSED_FOR_NOW_KIND, type AttemptRecord, type ChargePatch, type ChargeRecord } from '../store/charges';
import type { Repositories } from '../store';
import { nowIso } from '../store/db';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import { GatewayFailure, type ChargeOutcome, type ChargeStatus, type ChargeRef, type NormalizedChargeResult, type PaymentMethod, type RefundResult } from '../gateways/types';
import { buildEvent } from '../webhooks/event';
import { RETRY_FOR_MS } from '../webhooks/backoff';
import { failureAttempt, patchFromGateway } from './charge-writes';
import { isAmbiguous } from './settle';
import { callContext, type GatewayDeps } from './gateway-deps';

// Refunds whose outcome means "not yet" (docs/charges.md, "Refund lifecycle"). Two kinds, both a refund row with
// outcome `pending`:
// - in process: the gateway took the refund and holds it (its answer says so, with the refund's id in externalId);
//   settled by reading that refund again (adapter.readRefund, else findRefund) or by the gateway's notification.
// - refused for now (failureKind REFUSED_FOR_NOW): the gateway refused it in a way that means "later" and did
//   nothing (adapter.refundNotYet); RouteGate sends the same refund again under a new gateway key, once per sweep.
// Neither counts in the charge's refundedAmount until the gateway says it is done: then the gateway's own amounts
// are stored (never ours added), so a refund is counted once whichever of the read, the notification or the
// client's retry sees it first.

/** failureKind of a pending row the gateway refused for now (nothing was done there). */
export const REFUSED_FOR_NOW = REFUSED_FOR_NOW_KIND;

export const isPendingRefund = (a: AttemptRecord): boolean => a.operation === 'refund' && a.outcome === 'pending';

/**
 * The gateway key a refund refused for now is sent again under: `<chargeId>-<op>-<seq>.<n>`. A new key each time,
 * because a gateway that kept the refusal under the old key would answer it again; the operation's own key (and so
 * its kind, read from the key) stays the prefix.
 */
export function resendKey(key: string): string {
  const m = /^(.*-\d+)(?:\.(\d+))?$/.exec(key);
  return m ? `${m[1]}.${Number(m[2] ?? 0) + 1}` : `${key}.1`;
}

/** The charge's columns after an answer that leaves a refund pending: everything but the refund's own effect. */
export function pendingPatch(charge: ChargeRecord, n: NormalizedChargeResult): ChargePatch {
  const patch = patchFromGateway(charge, n);
  delete patch.refundedAmount;
  delete patch.status;
  return patch;
}

/** The answer for a pending refund row: what the client sees on a 202 (and on every retry while it stays pending). */
export function pendingRefundOfRow(a: AttemptRecord): RefundResult {
  return {
    ...(a.externalId ? { refundId: a.externalId } : {}), ...(a.requestedAmount != null ? { amount: a.requestedAmount } : {}), status: 'pending',
    gatewayStatus: a.failureKind === REFUSED_FOR_NOW ? 'refused_for_now' : 'in_process',
  };
}

/** How a refund refused for now is recorded (pending, nothing done at the gateway). */
export function refusedForNow(base: Pick<AttemptRecord, 'seq' | 'operation' | 'gateway'>, err: GatewayFailure, durationMs: number): AttemptRecord {
  return {
    ...base, outcome: 'pending', failureKind: REFUSED_FOR_NOW, gatewayStatus: err.info.status ?? null, durationMs,
    message: `refused for now by ${base.gateway} (${err.message}); RouteGate sends it again`.slice(0, 500),
  };
}

const refOf = (charge: ChargeRecord): ChargeRef => ({
  externalId: charge.externalId!, paymentMethod: charge.paymentMethod as PaymentMethod, amount: charge.amount, refs: charge.refs ?? undefined,
  split: charge.split ?? undefined,
});

/**
 * Settle one pending refund, under the charge's lock held by the caller. true: it ended (succeeded or failed);
 * false: still pending (or unknown, after a send again that got no answer: the unknown-operation rules take over).
 */
export async function settlePendingRefund(deps: GatewayDeps, charge: ChargeRecord, a: AttemptRecord, deadline: number): Promise<boolean> {
  const gateway = a.gateway as GatewayId;
  const adapter = ADAPTERS[gateway];
  const key = a.idempotencyKey ?? `${charge.id}-refund-${a.seq}`;
  if (!charge.externalId) return false;
  const base = { seq: a.seq, operation: a.operation, gateway };
  const { store } = deps;
  const keep = async (message: string, row: Partial<AttemptRecord> = {}) => {
    await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, { ...a, outcome: 'pending', ...row, message: message.slice(0, 500) }));
    return false;
  };
  const ref = refOf(charge);

  if (a.failureKind !== REFUSED_FOR_NOW) {
    const ctx = await callContext(deps, charge.accountId, gateway, charge.id, key, deadline);
    if (!ctx) return false;
    let found: ChargeOutcome | null;
    try {
      found = a.externalId && adapter.readRefund ? await adapter.readRefund(ctx, ref, a.externalId)
        : adapter.findRefund ? await adapter.findRefund(ctx, ref, key) : null;
    } catch (err) {
      return keep(`in process at ${gateway}; reading it failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const status = found?.refund?.status;
    if (!found || status === 'pending' || status === undefined) return keep(`in process at ${gateway}${found?.refund?.gatewayStatus ? ` (${found.refund.gatewayStatus})` : ''}`);
    return await finish(deps, charge, a, found, status === 'succeeded' ? 'succeeded' : 'failed', `settled by reading refund ${a.externalId ?? key} at ${gateway}`);
  }

  // Refused for now: send the same refund again, under a new key written before the call.
  const next = resendKey(key);
  if (!await store.charges.resendAttempt(charge.id, a.seq, next, `refused for now; sent again under ${next}`)) return false;
  const ctx = await callContext(deps, charge.accountId, gateway, charge.id, next, deadline);
  if (!ctx) return keep(`refused for now; no ${gateway} credentials to send it again with`, { failureKind: REFUSED_FOR_NOW });
  const started = performance.now();
  let outcome: ChargeOutcome;
  try {
    outcome = await adapter.refundCharge(ctx, ref, a.requestedAmount ?? undefined);
  } catch (err) {
    const f = err instanceof GatewayFailure ? err : undefined;
    if (f && adapter.refundNotYet?.(f)) return keep(`refused for now by ${gateway} again (${f.message}); RouteGate sends it again`, { failureKind: REFUSED_FOR_NOW });
    if (f?.info.accepted) {
      const accepted = f.info.accepted;
      await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, {
        ...base, outcome: 'success', durationMs: a.durationMs, externalId: accepted.refund?.refundId, amount: accepted.refund?.amount,
        message: `sent again under ${next}: accepted; the charge was not read back`,
      }));
      return true;
    }
    // No answer: unknown under the new key, settled by the unknown-operation rules (replay or find by that key).
    if (isAmbiguous(err)) {
      const unknown = failureAttempt(base, err, started, 'unknown');
      await store.commit(async (tx) => await tx.charges.finishAttempt(charge.id, unknown));
      return false;
    }
    return await failRefund(deps, charge, { ...failureAttempt(base, err, started), message: `sent again under ${next} and refused: ${f?.message ?? String(err)}`.slice(0, 500) });
  }
  if (outcome.refund?.status === 'pending') {
    await store.commit(async (tx) => {
      await tx.charges.finishAttempt(charge.id, {
        ...base, outcome: 'pending', failureKind: null, durationMs: a.durationMs, externalId: outcome.refund?.refundId,
        message: `sent again under ${next}: in process at ${gateway}`,
      });
      const patch = pendingPatch(charge, outcome.normalized);
      if (Object.keys(patch).length) await tx.charges.update(charge.id, patch);
    });
    return false;
  }
  return await finish(deps, charge, a, outcome, outcome.refund?.status === 'failed' ? 'failed' : 'succeeded', `sent again under ${next}`);
}

/** A pending refund ended: stored with the gateway's own amounts for the charge; a failure is announced. */
async function finish(deps: GatewayDeps, charge: ChargeRecord, a: AttemptRecord, found: ChargeOutcome, how: 'succeeded' | 'failed', message: string): Promise<boolean> {
  const base = { seq: a.seq, operation: a.operation, gateway: a.gateway };
  const patch = patchFromGateway(charge, found.normalized);
  if (how === 'failed') {
    return await failRefund(deps, charge, {
      ...base, outcome: 'failed', errorCode: 'GATEWAY_ERROR', failureKind: 'refund_failed', durationMs: a.durationMs, externalId: a.externalId ?? found.refund?.refundId,
      message: `${message}: ${a.gateway} did not make the refund (${found.refund?.gatewayStatus ?? 'failed'})`.slice(0, 500),
    }, patch);
  }
  await deps.store.commit(async (tx) => {
    await tx.charges.finishAttempt(charge.id, {
      ...base, outcome: 'success', durationMs: a.durationMs, externalId: found.refund?.refundId ?? a.externalId, amount: found.refund?.amount ?? a.requestedAmount ?? undefined,
      message: `${message}: done`.slice(0, 500),
    });
    await tx.charges.update(charge.id, patch);
  });
  return true;
}

/** Store a pending refund failed and announce it (`refund.failed`) in the same transaction. */
async function failRefund(deps: GatewayDeps, charge: ChargeRecord, row: AttemptRecord, patch?: ChargePatch): Promise<boolean> {
  const { store } = deps;
  const forwardUrl = (await store.accounts.settings(charge.accountId)).webhookForwardUrl;
  await store.commit(async (tx) => {
    await tx.charges.finishAttempt(charge.id, row);
    if (patch && Object.keys(patch).length) await tx.charges.update(charge.id, patch);
    await announce(tx, charge, row, forwardUrl);
  });
  return true;
}

async function announce(tx: Repositories, charge: ChargeRecord, row: AttemptRecord, forwardUrl: string | null): Promise<void> {
  const now = nowIso();
  const gateway = row.gateway;
  const event = buildEvent(newEventId(), gateway, now, charge.id, {
    type: 'refund.failed', gatewayType: 'routegate.refund_failed', externalId: charge.externalId ?? undefined, status: charge.status as ChargeStatus,
    amount: charge.amount, paidAmount: charge.paidAmount, refundedAmount: charge.refundedAmount, currency: charge.currency,
    paymentMethod: charge.paymentMethod as PaymentMethod,
  }, `refund_failed:${charge.id}:${row.seq}`, { chargeId: charge.id, seq: row.seq, refundId: row.externalId ?? null, reason: row.message ?? null }, 'gateway_read');
  const inserted = await tx.webhookEvents.insert({
    id: event.id, accountId: charge.accountId, gateway, gatewayEventId: event.gatewayEvent.id, type: event.type, chargeId: charge.id,
    payload: JSON.stringify(event), createdAt: event.createdAt, verified: true,
  });
  const at = Date.now();
  if (inserted && forwardUrl) {
    await tx.deliveries.insert({ id: newDeliveryId(), eventId: event.id, accountId: charge.accountId, nextAttemptAt: at, giveUpAt: at + RETRY_FOR_MS });
  }
}
