import { rgError } from '../errors';
import type { NormalizedCharge } from '../gateways/types';
import type { InstallmentQuoteRecord } from '../store/installment-quotes';
import type { InstallmentPlan } from './price-table';

/** A charge naming a gateway's quote, as priceCharge decides it: the request every gateway gets, and the plan. */
export interface QuotedCharge {
  request: NormalizedCharge;
  plan?: InstallmentPlan;
  /** The quote's gateway and the plan's issuer: that gateway is sent the plan as its own (src/charges/router.ts). */
  quote?: { gateway: string; price: number; issuerId?: string };
}

/**
 * The plan of a gateway's stored quote for the charge's count (docs/installments.md, "Charging a gateway's quote").
 * Everything is checked here, before any gateway is tried: the quote is the account's and still fresh, the charge is
 * for the price quoted, the count is one the quote has, and a stated installmentsTotal is the plan's. The request's
 * amount becomes the plan's total: what a fallback is sent, so the buyer pays the quoted total whichever gateway takes it.
 */
export function priceQuoted(request: NormalizedCharge, quoteId: string, quote: InstallmentQuoteRecord | undefined, count: number | undefined, now = Date.now()): QuotedCharge {
  if (!quote) throw rgError('INSTALLMENTS_QUOTE_UNKNOWN', { quoteId });
  if (Date.parse(quote.expiresAt) <= now) throw rgError('INSTALLMENTS_QUOTE_EXPIRED', { quoteId, expiresAt: quote.expiresAt });
  if (request.amount !== quote.amount) throw rgError('INSTALLMENTS_QUOTE_AMOUNT', { quoteId, amount: request.amount, quoted: quote.amount });
  if (count === undefined) return { request }; // one payment: the price, as any charge
  const quoted = quote.plans.find((p) => p.count === count);
  if (!quoted) throw rgError('INSTALLMENTS_QUOTE_COUNT', { quoteId, count, counts: quote.plans.map((p) => p.count).join(', ') || 'none' });
  const stated = request.creditCard?.installmentsTotal;
  if (stated !== undefined && stated !== quoted.totalAmount) throw rgError('INSTALLMENTS_TOTAL_CHANGED', { count, quoted: stated, total: quoted.totalAmount });
  const plan: InstallmentPlan = { count, installmentAmount: quoted.installmentAmount, totalAmount: quoted.totalAmount, interestFree: quoted.interestFree, quoteId: quote.id };
  const priced: NormalizedCharge = { ...request };
  priced.amount = quoted.totalAmount;
  const own: QuotedCharge['quote'] = { gateway: quote.gateway, price: quote.amount };
  if (quoted.issuerId) own.issuerId = quoted.issuerId;
  return { request: priced, plan, quote: own };
}
