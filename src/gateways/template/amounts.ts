import type { AmountDeclaration } from '../../mapping/amount-guard';

/**
 * Where the gateway's wire carries amounts and in which unit, checked before every send (docs/mappings.md). Declare
 * every amount field of every money request (charge, capture, refund, cancel) and where the create's answer reports it.
 */
export const templateAmounts: AmountDeclaration = {
  unit: 'minor',
  requests: {
    'charge.request': { cents: (i) => i.charge?.amount, fields: ['amount'] },
    'capture.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'cancel.request': { cents: () => null, fields: ['amount'] },
  },
  answer: { fields: ['amount'] },
};
