import type { GatewayDescriptor } from '../descriptor';
import { pagbankAmounts } from './amounts';
import { pagbankAdapter } from './adapter';
import { pagbankCompat } from './compat';
import { pagbankEmulator } from './emulator';
import { AMOUNT_UNIT_SETTING } from './wire';
import { pagbankWebhook } from './webhook';

/** PagBank (PagSeguro) Orders API (shared/gateways/pagbank.md). */
export const descriptor: GatewayDescriptor = {
  id: 'pagbank',
  name: 'PagBank',
  aliases: ['gateway_5', 'pagseguro'],
  adapter: pagbankAdapter,
  amounts: pagbankAmounts,
  emulator: pagbankEmulator,
  webhook: pagbankWebhook,
  // Delivery is at-least-once with unpublished retries (pagbank.md section 7); no pause or disabling is documented.
  webhookAck: 'after-forward',
  compat: pagbankCompat,
  tokenPrefixes: ['CARD_'],
  splitRecipient: { pattern: '^ACCO_[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$', description: 'a PagBank account id (ACCO_ and a UUID)' },
  credentials: {
    token: { required: true, secret: true, description: 'PagBank bearer token' },
    webhookSecret: { required: false, secret: true, description: 'optional; enables webhook validation' },
    // FIXED split receivers sum to the charge amount, the primary account included (pagbank.md section 9).
    // The legacy transactions API, where chargeback notifications are read back, wants the account's e-mail too.
    email: { required: false, secret: false, pattern: '^[^@\\s]+@[^@\\s]+$', description: 'optional; the PagBank account\'s e-mail, with the token, to read back chargeback notifications (the legacy transactions API)' },
    accountId: { required: false, secret: false, pattern: '^ACCO_[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$', description: 'optional; the account\'s own PagBank account id (ACCO_...), needed to split charges' },
  },
  sandboxCredentials: { token: 'sandbox_routegate_token_0005', webhookSecret: 'pagbank_token_sandbox_0005', accountId: 'ACCO_5A5A5A5A-0000-4000-8000-000000000005' },
  wireSettings: [{
    env: AMOUNT_UNIT_SETTING, default: 'cents', accepts: ['cents', 'reais'],
    description: 'PagBank wire amounts: cents (the real Orders API) or reais (SPEC.md\'s profile); the emulator follows it too',
  }],
};
