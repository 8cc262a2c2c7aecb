import type { GatewayDescriptor } from '../descriptor';
import { stripeAmounts } from './amounts';
import { stripeAdapter } from './adapter';
import { stripeEmulator } from './emulator';
import { STRIPE_API_VERSION } from './wire';
import { stripeCompat } from './compat';
import { stripeWebhook } from './webhook';

/** Stripe PaymentIntents (shared/gateways/stripe.md). */
export const descriptor: GatewayDescriptor = {
  id: 'stripe',
  name: 'Stripe',
  aliases: ['gateway_1'],
  adapter: stripeAdapter,
  amounts: stripeAmounts,
  emulator: stripeEmulator,
  webhook: stripeWebhook,
  // Any 2xx is delivered; failures are retried for up to 3 days and an endpoint failing for days is disabled
  // (stripe.md section 7): a non-2xx while the backend is down keeps Stripe retrying, no longer than the outbox would.
  webhookAck: 'after-forward',
  // The events RouteGate reads about a charge carry RouteGate's charge id as metadata.rg_charge_id, which it sets on
  // every PaymentIntent it creates, compatibility-mode creates included (its key wins over a client's). A
  // payment_intent.* event carries the PaymentIntent. charge.refunded carries the Charge, and Stripe copies the
  // PaymentIntent's metadata to the Charge it makes when the PaymentIntent is confirmed. mappings/stripe/
  // webhook.jsonata reads it as the reference.
  webhooksNameChargeId: true,
  tokenPrefixes: ['pm_', 'tok_', 'src_'],
  // Connect accounts (stripe.md section 9): acct_ and letters or digits.
  splitRecipient: { pattern: '^acct_[A-Za-z0-9]{1,64}$', description: 'a Stripe connected account id (acct_ and letters or digits)' },
  credentials: {
    secretKey: { required: true, secret: true, pattern: '^(sk|rk)_', description: 'secret key, sk_test_... or sk_live_...' },
    webhookSecret: { required: true, secret: true, pattern: '^whsec_', description: 'endpoint signing secret, whsec_...' },
  },
  // The emulated account has raw card data access: its key says rawcard.
  sandboxCredentials: { secretKey: 'sk_test_rawcard_sandbox_routegate_0001', webhookSecret: 'whsec_sandbox_routegate_0001' },
  wireSettings: [{
    env: 'ROUTEGATE_STRIPE_API_VERSION', default: STRIPE_API_VERSION, accepts: /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/,
    description: 'the Stripe-Version pinned on every Stripe call (the version the stripe mappings are written for)',
  }],
  accountSettings: {
    stripeRawCardData: {
      type: 'boolean', default: false,
      description: 'the Stripe account has raw card data access: raw card numbers may be sent to Stripe (else a Stripe paymentMethodId is needed)',
    },
  },
  sandboxAccountSettings: { stripeRawCardData: true },
  compat: stripeCompat,
};
