import type { ChargePatch, ChargeRecord } from '../store/charges';
import { disputePatch } from '../charges/disputes';
import { isDisputeEvent, type WebhookResult } from './event';

// Gateways deliver out of order (some say so outright) and retry for days, so an event may arrive after a newer
// one: a charge only ever moves forward. Statuses have an order (a payment can fail and then succeed on a retry, an
// approved payment can be cancelled or refunded, never the reverse), and amounts paid and refunded only grow.
const RANK: Record<string, number> = { pending: 0, processing: 0, declined: 1, failed: 1, approved: 2, cancelled: 3, refunded: 3 };

/** Statuses a dispute set: only a dispute event (or the gateway's answer) moves a charge out of them. */
const DISPUTE_HELD = new Set(['disputed', 'charged_back']);

/**
 * The columns a verified payment or dispute event changes on the stored charge, read under the charge's lock; empty
 * when the event is older than what the charge already shows. Never the gateway's id: that comes only from the
 * gateway's answer to RouteGate's own call (a notification naming one could attach another tenant's payment).
 */
export function patchFromEvent(current: ChargeRecord, e: WebhookResult, now = new Date().toISOString()): ChargePatch {
  if (isDisputeEvent(e.type)) return e.dispute ? disputePatch(current, e.dispute, now) : {};
  if (!e.status || !e.type?.startsWith('payment.')) return {};
  const patch: ChargePatch = {};
  // A payment event about a charge under (or after) a chargeback keeps the dispute's status, and still brings what
  // it says of the money: a partial refund during a dispute keeps both facts.
  const held = DISPUTE_HELD.has(current.status);
  const rankNow = RANK[current.status] ?? 0;
  const next = RANK[e.status] ?? 0;
  if (!held && next < rankNow) return {};
  if (!held && e.status !== current.status) patch.status = e.status;
  if (Number.isInteger(e.paidAmount) && e.paidAmount! > current.paidAmount) patch.paidAmount = e.paidAmount;
  if (Number.isInteger(e.refundedAmount) && e.refundedAmount! > current.refundedAmount) patch.refundedAmount = e.refundedAmount;
  if (e.captured === true && current.captured !== true) patch.captured = true;
  if (!held && e.status === 'declined' && e.declineCode && current.declineCode !== e.declineCode) patch.declineCode = e.declineCode;
  return patch;
}
