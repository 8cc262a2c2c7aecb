import type { GatewayDescriptor } from '../descriptor';
import { pagbankAdapter } from './adapter';
import { pagbankEmulator } from './emulator';
import { AMOUNT_UNIT_SETTING } from './wire';
import { pagbankWebhook } from './webhook';

/** PagBank (PagSeguro) Orders API (shared/gateways/pagbank.md). */
export const descriptor: GatewayDescriptor = {
  id: 'pagbank',
  name: 'PagBank',
  aliases: ['gateway_5', 'pagseguro'],
  adapter: pagbankAdapter,
  emulator: pagbankEmulator,
  webhook: pagbankWebhook,
  tokenPrefixes: ['CARD_'],
  credentials: {
    token: { required: true, secret: true, description: 'PagBank bearer token' },
    webhookSecret: { required: false, secret: true, description: 'optional; enables webhook validation' },
  },
  sandboxCredentials: { token: 'sandbox_routegate_token_0005', webhookSecret: 'pagbank_token_sandbox_0005' },
  wireSettings: [{
    env: AMOUNT_UNIT_SETTING, default: 'cents', accepts: ['cents', 'reais'],
    description: 'PagBank wire amounts: cents (the real Orders API) or reais (SPEC.md\'s profile); the emulator follows it too',
  }],
};
