import type { ChargeRecord } from '../store/charges';
import type { RouteGateEventType, WebhookResult } from './event';

/**
 * Why a verified payment event must not be applied to the charge it names, or undefined when it may. Money never
 * moves past the charge: paid and refunded amounts at most the charge's amount, in the charge's currency, about the
 * payment the gateway gave RouteGate for it (its gateway id or one of its refs). A signed event can still disagree
 * (a gateway's bug, a payment made outside RouteGate under the same reference, a mapping gone wrong): stored with
 * this reason for the operator, not guessed at.
 */
export function mismatchOf(charge: ChargeRecord, e: WebhookResult): string | undefined {
  if (!e.type?.startsWith('payment.')) return undefined;
  const reasons: string[] = [];
  if (e.currency && charge.currency && e.currency.toUpperCase() !== charge.currency.toUpperCase()) {
    reasons.push(`currency ${e.currency} is not the charge's ${charge.currency}`);
  }
  if (typeof e.paidAmount === 'number' && e.paidAmount > charge.amount) reasons.push(`paidAmount ${e.paidAmount} exceeds the charge's amount ${charge.amount}`);
  if (typeof e.refundedAmount === 'number' && e.refundedAmount > charge.amount) {
    reasons.push(`refundedAmount ${e.refundedAmount} exceeds the charge's amount ${charge.amount}`);
  }
  const known = [charge.externalId, ...Object.values(charge.refs ?? {})];
  if (e.externalId && charge.externalId && !known.includes(e.externalId)) {
    reasons.push(`the event is about ${e.externalId}, the charge is ${charge.externalId} at the gateway`);
  }
  return reasons.length ? reasons.join('; ') : undefined;
}

/** The event a charge's state at the gateway amounts to; null while nothing has happened to it yet. */
function eventTypeOf(c: ChargeRecord): RouteGateEventType | null {
  if (c.status === 'refunded' || (c.status === 'approved' && c.refundedAmount > 0)) return 'payment.refunded';
  if (c.status === 'approved') return 'payment.approved';
  if (c.status === 'declined' || c.status === 'failed' || c.status === 'cancelled') return 'payment.failed';
  return null;
}

/**
 * An unverified notification's replacement: what the gateway answered when RouteGate re-read the charge with the
 * stored credentials (already stored on the charge by the read). `gatewayType` names the notification that made
 * RouteGate look.
 */
export function resultFromCharge(c: ChargeRecord, gatewayType: string): WebhookResult {
  return {
    type: eventTypeOf(c), gatewayType, externalId: c.externalId ?? undefined, reference: c.id, status: c.status as WebhookResult['status'],
    amount: c.amount, paidAmount: c.paidAmount, refundedAmount: c.refundedAmount, currency: c.currency,
    paymentMethod: c.paymentMethod as WebhookResult['paymentMethod'], captured: c.captured ?? undefined, declineCode: (c.declineCode ?? undefined) as WebhookResult['declineCode'],
  };
}
