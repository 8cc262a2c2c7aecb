import type { GatewayId } from '../../src/gateways/registry-ids';
import type { RecordedRequest } from '../../src/sandbox/control';

/** What each gateway's create call looks like on the wire, for end-to-end assertions on the emulators' logs. */
export interface GatewayExpectation {
  /** Path (below the gateway prefix) of the call that creates the payment. */
  createPath: RegExp;
  /** The charge amount as this gateway received it, converted back to cents. */
  sentCents(req: RecordedRequest): number;
  /** The gateway's own idempotency header, if it has one. */
  idempotencyHeader?: string;
  /** Every charge needs a customer created first (Asaas). */
  needsCustomer: boolean;
  /** The gateway has a customer resource. */
  customers: boolean;
  /** The status an invalid credential gets from this gateway. */
  authStatus: number;
}

const cents = (reais: unknown) => Math.round(Number(reais) * 100);

export const EXPECTATIONS: Record<GatewayId, GatewayExpectation> = {
  stripe: {
    createPath: /^\/v1\/payment_intents(\?|$)/, sentCents: (r) => Number((r.body as any).amount), idempotencyHeader: 'idempotency-key',
    needsCustomer: false, customers: true, authStatus: 401,
  },
  pagarme: {
    createPath: /^\/core\/v5\/orders(\?|$)/, sentCents: (r) => (r.body as any).items.reduce((s: number, i: any) => s + i.amount * (i.quantity ?? 1), 0),
    idempotencyHeader: 'idempotency-key', needsCustomer: false, customers: true, authStatus: 401,
  },
  asaas: {
    createPath: /^\/v3\/payments(\?|$)/, sentCents: (r) => cents((r.body as any).value), needsCustomer: true, customers: true, authStatus: 401,
  },
  mercadopago: {
    createPath: /^\/v1\/payments(\?|$)/, sentCents: (r) => cents((r.body as any).transaction_amount), idempotencyHeader: 'x-idempotency-key',
    needsCustomer: false, customers: true, authStatus: 401,
  },
  pagbank: {
    createPath: /^\/orders(\?|$)/, sentCents: (r) => Number((r.body as any).charges[0].amount.value), idempotencyHeader: 'x-idempotency-key', // integer cents
    needsCustomer: false, customers: false, authStatus: 401,
  },
};
