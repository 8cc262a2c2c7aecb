import type { AmountDeclaration } from '../../mapping/amount-guard';

/** Where Pagar.me's wire carries amounts (integer cents on both sides), checked before every send (docs/mappings.md). */
export const pagarmeAmounts: AmountDeclaration = {
  unit: 'minor',
  requests: {
    'charge.request': { cents: (i) => i.charge?.amount, fields: ['items[*].amount', 'payments[*].amount'] },
    'capture.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'cancel.request': { cents: () => null, fields: ['amount'] },
  },
  answer: { fields: ['amount', 'charges[0].amount'] },
};
