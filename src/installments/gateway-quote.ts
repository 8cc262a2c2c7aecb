import { randomUUID } from 'node:crypto';
import { rgError } from '../errors';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import { GatewayFailure, type GatewayQuotedPlan } from '../gateways/types';
import { callContext, type GatewayDeps } from '../charges/gateway-deps';
import { toPublicError } from '../charges/outcomes';
import { ruleRefuses } from './charge-plan';
import { offerable, type InstallmentSettings } from './price-table';
import type { QuoteAnswer } from './quote';
import type { InstallmentQuoteRecord, QuotedPlanRecord } from '../store/installment-quotes';

/**
 * How long a charge can name a gateway's quote: the gateway's rates are the issuer's and the seller's contract and
 * may change, so a quote is charged only while it is fresh (a checkout's span), then the buyer is quoted again.
 */
export const QUOTE_LIFETIME_MS = 30 * 60_000;

/** A gateway that prices plans itself (its adapter has a quote call): a quote with a card's bin asks it. */
export const quotesNatively = (gateway: GatewayId): boolean => ADAPTERS[gateway].quoteInstallments !== undefined;

const wholeCents = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/**
 * The gateway's own plans for `amount` and the card (docs/installments.md, "Gateway quotes"), asked with the
 * account's stored credentials. The plans are the gateway's, to the cent; the account's settings only choose
 * which are shown (counts up to maxCount, installments at least minInstallmentAmount, within the gateway's charge
 * rule), as for a quote computed from settings. No credentials, or a gateway error, is the error envelope: never a
 * quote from settings in its place, since a buyer shown settings' plans as the gateway's would be charged others.
 */
export async function gatewayQuote(deps: GatewayDeps, accountId: string, settings: InstallmentSettings, amount: number, gateway: GatewayId, bin: string): Promise<QuoteAnswer> {
  const adapter = ADAPTERS[gateway];
  const id = `quote_${randomUUID()}`;
  const ctx = await callContext(deps, accountId, gateway, id, id, Date.now() + deps.requestDeadlineMs);
  if (!ctx) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
  let quoted: GatewayQuotedPlan[];
  try {
    quoted = await adapter.quoteInstallments!(ctx, { amount, bin, maxCount: settings.maxCount, interestFreeCount: settings.interestFreeCount });
    const bad = quoted.find((p) => !Number.isInteger(p.count) || p.count < 1 || !wholeCents(p.installmentAmount) || !wholeCents(p.totalAmount) || typeof p.interestFree !== 'boolean');
    if (bad) throw new GatewayFailure('bad_response', gateway, `${gateway} quoted a plan RouteGate cannot read: ${JSON.stringify(bad)}`);
  } catch (err) {
    throw toPublicError(err, gateway);
  }
  if (quoted.length === 0) throw rgError('INSTALLMENTS_NO_GATEWAY_PLANS', { gateway, bin }, { gateway });
  const shown = quoted
    .filter((p) => p.count <= settings.maxCount && offerable(p, settings.minInstallmentAmount) && (p.count === 1 || ruleRefuses(adapter.installments, p, 'BRL') === undefined))
    .sort((a, b) => a.count - b.count);
  const plans = shown.map((p) => ({ count: p.count, installmentAmount: p.installmentAmount, totalAmount: p.totalAmount, interestFree: p.interestFree, monthlyInterestRate: p.monthlyInterestRate }));
  // Stored as shown, so a charge naming the quote is charged exactly a plan the buyer could have been shown.
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + QUOTE_LIFETIME_MS).toISOString();
  const stored: InstallmentQuoteRecord = {
    id: `iq_${randomUUID().replace(/-/g, '')}`, accountId, amount, gateway, bin, createdAt: createdAt.toISOString(), expiresAt,
    plans: shown.map((p) => {
      const plan: QuotedPlanRecord = { count: p.count, installmentAmount: p.installmentAmount, totalAmount: p.totalAmount, interestFree: p.interestFree };
      if (typeof p.issuerId === 'string' && p.issuerId) plan.issuerId = p.issuerId;
      return plan;
    }),
  };
  await deps.store.writeOne((r) => r.installmentQuotes.insert(stored));
  return { amount, gateway, source: 'gateway', plans, quoteId: stored.id, expiresAt };
}
