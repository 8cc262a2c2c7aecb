/**
 * Installment plans computed from an account's settings (DESIGN.md "Installments (contract)"). Pure arithmetic in
 * integer cents: an interest-free plan splits the amount (the last installment absorbs the difference); a plan with
 * interest follows the Price table (constant installments, compound monthly rate), rounded half up to the cent.
 */

export interface InstallmentSettings {
  /** The most installments the account offers (1 to 24). */
  maxCount: number;
  /** Counts up to this one are interest-free: the merchant absorbs the cost, the buyer pays the amount. */
  interestFreeCount: number;
  /** Percent a month the buyer pays beyond the interest-free counts (compound; 0 to 20). */
  monthlyInterestRate: number;
  /** Plans whose installment is below this many cents are not offered. */
  minInstallmentAmount: number;
}

export interface InstallmentQuote {
  count: number;
  installmentAmount: number;
  totalAmount: number;
  interestFree: boolean;
  /** Percent a month; 0 for an interest-free plan. */
  monthlyInterestRate: number;
}

/** The plan a charge carries and answers with (the quote without its rate). */
export interface InstallmentPlan {
  count: number;
  installmentAmount: number;
  totalAmount: number;
  interestFree: boolean;
  /** The gateway quote the plan came from (creditCard.installmentsQuoteId). */
  quoteId?: string;
  /** The quoting gateway, where it took the charge and charged the plan as its own (its interest): see docs/installments.md. */
  financedBy?: string;
  /** Only when the gateway's answer stated another total than the quoted one: the quoted total (totalAmount is the gateway's). */
  quotedTotalAmount?: number;
}

/** Every count interest-free up to 12, no minimum: what an account that never set its plans charges. */
export const DEFAULT_INSTALLMENT_SETTINGS: InstallmentSettings = { maxCount: 12, interestFreeCount: 12, monthlyInterestRate: 0, minInstallmentAmount: 0 };

/** A rate in percent a month as an exact fraction: millionths (settings keep at most four decimals of a percent). */
const MILLION = 1_000_000n;

/**
 * The Price table's installment for `amount` cents over `count` months at `ratePercent` a month, rounded half up to
 * the cent, in exact integer arithmetic: amount x i / (1 - (1 + i)^-count) with i = r / 10^6 is
 * amount x r x (10^6 + r)^count / (10^6 x ((10^6 + r)^count - 10^(6 count))), so no floating point error can move a
 * half cent.
 */
export function priceTableInstallment(amount: number, count: number, ratePercent: number): number {
  const r = BigInt(Math.round(ratePercent * 10_000));
  const grown = (MILLION + r) ** BigInt(count);
  const num = BigInt(amount) * r * grown;
  const den = MILLION * (grown - MILLION ** BigInt(count));
  return Number((2n * num + den) / (2n * den));
}

/** The plan for `count` installments of `amount` cents at `ratePercent` a month (0: interest-free). */
export function pricePlan(amount: number, count: number, ratePercent: number): InstallmentQuote {
  if (ratePercent === 0 || count === 1) {
    return { count, installmentAmount: Math.ceil(amount / count), totalAmount: amount, interestFree: true, monthlyInterestRate: 0 };
  }
  const installmentAmount = priceTableInstallment(amount, count, ratePercent);
  return { count, installmentAmount, totalAmount: installmentAmount * count, interestFree: false, monthlyInterestRate: ratePercent };
}

/** Every plan the settings allow for `amount`, from 1 to maxCount; plans below the minimum installment left out (DESIGN.md), one installment included. */
export function quotePlans(amount: number, s: InstallmentSettings): InstallmentQuote[] {
  const plans: InstallmentQuote[] = [];
  for (let count = 1; count <= s.maxCount; count++) {
    const plan = pricePlan(amount, count, count <= s.interestFreeCount ? 0 : s.monthlyInterestRate);
    if (!offerable(plan, s.minInstallmentAmount)) continue;
    plans.push(plan);
  }
  return plans;
}

/** A plan a buyer can be offered: no installment below the minimum, and a last installment of at least one cent. */
export function offerable(plan: InstallmentPlan, minInstallmentAmount: number): boolean {
  return plan.installmentAmount >= minInstallmentAmount && lastInstallment(plan) >= 1;
}

/** The last installment of a plan: what is left once the others are paid (it absorbs the rounding). */
export function lastInstallment(plan: Pick<InstallmentPlan, 'count' | 'installmentAmount' | 'totalAmount'>): number {
  return plan.totalAmount - plan.installmentAmount * (plan.count - 1);
}

export function asPlan(q: InstallmentQuote): InstallmentPlan {
  return { count: q.count, installmentAmount: q.installmentAmount, totalAmount: q.totalAmount, interestFree: q.interestFree };
}
