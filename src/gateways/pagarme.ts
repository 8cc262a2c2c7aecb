import { GatewayFailure, type GatewayAdapter } from './types';
import { capabilityTable } from './capabilities';

// Placeholder until the pagarme adapter lands (issue #3).
const unsupported = async (): Promise<never> => {
  throw new GatewayFailure('unsupported', 'pagarme', 'pagarme adapter not available yet');
};
export const pagarmeAdapter: GatewayAdapter = {
  id: 'pagarme',
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
