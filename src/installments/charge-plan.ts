import { rgError } from '../errors';
import type { InstallmentRule, NormalizedCharge } from '../gateways/types';
import type { SettingsRow } from '../store/accounts';
import type { InstallmentQuoteRecord } from '../store/installment-quotes';
import { asPlan, offerable, quotePlans, type InstallmentPlan } from './price-table';
import { priceQuoted, type QuotedCharge } from './quoted-plan';

export interface PricedCharge {
  /** The charge as every gateway gets it: for a plan, its amount is the plan's total. */
  request: NormalizedCharge;
  plan?: InstallmentPlan;
  /** A gateway's quote: that gateway charges the plan as its own (QuotedCharge). */
  quote?: QuotedCharge['quote'];
}

/** A card charge asks for a plan when it asks for more than one installment. */
export function installmentCount(request: NormalizedCharge): number | undefined {
  const n = request.creditCard?.installments;
  return request.paymentMethod === 'credit_card' && typeof n === 'number' && n > 1 ? n : undefined;
}

/**
 * The plan a charge is charged with, decided once before any gateway is tried, so that every gateway (the primary
 * and each fallback) is sent the same total. A normalized request's amount is the price: the plan comes from the
 * account's settings (the quote's table) and the charge is for its total. A native (compatibility-mode) request's
 * amount is already what the buyer pays, as the native API means it: it is charged as it is, split into the count.
 */
export function priceCharge(settings: SettingsRow, request: NormalizedCharge, opts: { native?: boolean; quote?: InstallmentQuoteRecord } = {}): PricedCharge {
  const count = installmentCount(request);
  const quoteId = request.creditCard?.installmentsQuoteId;
  if (quoteId !== undefined && request.paymentMethod === 'credit_card' && !opts.native) {
    if (count !== undefined && count > settings.installments.maxCount) {
      throw rgError('INSTALLMENTS_NOT_OFFERED', { count, why: `this account offers at most ${settings.installments.maxCount}` });
    }
    return priceQuoted(request, quoteId, opts.quote, count);
  }
  if (count === undefined) return { request };
  const s = settings.installments;
  if (count > s.maxCount) throw rgError('INSTALLMENTS_NOT_OFFERED', { count, why: `this account offers at most ${s.maxCount}` });
  if (opts.native) {
    const plan: InstallmentPlan = { count, installmentAmount: Math.ceil(request.amount / count), totalAmount: request.amount, interestFree: count <= s.interestFreeCount || s.monthlyInterestRate === 0 };
    if (!offerable(plan, 1)) throw rgError('INSTALLMENTS_NOT_OFFERED', { count, why: `${request.amount} cents cannot be split into ${count} installments of at least one cent` });
    return { request, plan };
  }
  const quote = quotePlans(request.amount, s).find((q) => q.count === count);
  if (!quote) {
    throw rgError('INSTALLMENTS_NOT_OFFERED', { count, why: `an installment of ${request.amount} cents in ${count} would be below the account's minimum of ${s.minInstallmentAmount} cents` });
  }
  const plan = asPlan(quote);
  const quoted = request.creditCard?.installmentsTotal;
  if (quoted !== undefined && quoted !== plan.totalAmount) {
    throw rgError('INSTALLMENTS_TOTAL_CHANGED', { count, quoted, total: plan.totalAmount });
  }
  if (plan.totalAmount === request.amount) return { request, plan };
  const priced: NormalizedCharge = { ...request };
  priced.amount = plan.totalAmount;
  return { request: priced, plan };
}

/** Why a gateway cannot charge a plan (its API's documented limits), or undefined when it can. */
export function ruleRefuses(rule: InstallmentRule | undefined, plan: InstallmentPlan, currency: string): string | undefined {
  if (!rule) return 'it charges cards in one payment only';
  if (!rule.currencies.includes(currency)) return `it ${rule.why}`;
  if (plan.count > rule.maxCount) return `it ${rule.why}`;
  if (rule.minInstallmentAmount !== undefined && plan.installmentAmount < rule.minInstallmentAmount) return `it ${rule.why}`;
  return undefined;
}
