import type { TestContext } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys';
import type { Store } from '../../src/store';
import type { Reply } from '../helper';
import { CARD, CUSTOMER, startE2E } from './e2e';

export const DAY = 86_400_000;
export const KEYED_CHARGE = { amount: 1500, currency: 'BRL', paymentMethod: 'credit_card', customer: CUSTOMER, creditCard: CARD };

/**
 * RouteGate and the emulators for one test (closed after it), an account charging on Pagar.me, its id (for the
 * idempotency repository), and `create`: POST /api/v1/charges under an Idempotency-Key.
 */
export async function keyedChargeService(t: TestContext): Promise<{
  store: Store; accountId: string; purgeNow(): Promise<number>; create(key: string, body?: unknown): Promise<Reply>;
}> {
  const e2e = await startE2E();
  t.after(() => e2e.close());
  const { store, idempotencyPurger } = e2e.sandbox.app;
  const apiKey = await e2e.account({ primaryGateway: 'pagarme' }, ['pagarme']);
  const accountId = (await store.apiKeys.findByHash(hashApiKey(apiKey)))!.accountId;
  return {
    store, accountId,
    purgeNow: () => idempotencyPurger.pass(),
    create: (key, body = KEYED_CHARGE) => e2e.call('POST', '/api/v1/charges', { key: apiKey, body, headers: { 'idempotency-key': key } }),
  };
}
