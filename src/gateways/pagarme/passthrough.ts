import type { PassthroughRoute } from '../../compat/types';

/**
 * Pagar.me paths a passthrough account may call untranslated (docs/security.md): reads of charges and customers and
 * customer updates. Never recipients, transfers, withdrawals, anticipations, balance or keys.
 */
export const PASSTHROUGH: readonly PassthroughRoute[] = [
  { method: 'GET', path: '/core/v5/charges' },
  // Card tokenizing (the public key in ?appId=): nothing is charged.
  { method: 'POST', path: '/core/v5/tokens' },
  { method: 'GET', path: '/core/v5/customers' },
  { method: 'PUT', path: '/core/v5/customers/:customer_id' },
  { method: 'GET', path: '/core/v5/customers/:customer_id/cards' },
  { method: 'GET', path: '/core/v5/customers/:customer_id/addresses' },
];
