import type { GatewayDescriptor } from '../descriptor';
import { templateAmounts } from './amounts';
import { templateAdapter } from './adapter';
import { templateEmulator } from './emulator';

/**
 * Template: a minimal card + pix gateway, written from the skeleton by `npm run new-gateway`. docs/adding-a-gateway.md
 * says what to change: the real API's auth, paths, capabilities and requirements in adapter.ts, its payload shapes
 * in mappings/template/, its routes in emulator.ts, and the credential fields below.
 */
export const descriptor: GatewayDescriptor = {
  id: 'template',
  name: 'Template',
  // Other accepted spellings of the id (SPEC.md's neutral label, a former brand name), lower case.
  aliases: [],
  adapter: templateAdapter,
  amounts: templateAmounts,
  emulator: templateEmulator,
  credentials: {
    apiKey: { required: true, secret: true, description: 'API key (Bearer)' },
    webhookSecret: { required: false, secret: true, description: 'optional; the secret webhooks are signed with' },
  },
  // What the emulator accepts: anything without the word "invalid".
  sandboxCredentials: { apiKey: 'template_sandbox_key_0006', webhookSecret: 'template_webhook_sandbox_0006' },
};
