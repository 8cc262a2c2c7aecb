import { centsToWire as toWire, wireToCents as toCents, type AmountUnit as Unit, type Json, type Outcome } from '../../sandbox/core';
import { errorBody } from './emulator-shapes';

/**
 * GET /charges/fees/calculate (PagBank's "consultar juros de uma transação"): for a value, the plans of each card brand
 * (or the bin's brand), `installment_plans[{installments, installment_value, interest_free, amount: {value, fees:
 * {buyer: {interest: {total, installments}}}}}]`. Counts up to `max_installments_no_interest` are interest-free (the
 * seller pays); beyond, the buyer pays the brand's monthly rate, compound (Price table), each installment rounded half
 * up to the cent. The real rates are the seller's contract; the emulator's are a fixed table per brand (below). A plan
 * with an installment under R$ 5,00 is left out (the smallest installment PagBank takes).
 */

/** Percent a month the buyer pays beyond the interest-free counts, per brand (the emulator's table). */
export const PAGBANK_BRAND_RATES: Readonly<Record<string, number>> = { visa: 2.99, mastercard: 2.99, elo: 3.49, hipercard: 3.49, amex: 3.99 };
export const PAGBANK_MIN_INSTALLMENT = 500;
const MAX_COUNT = 18;

export function pagbankBrandOfBin(bin: string): string | undefined {
  if (/^3[47]/.test(bin)) return 'amex';
  if (/^(4011|4389|4514|5041|5067|6277|6363|6504|6505|6516)/.test(bin)) return 'elo';
  if (/^(6062|3841)/.test(bin)) return 'hipercard';
  if (/^4/.test(bin)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(bin)) return 'mastercard';
  return undefined;
}

const invalid = (parameter: string, description: string): Outcome => ({ status: 400, body: errorBody('40002', description, parameter) });

/** A whole-number query parameter in a range, or undefined when absent. */
function countParam(query: Json, name: string, max: number): number | undefined | Outcome {
  if (query[name] === undefined) return undefined;
  const n = Number(query[name]);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : invalid(name, `${name} must be an integer from 1 to ${max}`);
}
const isOutcome = (v: unknown): v is Outcome => typeof v === 'object' && v !== null;

/** Price table: amount x r x (1 + r)^n / ((1 + r)^n - 1), r in millionths of a percent-unit, rounded half up. */
function priceInstallment(cents: number, count: number, ratePercent: number): number {
  const r = BigInt(Math.round(ratePercent * 10_000));
  const one = 1_000_000n;
  const grown = (one + r) ** BigInt(count);
  const num = BigInt(cents) * r * grown;
  const den = one * (grown - one ** BigInt(count));
  return Number((2n * num + den) / (2n * den));
}

/**
 * The interest the buyer pays on `base` cents in `count` installments of a card of `brand` (a plan with interest of
 * the fees table: each installment by the brand's rate, the interest the installments less the base), or undefined
 * for a brand the table does not know.
 */
export function buyerInterest(base: number, count: number, brand: string): number | undefined {
  const rate = PAGBANK_BRAND_RATES[brand];
  return rate === undefined ? undefined : priceInstallment(base, count, rate) * count - base;
}

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
