import { GatewayFailure, type GatewayAdapter } from './types';
import { capabilityTable } from './capabilities';

// Placeholder until the pagbank adapter lands (issue #3).
const unsupported = async (): Promise<never> => {
  throw new GatewayFailure('unsupported', 'pagbank', 'pagbank adapter not available yet');
};
export const pagbankAdapter: GatewayAdapter = {
  id: 'pagbank',
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
