import { GatewayFailure, type GatewayAdapter } from './types';
import { capabilityTable } from './capabilities';

// Placeholder until the stripe adapter lands (issue #3).
const unsupported = async (): Promise<never> => {
  throw new GatewayFailure('unsupported', 'stripe', 'stripe adapter not available yet');
};
export const stripeAdapter: GatewayAdapter = {
  id: 'stripe',
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
