import type { ChargeRecord } from '../../src/store/charges';

/** A stored charge with every field set (a processing card charge of R$ 109,90), for the store's own tests. */
export function storedCharge(id: string, over: Partial<ChargeRecord> = {}): ChargeRecord {
  return {
    id, accountId: 'acc_1', gateway: 'gw_a', primaryGateway: 'gw_a', fallbackUsed: false, externalId: null,
    paymentMethod: 'credit_card', status: 'processing', amount: 10_990, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null,
    description: 'Pedido 1', customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
    boletoBarcodeNumber: null, pixExpiresAt: null, boletoDueDate: null, card: null, metadata: null, split: null, dispute: null, installments: null, declineCode: null,
    errorCode: null, errorMessage: null, createdAt: '2024-05-01T10:00:00.000Z', updatedAt: '2024-05-01T10:00:00.000Z', ...over,
  };
}
