import { GatewayFailure, type GatewayAdapter } from './types';
import { capabilityTable } from './capabilities';

// Placeholder until the mercadopago adapter lands (issue #3).
const unsupported = async (): Promise<never> => {
  throw new GatewayFailure('unsupported', 'mercadopago', 'mercadopago adapter not available yet');
};
export const mercadopagoAdapter: GatewayAdapter = {
  id: 'mercadopago',
  amountUnit: 'minor',
  defaultBaseUrl: 'https://example.invalid',
  capabilities: capabilityTable(),
  createCharge: unsupported,
  retrieveCharge: unsupported,
  captureCharge: unsupported,
  cancelCharge: unsupported,
  refundCharge: unsupported,
  createCustomer: unsupported,
};
