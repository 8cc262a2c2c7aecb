import type { AmountDeclaration } from '../../mapping/amount-guard';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';

/**
 * Where PagBank's wire carries amounts, checked before every send (docs/mappings.md). The unit is the deployment's
 * ROUTEGATE_PAGBANK_AMOUNT_UNIT, which the adapter passes to the mappings as `$amountUnit`: the guard reads the
 * same binding, so a mapping that ignores it (or converts by hand) is refused.
 */
export const pagbankAmounts: AmountDeclaration = {
  unit: { binding: 'amountUnit', fromWire: (wire) => pagbankAmountUnit(wire?.[AMOUNT_UNIT_SETTING]) },
  requests: {
    'charge.request': {
      cents: (i) => i.charge?.amount, fields: ['items[*].unit_amount', 'charges[*].amount.value', 'qr_codes[*].amount.value'],
      // FIXED receivers: each coproducer's cents, and the account's own remainder; and the buyer's interest of a plan
      // of PagBank's own quote (amount.fees.buyer.interest.total), in the same unit.
      shares: {
        fields: ['charges[*].splits.receivers[*].amount.value', 'qr_codes[*].splits.receivers[*].amount.value', 'charges[*].amount.fees.buyer.interest.total'],
        cents: (i) => {
          const s = i.charge?.resolvedSplit;
          const interest = i.charge?.creditCard?.gatewayPlan?.interest;
          return [...(s ? [...s.items.map((item: { amount: number }) => item.amount), s.remainder] : []), ...(typeof interest === 'number' ? [interest] : [])];
        },
      },
    },
    // PagBank wants the amount named even for the whole: the charge's, or what is left to refund.
    'capture.request': { cents: (i) => i.amount ?? i.ref?.amount, fields: ['amount.value'] },
    'refund.request': { cents: (i) => (i.amount != null ? i.amount : i.remaining ? i.remaining : i.ref?.amount), fields: ['amount.value'] },
    'cancel.request': { cents: (i) => i.ref?.amount, fields: ['amount.value'] },
    // GET /charges/fees/calculate?value= (a quote: the wire unit, like the order it prices).
    'installments.request': { cents: (i) => i.amount, fields: ['value'] },
  },
  answer: { fields: ['charges[0].amount.value', 'qr_codes[0].amount.value'] },
};
