import type { GatewayId } from './registry-ids';

/** Real production base URLs; ROUTEGATE_<GATEWAY>_URL overrides each (e.g. to point at the emulators). */
export const ADAPTER_BASE_URLS: Record<GatewayId, string> = {
  stripe: 'https://api.stripe.com',
  pagarme: 'https://api.pagar.me',
  asaas: 'https://api.asaas.com',
  mercadopago: 'https://api.mercadopago.com',
  pagbank: 'https://api.pagseguro.com',
};
