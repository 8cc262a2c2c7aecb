import type { AmountDeclaration } from '../../mapping/amount-guard';

/** Where Stripe's wire carries amounts (integer minor units), checked before every send (docs/mappings.md). */
export const stripeAmounts: AmountDeclaration = {
  unit: 'minor',
  requests: {
    'charge.request': {
      cents: (i) => i.charge?.amount, fields: ['amount'],
      // A destination charge: the platform keeps what the recipient does not get.
      shares: { fields: ['application_fee_amount'], cents: (i) => (i.charge?.resolvedSplit ? [i.charge.resolvedSplit.remainder] : []) },
    },
    'capture.request': { cents: (i) => i.amount ?? null, fields: ['amount_to_capture'] },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'cancel.request': { cents: () => null, fields: ['amount', 'amount_to_capture'] },
  },
  answer: { fields: ['amount'] },
};
