import type { AmountDeclaration } from '../../mapping/amount-guard';

/** Where Mercado Pago's wire carries amounts (reais), checked before every send (docs/mappings.md). */
export const mercadopagoAmounts: AmountDeclaration = {
  unit: 'major',
  requests: {
    'charge.request': { cents: (i) => i.charge?.amount, fields: ['transaction_amount'] },
    'capture.request': { cents: (i) => i.amount ?? null, fields: ['transaction_amount'] },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['amount'] },
    'cancel.request': { cents: () => null, fields: ['transaction_amount'] },
    // GET /v1/payment_methods/installments?amount= (a quote: reais, like the payment it prices).
    'installments.request': { cents: (i) => i.amount, fields: ['amount'] },
  },
  answer: { fields: ['transaction_amount'] },
};
