import { newDeliveryId, newEventId } from '../webhooks/ids';
import type { ChargeRecord, OrphanAction, OrphanRecord } from '../store/charges';
import { nowIso } from '../store/db';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import type { ChargeOutcome, ChargeRef, PaymentMethod } from '../gateways/types';
import { buildEvent } from '../webhooks/event';
import { RETRY_FOR_MS } from '../webhooks/backoff';
import { failureAttempt } from './charge-writes';
import { isAmbiguous } from './settle';
import { callContext, type GatewayDeps } from './gateway-deps';

/** A found payment's state in which nothing is left to undo. */
const NOTHING_TO_UNDO: Readonly<Record<string, OrphanAction>> = { refunded: 'refunded', cancelled: 'cancelled', failed: 'cancelled', declined: 'cancelled' };

/**
 * Orphans: a payment at a gateway, with a charge's reference, that is not the charge's own (the charge names another
 * gateway, or none was proven). Each is recorded on the charge (charge_orphans and an `orphan` attempt), announced to
 * the merchant as `payment.orphaned` through the webhook outbox, and voided or refunded when the account's
 * orphanPolicy is `refund` (the default: the buyer must not pay twice). docs/charges.md, "Orphans".
 */
export class OrphanHandler {
  constructor(private readonly deps: GatewayDeps) {}

  /**
   * Record (once), announce (once) and, by policy, undo the payment `found` at `gateway`. The caller holds the
   * charge's lock. Resolves true once nothing is left to do for it (false: the undo failed; the next re-check retries).
   */
  async handle(charge: ChargeRecord, gateway: GatewayId, found: ChargeOutcome, deadline: number): Promise<boolean> {
    const { store } = this.deps;
    const n = found.normalized;
    const externalId = n.externalId;
    if (!externalId) return true;
    const existing = await store.charges.findOrphan(gateway, externalId);
    if (existing && existing.action !== 'found') return true;
    const settings = await store.accounts.settings(charge.accountId);
    const orphan = existing ?? await this.record(charge, gateway, found, settings.webhookForwardUrl);
    if (settings.orphanPolicy === 'notify') {
      await store.charges.setOrphanAction(gateway, externalId, 'notified', 'left to the merchant (orphanPolicy notify)');
      return true;
    }
    return await this.undo(charge, orphan, found, deadline);
  }

  private async record(charge: ChargeRecord, gateway: GatewayId, found: ChargeOutcome, forwardUrl: string | null): Promise<OrphanRecord> {
    const { store } = this.deps;
    const n = found.normalized;
    const now = nowIso();
    const orphan: OrphanRecord = {
      gateway, externalId: n.externalId!, chargeId: charge.id, accountId: charge.accountId, paymentMethod: n.paymentMethod ?? charge.paymentMethod,
      status: n.status, amount: Number.isInteger(n.amount) ? n.amount! : charge.amount, action: 'found', message: null, foundAt: now, updatedAt: now,
    };
    const message = `a payment at ${gateway} (${orphan.externalId}, ${orphan.status}, ${orphan.amount} cents) carries this charge's reference, but the charge is ${charge.status} at ${charge.gateway ?? 'no gateway'}`;
    // The merchant's own event: a verified finding of RouteGate's own call, not a gateway's webhook.
    const event = buildEvent(newEventId(), gateway, now, charge.id, {
      type: 'payment.orphaned', gatewayType: 'routegate.orphan_found', externalId: orphan.externalId, status: n.status, amount: orphan.amount,
      paidAmount: n.paidAmount, currency: n.currency ?? charge.currency, paymentMethod: orphan.paymentMethod as PaymentMethod,
    }, `orphan:${orphan.externalId}`, { chargeId: charge.id, recordedGateway: charge.gateway, gateway, externalId: orphan.externalId }, 'gateway_read');
    const at = Date.now();
    await store.commit(async (tx) => {
      if (!await tx.charges.addOrphan(orphan)) return;
      const seq = await tx.charges.nextSeq(charge.id);
      await tx.charges.addAttempt(charge.id, { seq, operation: 'orphan', gateway, outcome: 'success', externalId: orphan.externalId, amount: orphan.amount, message: message.slice(0, 500), durationMs: 0 });
      const inserted = await tx.webhookEvents.insert({
        id: event.id, accountId: charge.accountId, gateway, gatewayEventId: event.gatewayEvent.id, type: event.type, chargeId: charge.id,
        payload: JSON.stringify(event), createdAt: event.createdAt, verified: true,
      });
      if (inserted && forwardUrl) {
        await tx.deliveries.insert({ id: newDeliveryId(), eventId: event.id, accountId: charge.accountId, nextAttemptAt: at, giveUpAt: at + RETRY_FOR_MS });
      }
    });
    return orphan;
  }

  /** Void (not captured, or pending) or refund the orphan under a key of its own, the same on every retry. */
  private async undo(charge: ChargeRecord, orphan: OrphanRecord, found: ChargeOutcome, deadline: number): Promise<boolean> {
    const { store } = this.deps;
    const n = found.normalized;
    const gateway = orphan.gateway as GatewayId;
    const settledAs = NOTHING_TO_UNDO[n.status];
    if (settledAs) {
      await store.charges.setOrphanAction(gateway, orphan.externalId, settledAs, `${gateway} shows it ${n.status}`);
      return true;
    }
    const op = n.captured === false || n.status === 'pending' ? 'cancel' : 'refund';
    const key = `${charge.id}-orphan-${gateway}-${op}`;
    const ctx = await callContext(this.deps, charge.accountId, gateway, charge.id, key, deadline);
    if (!ctx) return false;
    const adapter = ADAPTERS[gateway];
    const ref: ChargeRef = { externalId: orphan.externalId, paymentMethod: orphan.paymentMethod as PaymentMethod, amount: orphan.amount, refs: n.refs };
    const seq = await store.charges.nextSeq(charge.id);
    const base = { seq, operation: `orphan_${op}`, gateway };
    await store.commit((tx) => tx.charges.addAttempt(charge.id, { ...base, outcome: 'in_flight', idempotencyKey: key, durationMs: 0 }));
    const started = performance.now();
    try {
      await (op === 'cancel' ? adapter.cancelCharge(ctx, ref) : adapter.refundCharge(ctx, ref));
      const action: OrphanAction = op === 'cancel' ? 'cancelled' : 'refunded';
      await store.commit(async (tx) => {
        await tx.charges.finishAttempt(charge.id, { ...base, outcome: 'success', externalId: orphan.externalId, amount: op === 'refund' ? orphan.amount : undefined, durationMs: performance.now() - started });
        await tx.charges.setOrphanAction(gateway, orphan.externalId, action, `${action} by RouteGate (orphanPolicy refund)`);
      });
      return true;
    } catch (err) {
      // Unknown or refused: the orphan stays `found` and the next re-check reads it again before any new call.
      await store.commit((tx) => tx.charges.finishAttempt(charge.id, failureAttempt(base, err, started, isAmbiguous(err) ? 'unknown' : undefined)));
      return false;
    }
  }
}
