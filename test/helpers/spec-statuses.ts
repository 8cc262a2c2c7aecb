// SPEC.md "States and transitions", copied as data: every row must be in the gateway's status.json exactly.
export const SPEC_ROWS: Record<string, Record<string, string>> = {
  pagarme: {
    paid: 'approved', pending: 'pending', waiting_payment: 'pending', pending_payment: 'pending', processing: 'processing',
    refused: 'declined', canceled: 'cancelled', refunded: 'refunded', chargedback: 'refunded', failed: 'failed', with_error: 'failed',
  },
  asaas: { PENDING: 'pending', CONFIRMED: 'approved', RECEIVED: 'approved', REFUSED: 'declined', CANCELLED: 'cancelled', REFUNDED: 'refunded' },
  stripe: { succeeded: 'approved', processing: 'processing', requires_payment_method: 'pending', requires_action: 'pending', canceled: 'cancelled' },
  mercadopago: {
    approved: 'approved', in_process: 'processing', pending: 'pending', rejected: 'declined', cancelled: 'cancelled', refunded: 'refunded',
  },
  pagbank: { PAID: 'approved', WAITING: 'pending', IN_ANALYSIS: 'processing', DECLINED: 'declined', CANCELLED: 'cancelled', REFUNDED: 'refunded' },
};
