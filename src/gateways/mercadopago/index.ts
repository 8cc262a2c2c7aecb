import type { GatewayDescriptor } from '../descriptor';
import { mercadopagoAmounts } from './amounts';
import { mercadopagoAdapter } from './adapter';
import { mercadopagoCompat } from './compat';
import { mercadopagoEmulator } from './emulator';
import { mercadopagoWebhook } from './webhook';

/** Mercado Pago Payments API v1 (shared/gateways/mercadopago.md). */
export const descriptor: GatewayDescriptor = {
  id: 'mercadopago',
  name: 'Mercado Pago',
  aliases: ['gateway_4'],
  adapter: mercadopagoAdapter,
  amounts: mercadopagoAmounts,
  emulator: mercadopagoEmulator,
  // Compatibility mode: Mercado Pago's own /v1/payments and /v1/customers API, answered whichever gateway charged.
  compat: mercadopagoCompat,
  // A collector (user) id: digits (mercadopago.md section 9). No split capability: v1 payments cannot split.
  splitRecipient: { pattern: '^[1-9][0-9]{0,19}$', description: 'a Mercado Pago collector id (digits)' },
  webhook: mercadopagoWebhook,
  // Failed notifications are retried and re-signed (mercadopago.md section 7); no pause or disabling is documented.
  webhookAck: 'after-forward',
  credentials: {
    accessToken: { required: true, secret: true, description: 'access token, TEST-... or APP_USR-...' },
    webhookSecret: { required: true, secret: true, description: 'webhook signature secret (x-signature)' },
  },
  sandboxCredentials: { accessToken: 'TEST-sandbox-routegate-0004', webhookSecret: 'mp_signature_sandbox_0004' },
};
