import type { ChargeRecord } from '../store/charges';
import { DISPUTE_EVENTS, isDisputeEvent, movesCharge, type RouteGateEventType, type WebhookResult } from './event';

/**
 * Why a verified payment event must not be applied to the charge it names, or undefined when it may. Money never
 * moves past the charge: paid and refunded amounts at most the charge's amount, in the charge's currency, about the
 * payment the gateway gave RouteGate for it (its gateway id or one of its refs). A signed event can still disagree
 * (a gateway's bug, a payment made outside RouteGate under the same reference, a mapping gone wrong): stored with
 * this reason for the operator, not guessed at.
 */
export function mismatchOf(charge: ChargeRecord, e: WebhookResult): string | undefined {
  if (!movesCharge(e.type)) return undefined;
  const reasons: string[] = [];
  if (e.dispute && Number.isInteger(e.dispute.amount) && e.dispute.amount! > charge.amount) {
    reasons.push(`the disputed amount ${e.dispute.amount} exceeds the charge's amount ${charge.amount}`);
  }
  if (e.dispute?.settlesOpen && charge.dispute?.status !== 'open') {
    reasons.push(`it tells a dispute ${e.dispute.status} only of an open one, and the charge has no open dispute`);
  }
  // A dispute that names no amount of its own is on the whole payment: the payment's amount it tells is the charge's.
  if (isDisputeEvent(e.type) && e.dispute && e.dispute.amount === undefined && typeof e.amount === 'number' && e.amount !== charge.amount) {
    reasons.push(`the disputed payment's amount ${e.amount} is not the charge's amount ${charge.amount}`);
  }
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

/**
 * The event a charge's state at the gateway amounts to; null while nothing has happened to it yet. `dispute`: the
 * notification was about a chargeback, so its answer is the charge's dispute (null when the gateway shows none).
 */
function eventTypeOf(c: ChargeRecord, dispute: boolean): RouteGateEventType | null {
  if (dispute) return c.dispute ? DISPUTE_EVENTS[c.dispute.status] : null;
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
export function resultFromCharge(c: ChargeRecord, gatewayType: string, dispute = false): WebhookResult {
  return {
    type: eventTypeOf(c, dispute), gatewayType, externalId: c.externalId ?? undefined, reference: c.id, status: c.status as WebhookResult['status'],
    amount: c.amount, paidAmount: c.paidAmount, refundedAmount: c.refundedAmount, currency: c.currency,
    paymentMethod: c.paymentMethod as WebhookResult['paymentMethod'], captured: c.captured ?? undefined, declineCode: (c.declineCode ?? undefined) as WebhookResult['declineCode'],
    ...(c.dispute ? { dispute: { status: c.dispute.status, amount: c.dispute.amount, reason: c.dispute.reason, openedAt: c.dispute.openedAt } } : {}),
  };
}
