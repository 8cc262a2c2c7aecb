import type { ChargeStatus, DeclineCode, PaymentMethod } from '../gateways/types';

export type RouteGateEventType =
  | 'payment.approved' | 'payment.failed' | 'payment.refunded'
  /** RouteGate's own: a payment at a gateway with a charge's reference that is not the charge's (docs/charges.md, "Orphans"). */
  | 'payment.orphaned'
  /** RouteGate's own: a refund answered pending that its gateway later refused (docs/charges.md, "Refund lifecycle"). */
  | 'refund.failed'
  | 'subscription.created' | 'subscription.cancelled' | 'subscription.renewal_failed';

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
  return {
    id, type: r.type, gateway, createdAt, ...(r.occurredAt ? { occurredAt: r.occurredAt } : {}), verified: verifiedBy !== null, verifiedBy, data,
    gatewayEvent: { type: r.gatewayType, id: gatewayEventId, payload },
  };
}
