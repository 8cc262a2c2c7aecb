import type { ChargeStatus, DeclineCode, PaymentMethod } from '../gateways/types';
import type { DisputeFact, DisputeStatus } from '../charges/disputes';

export type RouteGateEventType =
  | 'payment.approved' | 'payment.failed' | 'payment.refunded'
  /** RouteGate's own: a payment at a gateway with a charge's reference that is not the charge's (docs/charges.md, "Orphans"). */
  | 'payment.orphaned'
  /** RouteGate's own: a refund answered pending that its gateway later refused (docs/charges.md, "Refund lifecycle"). */
  | 'refund.failed'
  | 'subscription.created' | 'subscription.cancelled' | 'subscription.renewal_failed'
  /** A chargeback opened, won or lost (docs/charges.md, "Disputes"): never a refund. */
  | 'dispute.opened' | 'dispute.won' | 'dispute.lost';

/** The dispute event type for each dispute status. */
export const DISPUTE_EVENTS: Record<DisputeStatus, RouteGateEventType> = { open: 'dispute.opened', won: 'dispute.won', lost: 'dispute.lost' };

export const isDisputeEvent = (type: string | null | undefined): boolean => typeof type === 'string' && type.startsWith('dispute.');

/** Events about the payment itself (its money or its chargeback): the ones that may move a charge. */
export const movesCharge = (type: string | null | undefined): boolean => typeof type === 'string' && (type.startsWith('payment.') || type.startsWith('dispute.'));

/** What a webhook mapping produces (schemas/mappings/webhook-result.json). */
export interface WebhookResult {
  type: RouteGateEventType | null;
  gatewayType: string;
  occurredAt?: string;
  externalId?: string;
  reference?: string;
  status?: ChargeStatus;
  amount?: number;
  paidAmount?: number;
  refundedAmount?: number;
  currency?: string;
  paymentMethod?: PaymentMethod;
  captured?: boolean;
  declineCode?: DeclineCode;
  subscriptionId?: string;
  subscriptionStatus?: string;
  customerId?: string;
  /** dispute.* events: the chargeback as the gateway tells it (amount in cents). */
  dispute?: DisputeFact;
}

/**
 * How an event's content was established: the gateway's signature on the notification, or the gateway's own
 * answer when RouteGate read the payment with the stored credentials; null: nothing verified it.
 */
export type VerifiedBy = 'signature' | 'gateway_read' | null;

/** The event RouteGate forwards and serves at GET /api/v1/events/:id. Amounts in cents. */
export interface RouteGateEvent {
  id: string;
  type: RouteGateEventType;
  gateway: string;
  createdAt: string;
  occurredAt?: string;
  /** Whether its content can be trusted (docs/webhooks.md, "Which events move money"); false only in a redelivery the merchant asked for. */
  verified: boolean;
  verifiedBy: VerifiedBy;
  data: {
    chargeId: string | null;
    externalId?: string;
    status?: ChargeStatus;
    amount?: number;
    paidAmount?: number;
    refundedAmount?: number;
    currency?: string;
    paymentMethod?: PaymentMethod;
    declineCode?: DeclineCode;
    subscriptionId?: string;
    subscriptionStatus?: string;
    customerId?: string;
    /** dispute.* events: the charge's dispute as it stands after the event (amount in cents). */
    dispute?: { status: DisputeStatus; amount: number; reason: string | null; openedAt: string };
  };
  /** The gateway's event: its name, its id (or the body's hash) and the body as received. */
  gatewayEvent: { type: string; id: string; payload: unknown };
}

export function buildEvent(
  id: string, gateway: string, createdAt: string, chargeId: string | null, r: WebhookResult & { type: RouteGateEventType }, gatewayEventId: string, payload: unknown,
  verifiedBy: VerifiedBy,
): RouteGateEvent {
  const data: RouteGateEvent['data'] = { chargeId };
  const fields = ['externalId', 'status', 'amount', 'paidAmount', 'refundedAmount', 'currency', 'paymentMethod', 'declineCode', 'subscriptionId', 'subscriptionStatus', 'customerId'] as const;
  for (const f of fields) if (r[f] !== undefined && r[f] !== null) (data as Record<string, unknown>)[f] = r[f];
  if (r.dispute && isDisputeEvent(r.type)) {
    const amount = Number.isInteger(r.dispute.amount) ? r.dispute.amount! : r.paidAmount || r.amount;
    data.dispute = { status: r.dispute.status, amount: amount ?? 0, reason: r.dispute.reason ?? null, openedAt: r.dispute.openedAt ?? r.occurredAt ?? createdAt };
  }
  return {
    id, type: r.type, gateway, createdAt, ...(r.occurredAt ? { occurredAt: r.occurredAt } : {}), verified: verifiedBy !== null, verifiedBy, data,
    gatewayEvent: { type: r.gatewayType, id: gatewayEventId, payload },
  };
}
