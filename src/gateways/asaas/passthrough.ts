import type { PassthroughRoute } from '../../compat/types';

/**
 * Asaas paths a passthrough account may call untranslated (docs/security.md): reads of payments, installments and
 * customers and customer updates. Never transfers, pix payments (/v3/pix/qrCodes/pay), bill payment (/v3/bill),
 * the account (/v3/myAccount, /v3/accounts), balance or pix keys.
 */
export const PASSTHROUGH: readonly PassthroughRoute[] = [
  { method: 'GET', path: '/v3/payments/:id/billingInfo' },
  { method: 'GET', path: '/v3/payments/:id/refunds' },
  { method: 'GET', path: '/v3/installments' },
  { method: 'GET', path: '/v3/installments/:id' },
  { method: 'POST', path: '/v3/customers/:id' },
];
