import { ADAPTERS } from '../../src/gateways/registry';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import type { CallContext, GatewayId, NormalizedCharge, PaymentMethod } from '../../src/gateways/types';
import type { GatewayHarness } from './gateway-context';

// One normalized charge that every gateway accepts, for tests that run the same scenario on several adapters.

export { CUSTOMER } from './e2e';
import { CUSTOMER } from './e2e';
export const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 };

/** The call that creates the charge at each gateway, below its prefix (fault filters aim at it). */
export const CREATE_PATH: Record<GatewayId, string> = {
  stripe: '/v1/payment_intents', pagarme: '/core/v5/orders', asaas: '/v3/payments', mercadopago: '/v1/payments', pagbank: '/orders',
};

export function sandboxContext(h: GatewayHarness, gateway: GatewayId, overrides: Partial<CallContext> = {}): CallContext {
  return h.context(gateway, SANDBOX_CREDENTIALS[gateway], overrides);
}

/**
 * A 19,99 charge of `paymentMethod` with the buyer inline; Asaas also gets the customer it requires,
 * created first (call it after the harness reset, since a reset forgets customers).
 */
export async function chargeInput(
  h: GatewayHarness, gateway: GatewayId, paymentMethod: PaymentMethod = 'credit_card', over: Partial<NormalizedCharge> = {},
): Promise<NormalizedCharge> {
  let customerId: string | undefined;
  if (gateway === 'asaas') {
    customerId = (await ADAPTERS.asaas.createCustomer(sandboxContext(h, 'asaas'), CUSTOMER)).normalized.externalId;
  }
  const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  return {
    paymentMethod, amount: 1999, currency: 'BRL', capture: true, description: 'Pedido 1001', customer: CUSTOMER, customerId, clientIp: '203.0.113.7',
    ...(paymentMethod.endsWith('_card') ? { creditCard: CARD } : {}),
    ...(paymentMethod === 'pix' ? { pix: { expiresInSeconds: 3600 } } : {}),
    ...(paymentMethod === 'boleto' ? { boleto: { dueDate } } : {}),
    ...over,
  };
}
