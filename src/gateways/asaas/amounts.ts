import type { AmountDeclaration } from '../../mapping/amount-guard';

/** Where Asaas's wire carries amounts (reais), checked before every send (docs/mappings.md). */
export const asaasAmounts: AmountDeclaration = {
  unit: 'major',
  requests: {
    // totalValue: the whole amount of an installment payment.
    'charge.request': {
      cents: (i) => i.charge?.amount, fields: ['value', 'totalValue'],
      shares: { fields: ['split[*].fixedValue'], cents: (i) => (i.charge?.resolvedSplit?.items ?? []).map((s: { amount: number }) => s.amount) },
    },
    'refund.request': { cents: (i) => i.amount ?? null, fields: ['value'] },
    'cancel.request': { cents: () => null, fields: ['value'] },
  },
  // An installment plan's answer is its first installment (asaas.md): its value is a part of the amount.
  answer: { fields: ['value'], applies: (body) => !(Number(body.installmentCount) > 1) },
};
