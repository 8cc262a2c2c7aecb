import type { PassthroughRoute } from '../../compat/types';

/**
 * PagBank paths a passthrough account may call untranslated (docs/security.md): the public key cards are encrypted
 * with, and paying an order. Never transfers, accounts, OAuth applications or creating public keys.
 */
export const PASSTHROUGH: readonly PassthroughRoute[] = [
  { method: 'GET', path: '/public-keys/card' },
  // Paying an order RouteGate created (a charge on it, reported by PagBank's notification): money in, never out.
  { method: 'POST', path: '/orders/:id/pay' },
];
