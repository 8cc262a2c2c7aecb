import { centsToWire as toWire, wireToCents as toCents, type AmountUnit as Unit, type Json, type Outcome } from '../../sandbox/core';
import { errorBody } from './emulator-shapes';
import { PAGBANK_BRAND_RATES, PAGBANK_MIN_INSTALLMENT, pagbankBrandOfBin, priceInstallment } from './emulator-rates';

/**
 * GET /charges/fees/calculate (PagBank's "consultar juros de uma transação"): for a value, the plans of each card brand
 * (or the bin's brand), `installment_plans[{installments, installment_value, interest_free, amount: {value, fees:
 * {buyer: {interest: {total, installments}}}}}]`. Counts up to `max_installments_no_interest` are interest-free (the
 * seller pays); beyond, the buyer pays the brand's monthly rate, compound (Price table), each installment rounded half
 * up to the cent. The real rates are the seller's contract; the emulator's are a fixed table per brand (below). A plan
 * with an installment under R$ 5,00 is left out (the smallest installment PagBank takes).
 */

const MAX_COUNT = 18;

const invalid = (parameter: string, description: string): Outcome => ({ status: 400, body: errorBody('40002', description, parameter) });

/** A whole-number query parameter in a range, or undefined when absent. */
function countParam(query: Json, name: string, max: number): number | undefined | Outcome {
  if (query[name] === undefined) return undefined;
  const n = Number(query[name]);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : invalid(name, `${name} must be an integer from 1 to ${max}`);
}
const isOutcome = (v: unknown): v is Outcome => typeof v === 'object' && v !== null;

export function feesAnswer(query: Json, unit: Unit): Outcome {
  if (query.payment_methods !== 'CREDIT_CARD') return invalid('payment_methods', 'payment_methods must be CREDIT_CARD');
  if (query.value === undefined || query.value === '') return invalid('value', 'value is required');
  const value = /^[0-9]+(\.[0-9]{1,2})?$/.test(String(query.value)) ? toCents(Number(query.value), unit) : undefined;
  if (value === undefined || value < 100) {
    return invalid('value', unit === 'minor' ? 'value must be an integer amount in cents, at least 100' : 'value must be an amount in reais, at least 1.00');
  }
  const max = countParam(query, 'max_installments', MAX_COUNT);
  if (isOutcome(max)) return max;
  const free = countParam(query, 'max_installments_no_interest', MAX_COUNT);
  if (isOutcome(free)) return free;
  const maxCount = max ?? MAX_COUNT;
  if ((free ?? 1) > maxCount) return invalid('max_installments_no_interest', 'max_installments_no_interest must not exceed max_installments');
  let brands = Object.keys(PAGBANK_BRAND_RATES);
  if (query.credit_card_bin !== undefined) {
    const brand = /^[0-9]{6,8}$/.test(String(query.credit_card_bin)) ? pagbankBrandOfBin(String(query.credit_card_bin)) : undefined;
    if (!brand) return invalid('credit_card_bin', 'credit_card_bin is not a known card bin');
    brands = [brand];
  }
  const creditCard: Json = {};
  for (const brand of brands) {
    const plans: Json[] = [];
    for (let n = 1; n <= maxCount; n++) {
      const interestFree = n === 1 || n <= (free ?? 1);
      const each = interestFree ? Math.ceil(value / n) : priceInstallment(value, n, PAGBANK_BRAND_RATES[brand]);
      if (n > 1 && each < PAGBANK_MIN_INSTALLMENT) continue;
      const total = interestFree ? value : each * n;
      plans.push({
        installments: n, installment_value: toWire(each, unit), interest_free: interestFree,
        amount: { value: toWire(total, unit), fees: { buyer: { interest: { total: toWire(total - value, unit), installments: interestFree ? 0 : n } } } },
      });
    }
    creditCard[brand] = { installment_plans: plans };
  }
  return { status: 200, body: { payment_methods: { credit_card: creditCard } } };
}
