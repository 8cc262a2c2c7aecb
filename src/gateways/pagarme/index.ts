import type { GatewayDescriptor } from '../descriptor';
import { pagarmeAmounts } from './amounts';
import { pagarmeAdapter } from './adapter';
import { pagarmeCompat } from './compat';
import { pagarmeEmulator } from './emulator';
import { pagarmeWebhook } from './webhook';

/** Pagar.me core v5 (shared/gateways/pagarme.md). */
export const descriptor: GatewayDescriptor = {
  id: 'pagarme',
  name: 'Pagar.me',
  aliases: ['gateway_2'],
  adapter: pagarmeAdapter,
  amounts: pagarmeAmounts,
  emulator: pagarmeEmulator,
  webhook: pagarmeWebhook,
  // Any 2xx is delivered and failures are retried (pagarme.md section 7); no pause or disabling is documented.
  webhookAck: 'after-forward',
  // The order's `code` is RouteGate's charge id, and charge.* events carry the charge with its order (pagarme.md
  // section 7; mappings/pagarme/webhook.jsonata reads it as the reference).
  webhooksNameChargeId: true,
  compat: pagarmeCompat,
  tokenPrefixes: ['token_'],
  splitRecipient: { pattern: '^rp_[A-Za-z0-9]{16}$', description: 'a Pagar.me recipient id (rp_ and 16 letters or digits)' },
  credentials: {
    secretKey: { required: true, secret: true, pattern: '^sk_', description: 'secret key, sk_test_... or sk_...' },
    webhookSecret: { required: true, secret: true, description: 'HMAC secret for x-hub-signature' },
    // Split rules cover the whole payment on Pagar.me, the account's own recipient included (pagarme.md section 9).
    recipientId: { required: false, secret: false, pattern: '^rp_[A-Za-z0-9]{16}$', description: 'optional; the account\'s own recipient (rp_...), needed to split charges' },
    webhookPublicKey: {
      required: false, secret: false,
      description: 'optional; checks X-Webhook-Asymmetric-Signature (RS256): a PEM public key, a JWKS document, or the URL of the JWKS at Pagar.me (https://hubapi.pagar.me/.well-known/jwks.json; no other host is fetched)',
    },
  },
  sandboxCredentials: { secretKey: 'sk_test_sandbox_routegate_0002', webhookSecret: 'pagarme_hmac_sandbox_0002', recipientId: 'rp_RouteGateSandb02' },
};
