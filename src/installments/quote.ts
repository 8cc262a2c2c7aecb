import type { GatewayId } from '../gateways/registry-ids';
import type { InstallmentRule } from '../gateways/types';
import { ruleRefuses } from './charge-plan';
import { quotePlans, type InstallmentQuote, type InstallmentSettings } from './price-table';

export interface QuoteAnswer {
  amount: number;
  gateway: GatewayId | null;
  source: 'settings' | 'gateway';
  /** From a gateway's quote, monthlyInterestRate is null where the gateway states no monthly rate. */
  plans: Array<Omit<InstallmentQuote, 'monthlyInterestRate'> & { monthlyInterestRate: number | null }>;
  /** A gateway's quote: the stored quote a charge names (creditCard.installmentsQuoteId), and until when. */
  quoteId?: string;
  expiresAt?: string;
}

/**
 * The account's plans for `amount` (BRL card charges); for a gateway, only those it can charge: a plan it would be
 * skipped for is not shown, so what the buyer picks is what that gateway (or a fallback) charges.
 */
export function quoteFor(settings: InstallmentSettings, amount: number, gateway?: { id: GatewayId; rule: InstallmentRule | undefined }): QuoteAnswer {
  let plans = quotePlans(amount, settings);
  if (gateway) plans = plans.filter((p) => p.count === 1 || ruleRefuses(gateway.rule, p, 'BRL') === undefined);
  return { amount, gateway: gateway?.id ?? null, source: 'settings', plans };
}
