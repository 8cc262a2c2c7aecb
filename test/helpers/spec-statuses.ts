// SPEC.md "States and transitions", copied as data: every row must be in the gateway's status.json exactly, except
// the deviations below.
const SPEC_TABLE: Record<string, Record<string, string>> = {
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

/**
 * Where RouteGate deliberately answers otherwise than SPEC.md's table, and why (docs/charges.md, "Disputes"): the
 * issue and DESIGN.md's Disputes contract ("a chargeback is never a refund") override SPEC.md's mapping of a
 * chargeback to refunded.
 */
export const SPEC_DEVIATIONS: Record<string, Record<string, { spec: string; routegate: string; why: string }>> = {
  pagarme: { chargedback: { spec: 'refunded', routegate: 'disputed', why: 'a chargeback is never a refund (DESIGN.md, Disputes)' } },
};

/** SPEC.md's table as RouteGate holds it: every row, the deviations' rows answering RouteGate's status. */
export const SPEC_ROWS: Record<string, Record<string, string>> = Object.fromEntries(Object.entries(SPEC_TABLE).map(([gateway, rows]) => [
  gateway, Object.fromEntries(Object.entries(rows).map(([native, normalized]) => [native, SPEC_DEVIATIONS[gateway]?.[native]?.routegate ?? normalized])),
]));

/** SPEC.md's table as written (for the test that every deviation is one from a real row). */
export const SPEC_TABLE_AS_WRITTEN = SPEC_TABLE;
