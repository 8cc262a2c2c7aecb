import type { PassthroughRoute } from '../../compat/types';

/**
 * Mercado Pago paths a passthrough account may call untranslated (docs/security.md): payment methods, chargebacks
 * and customers (reads, and customer updates). Never money requests, account or credentials endpoints.
 */
export const PASSTHROUGH: readonly PassthroughRoute[] = [
  // Card tokenizing, as the SDK does before a payment: nothing is charged.
  { method: 'POST', path: '/v1/card_tokens' },
  { method: 'GET', path: '/v1/payment_methods' },
  { method: 'GET', path: '/v1/chargebacks/:id' },
  { method: 'GET', path: '/v1/customers/search' },
  { method: 'PUT', path: '/v1/customers/:id' },
  { method: 'GET', path: '/v1/customers/:id/cards' },
];
