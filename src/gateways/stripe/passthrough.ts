import type { PassthroughRoute } from '../../compat/types';

/**
 * Stripe paths a passthrough account may call untranslated (docs/security.md): reads of charge-related objects and
 * customer updates. Never payouts, transfers, Connect accounts (v1 or v2), balance, keys or webhooks endpoints.
 */
export const PASSTHROUGH: readonly PassthroughRoute[] = [
  { method: 'GET', path: '/v1/payment_intents/search' },
  { method: 'GET', path: '/v1/charges' },
  { method: 'GET', path: '/v1/charges/search' },
  { method: 'GET', path: '/v1/charges/:charge' },
  { method: 'GET', path: '/v1/refunds' },
  { method: 'GET', path: '/v1/refunds/:refund' },
  { method: 'GET', path: '/v1/customers' },
  { method: 'GET', path: '/v1/customers/search' },
  { method: 'POST', path: '/v1/customers/:customer' },
  // Card tokenizing, as Stripe.js does before a PaymentIntent: nothing is charged.
  { method: 'POST', path: '/v1/payment_methods' },
  { method: 'GET', path: '/v1/payment_methods/:payment_method' },
  { method: 'GET', path: '/v1/disputes' },
  { method: 'GET', path: '/v1/disputes/:dispute' },
  { method: 'GET', path: '/v1/events' },
  { method: 'GET', path: '/v1/events/:event' },
];
