import type { GatewayDescriptor } from '../descriptor';
import { asaasAmounts } from './amounts';
import { asaasAdapter } from './adapter';
import { asaasCompat } from './compat';
import { asaasEmulator } from './emulator';
import { asaasWebhook } from './webhook';

/** Asaas API v3 (shared/gateways/asaas.md). */
export const descriptor: GatewayDescriptor = {
  id: 'asaas',
  name: 'Asaas',
  aliases: ['gateway_3'],
  adapter: asaasAdapter,
  amounts: asaasAmounts,
  emulator: asaasEmulator,
  compat: asaasCompat,
  // Wallet ids are UUIDs (asaas.md section 9).
  splitRecipient: { pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$', description: 'an Asaas walletId (a UUID)' },
  webhook: asaasWebhook,
  // Every PAYMENT_* event carries the payment, whose externalReference is RouteGate's charge id: RouteGate sends it
  // on every payment it creates, compatibility-mode creates included (asaas.md section 7; mappings/asaas/
  // webhook.jsonata reads it as the reference, and native.request keeps the client's own in metadata).
  webhooksNameChargeId: true,
  // Only HTTP 200 counts as delivered, and 15 failures in a row pause the account's whole webhook queue (asaas.md
  // section 7, "penalização de filas"): a backend that is down must not stop every notification, so the event is
  // acknowledged once it is in the outbox, which retries the backend (docs/webhooks.md).
  webhookAck: 'on-store',
  credentials: {
    apiKey: { required: true, secret: true, description: 'API key ($aact_...)' },
    webhookSecret: { required: true, secret: true, description: 'the access token configured for the webhook in the Asaas panel' },
  },
  sandboxCredentials: { apiKey: '$aact_sandbox_routegate_0003', webhookSecret: 'asaas_token_sandbox_0003' },
};
