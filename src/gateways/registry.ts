import type { GatewayAdapter, GatewayId } from './types';
import { stripeAdapter } from './stripe';
import { pagarmeAdapter } from './pagarme';
import { asaasAdapter } from './asaas';
import { mercadopagoAdapter } from './mercadopago';
import { pagbankAdapter } from './pagbank';

export { GATEWAY_IDS, resolveGatewayId, GATEWAY_INPUT_IDS } from './registry-ids';

export const ADAPTERS: Record<GatewayId, GatewayAdapter> = {
  stripe: stripeAdapter,
  pagarme: pagarmeAdapter,
  asaas: asaasAdapter,
  mercadopago: mercadopagoAdapter,
  pagbank: pagbankAdapter,
};

export function adapterFor(id: GatewayId): GatewayAdapter {
  return ADAPTERS[id];
}
