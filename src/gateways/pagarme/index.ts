import type { GatewayDescriptor } from '../descriptor';
import { pagarmeAdapter } from './adapter';
import { pagarmeEmulator } from './emulator';

/** Pagar.me core v5 (shared/gateways/pagarme.md). */
export const descriptor: GatewayDescriptor = {
  id: 'pagarme',
  name: 'Pagar.me',
  aliases: ['gateway_2'],
  adapter: pagarmeAdapter,
  emulator: pagarmeEmulator,
  tokenPrefixes: ['token_'],
  credentials: {
    secretKey: { required: true, secret: true, pattern: '^sk_', description: 'secret key, sk_test_... or sk_...' },
    webhookSecret: { required: true, secret: true, description: 'HMAC secret for x-hub-signature' },
  },
  sandboxCredentials: { secretKey: 'sk_test_sandbox_routegate_0002', webhookSecret: 'pagarme_hmac_sandbox_0002' },
};
