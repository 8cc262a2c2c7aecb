/**
 * The emulated fees table (PagBank's "repasse de taxa ao comprador"): shared by GET /charges/fees/calculate
 * (emulator-installments.ts) and the orders whose amount.fees.buyer.interest it checks (emulator-shapes.ts).
 */

/** Percent a month the buyer pays beyond the interest-free counts, per brand (the emulator's table). */
export const PAGBANK_BRAND_RATES: Readonly<Record<string, number>> = { visa: 2.99, mastercard: 2.99, elo: 3.49, hipercard: 3.49, amex: 3.99 };
export const PAGBANK_MIN_INSTALLMENT = 500;
export function pagbankBrandOfBin(bin: string): string | undefined {
  if (/^3[47]/.test(bin)) return 'amex';
  if (/^(4011|4389|4514|5041|5067|6277|6363|6504|6505|6516)/.test(bin)) return 'elo';
  if (/^(6062|3841)/.test(bin)) return 'hipercard';
  if (/^4/.test(bin)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(bin)) return 'mastercard';
  return undefined;
}

/** Price table: amount x r x (1 + r)^n / ((1 + r)^n - 1), r in millionths of a percent-unit, rounded half up. */
export function priceInstallment(cents: number, count: number, ratePercent: number): number {
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

