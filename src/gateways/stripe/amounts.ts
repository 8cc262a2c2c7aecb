import type { AmountDeclaration } from '../../mapping/amount-guard';

/** Where Stripe's wire carries amounts (integer minor units), checked before every send (docs/mappings.md). */
export const stripeAmounts: AmountDeclaration = {
  unit: 'minor',
  requests: {
    'charge.request': { cents: (i) => i.charge?.amount, fields: ['amount'] },
    'capture.request': { cents: (i) => i.amount ?? null, fields: ['amount_to_capture'] },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'cancel.request': { cents: () => null, fields: ['amount', 'amount_to_capture'] },
  },
  answer: { fields: ['amount'] },
};
