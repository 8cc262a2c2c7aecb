import type { Store } from '../store';
import type { SettingsRow } from '../store/accounts';
import type { CredentialVault } from '../accounts/credential-vault';
import { ADAPTERS, tokenIssuer } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { ChargeRequirement, NormalizedCharge } from '../gateways/types';
import { rgError, type ErrorExtra, type ErrorParams, type RouteGateError } from '../errors';
import type { SkipReason } from './outcomes';
import { knownPayer } from './payer';
import { registrablePayer, type RegistrablePayer } from './customer-registration';
import { unmetRequirement } from './requirements';
import { priceCharge, ruleRefuses } from '../installments/charge-plan';
import type { InstallmentPlan } from '../installments/price-table';
import { prepareSplit } from '../splits/prepare';
import { resolveSplitFor, withOwnRecipient, type SplitResolution } from '../splits/resolve';

export interface PlannedAttempt {
  gateway: GatewayId;
  /** The charge as this gateway gets it (a customerId of another gateway is left out). */
  charge: NormalizedCharge;
  /** `error` (with `gateway`) is the answer if no gateway takes the charge and this was the first skip. */
  skip?: { reason: SkipReason; message: string; error: RouteGateError };
  /** The gateway credentials, read once when the charge was routed: later changes affect later requests only. */
  credentials?: Record<string, string>;
  /**
   * The gateway charges registered customers only and the charge names none there: the payer (the inline customer,
   * else the stored one) is registered (or RouteGate's earlier customer for the document reused) when this attempt
   * runs, and the charge sent with that customerId.
   */
  registerPayer?: RegistrablePayer;
}

/** An adapter's unmet ChargeRequirement, as the public error it answers with. */
const REQUIREMENT_ERRORS: Record<ChargeRequirement['reason'], (p: ErrorParams<'MISSING_PAYER_DATA'>, extra: ErrorExtra) => RouteGateError> = {
  RAW_CARD_NOT_ACCEPTED: (p, extra) => rgError('RAW_CARD_NOT_ACCEPTED', p, extra),
  MISSING_PAYER_DATA: (p, extra) => rgError('MISSING_PAYER_DATA', p, extra),
  AUTHENTICATION_REQUIRED: (p, extra) => rgError('AUTHENTICATION_REQUIRED', p, extra),
};

/** Pix and boleto are Brazilian rails: BRL only, whatever else the gateway takes for cards. */
function chargesCurrency(currencies: readonly string[], method: NormalizedCharge['paymentMethod'], currency: string): boolean {
  if (method === 'pix' || method === 'boleto') return currency === 'BRL';
  return currencies.includes(currency);
}

export interface AttemptPlan {
  first: GatewayId;
  attempts: PlannedAttempt[];
  /** What every attempt charges: the request's amount, or its installment plan's total (src/installments/charge-plan.ts). */
  amount: number;
  /** A card charge in installments: the plan, the same on every gateway. */
  installments?: InstallmentPlan;
}

/**
 * The quoting gateway's attempt charges the plan as that gateway's own (its interest, its issuer's plan), the way its
 * API takes one: `price`, the price with the count (the gateway adds its interest); `total`, the total with the
 * interest stated. Every other gateway is sent the total, the merchant financing the interest (docs/installments.md).
 */
function ownPlan(charge: NormalizedCharge, how: 'price' | 'total' | undefined, quote: NonNullable<ReturnType<typeof priceCharge>['quote']>, plan: InstallmentPlan): void {
  if (!how || !charge.creditCard) return;
  const gatewayPlan: NonNullable<NonNullable<NormalizedCharge['creditCard']>['gatewayPlan']> = { price: quote.price, total: plan.totalAmount, interest: plan.totalAmount - quote.price };
  if (quote.issuerId) gatewayPlan.issuerId = quote.issuerId;
  charge.creditCard = { ...charge.creditCard, gatewayPlan };
  if (how === 'price') charge.amount = quote.price;
}

/**
 * The gateway named in the request, else the primary, then the fallbacks in order. Decided here, before
 * any network call: capabilities, credentials, and what may not leave the gateway that issued it
 * (card tokens, saved payment methods, customers, split recipient ids).
 */
export async function planAttempts(
  store: Store, vault: CredentialVault, accountId: string, settings: SettingsRow, asked: NormalizedCharge, opts: { compatGateway?: GatewayId } = {},
): Promise<AttemptPlan> {
  // The plan (and so the total) is fixed before any gateway is chosen: a fallback never changes what the buyer pays.
  const quoteId = asked.paymentMethod === 'credit_card' ? asked.creditCard?.installmentsQuoteId : undefined;
  const storedQuote = quoteId === undefined || opts.compatGateway !== undefined ? undefined : await store.installmentQuotes.get(accountId, quoteId);
  const { request, plan: installments, quote } = priceCharge(settings, asked, { native: opts.compatGateway !== undefined, quote: storedQuote });
  const named = request.gateway === undefined ? undefined : resolveGatewayId(request.gateway);
  const first = named ?? (settings.primaryGateway as GatewayId | null) ?? undefined;
  if (!first) {
    throw rgError('NO_GATEWAY');
  }
  const order = [first, ...(settings.gatewayFallbacks as GatewayId[]).filter((g) => g !== first)];
  const customerOwner = request.customerId
    ? (((await store.customers.byExternalId(accountId, request.customerId))?.gateway as GatewayId | undefined) ?? first)
    : undefined;
  const token = request.creditCard?.token || request.creditCard?.paymentMethodId;
  const hasToken = !!token;
  // A token belongs to the gateway that issued it: the one its native prefix names, else (a native payload) the
  // compat gateway, else the first choice. A native payload's token is charged at its home even when the account
  // does not list it (a native client's own payment-method id, primary elsewhere); a normalized request keeps to its list.
  const tokenHome = (token && (tokenIssuer(token) ?? opts.compatGateway)) || first;
  if (hasToken && opts.compatGateway && !named && !order.includes(tokenHome)) order.push(tokenHome);
  // Checked once (400 before anything is routed); resolved for each gateway below. Raw recipient ids belong to
  // the first choice, like card tokens (DESIGN.md's portability rule).
  const split = await prepareSplit(store, vault, accountId, request, first);
  const payer = await knownPayer(store, accountId, request);
  const stored = new Map(await Promise.all(order.map(async (g) => [g, await vault.reveal(accountId, g)] as const)));

  const attempts = order.map((gateway): PlannedAttempt => {
    const adapter = ADAPTERS[gateway];
    // The spread last, then the gateway set (as in the charges route: docs/performance.md, eighteenth round).
    const charge: NormalizedCharge = { gateway, ...request };
    charge.gateway = gateway;
    if (!split) delete charge.split; // nothing to split (none asked, or only the merchant's own share)
    if (customerOwner && customerOwner !== gateway) delete charge.customerId;
    if (!charge.customer && payer?.name) charge.customer = payer; // the stored customer, for gateways that want the payer inline
    const capability = adapter.capabilities[request.paymentMethod].charge;
    const skip = (reason: SkipReason, error: RouteGateError): PlannedAttempt => ({ gateway, charge, skip: { reason, message: error.message, error } });
    const extra = { gateway };
    const method = request.paymentMethod;
    if (capability === 'unsupported') return skip('GATEWAY_UNSUPPORTED_OPERATION', rgError('METHOD_UNSUPPORTED', { gateway, method }, extra));
    if (!chargesCurrency(adapter.currencies, request.paymentMethod, request.currency)) {
      return skip('CURRENCY_NOT_SUPPORTED', rgError('CURRENCY_NOT_SUPPORTED', { gateway, method: method.replace('_', ' '), currency: request.currency }, extra));
    }
    if (installments) {
      const why = ruleRefuses(adapter.installments, installments, request.currency);
      if (why) return skip('INSTALLMENTS_UNSUPPORTED', rgError('INSTALLMENTS_UNSUPPORTED', { gateway, count: installments.count, currency: request.currency, why }, extra));
    }
    if (installments && quote?.gateway === gateway) ownPlan(charge, adapter.installments?.quotedPlan, quote, installments);
    if (hasToken && gateway !== tokenHome) {
      return skip('CARD_TOKEN_NOT_PORTABLE', rgError('CARD_TOKEN_NOT_PORTABLE', { owner: tokenHome, gateway }, extra));
    }
    let resolution: Extract<SplitResolution, { split: unknown }> | undefined;
    if (split) {
      const r = resolveSplitFor(split, gateway);
      if ('skip' in r) return skip(r.skip.reason, r.skip.error);
      resolution = r;
    }
    let registerPayer: RegistrablePayer | undefined;
    if (typeof capability === 'object' && capability.needs === 'customerId' && !charge.customerId) {
      // Registered when the attempt runs (src/charges/orchestrator.ts), if the payer has what a customer needs.
      registerPayer = adapter.capabilities.customer === 'unsupported' ? undefined : registrablePayer(charge.customer);
      if (!registerPayer) return skip('GATEWAY_UNSUPPORTED_OPERATION', rgError('CUSTOMER_ID_REQUIRED', { gateway }, extra));
    }
    if (typeof capability === 'object' && capability.needs === 'customer' && !charge.customer) {
      return skip('GATEWAY_UNSUPPORTED_OPERATION', rgError('CUSTOMER_REQUIRED', { gateway }, extra));
    }
    const unmet = unmetRequirement(adapter.requirements, charge, payer, settings);
    if (unmet) return skip(unmet.reason, REQUIREMENT_ERRORS[unmet.reason]({ gateway, why: unmet.why, field: unmet.field }, extra));
    const credentials = stored.get(gateway);
    if (!credentials) return skip('MISSING_CREDENTIALS', rgError('MISSING_CREDENTIALS', { gateway }, extra));
    if (resolution) {
      const own = withOwnRecipient(resolution, gateway, credentials);
      if ('skip' in own) return skip(own.skip.reason, own.skip.error);
      charge.resolvedSplit = own.split;
    }
    return registerPayer ? { gateway, charge, credentials, registerPayer } : { gateway, charge, credentials };
  });
  return installments ? { first, attempts, amount: request.amount, installments } : { first, attempts, amount: request.amount };
}
