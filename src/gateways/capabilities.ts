import type { Capability, CapabilityTable, ChargeOperation, PaymentMethod } from './types';

/** Build a capability table: everything `supported` unless overridden per method/operation. */
export function capabilityTable(
  overrides: Partial<Record<PaymentMethod, Partial<Record<ChargeOperation, Capability>>>> = {},
  customer: Capability = 'supported',
): CapabilityTable {
  const all = (m: PaymentMethod): Record<ChargeOperation, Capability> => ({
    charge: 'supported', capture: 'supported', cancel: 'supported', refund: 'supported', partial_refund: 'supported', ...overrides[m],
  });
  return { credit_card: all('credit_card'), debit_card: all('debit_card'), boleto: all('boleto'), pix: all('pix'), customer };
}
