import { GatewayFailure, type GatewayAdapter } from './types';
import { capabilityTable } from './capabilities';

// Placeholder until the asaas adapter lands (issue #3).
const unsupported = async (): Promise<never> => {
  throw new GatewayFailure('unsupported', 'asaas', 'asaas adapter not available yet');
};
export const asaasAdapter: GatewayAdapter = {
  id: 'asaas',
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
