import type { Store } from '../store';
import type { SettingsRow } from '../store/accounts';
import type { CredentialVault } from '../accounts/credential-vault';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { NormalizedCharge } from '../gateways/types';
import { validationError } from '../errors';
import type { SkipReason } from './outcomes';
import { knownPayer } from './payer';
import { unmetRequirement } from './requirements';

export interface PlannedAttempt {
  gateway: GatewayId;
  /** The charge as this gateway gets it (a customerId of another gateway is left out). */
  charge: NormalizedCharge;
  skip?: { reason: SkipReason; message: string };
  /** The gateway credentials, read once when the charge was routed: later changes affect later requests only. */
  credentials?: Record<string, string>;
}

/** Pix and boleto are Brazilian rails: BRL only, whatever else the gateway takes for cards. */
function chargesCurrency(currencies: readonly string[], method: NormalizedCharge['paymentMethod'], currency: string): boolean {
  if (method === 'pix' || method === 'boleto') return currency === 'BRL';
  return currencies.includes(currency);
}

export interface AttemptPlan {
  first: GatewayId;
  attempts: PlannedAttempt[];
}

/**
 * The gateway named in the request, else the primary, then the fallbacks in order. Decided here, before
 * any network call: capabilities, credentials, and what may not leave the gateway that issued it
 * (card tokens, saved payment methods, customers, split recipient ids).
 */
export function planAttempts(store: Store, vault: CredentialVault, accountId: string, settings: SettingsRow, request: NormalizedCharge): AttemptPlan {
  const named = request.gateway === undefined ? undefined : resolveGatewayId(request.gateway);
  const first = named ?? (settings.primaryGateway as GatewayId | null) ?? undefined;
  if (!first) {
    throw validationError('No gateway to charge: send "gateway" or set primaryGateway with PATCH /api/v1/clients/settings', [
      { field: 'gateway', message: 'is required when the account has no primaryGateway' },
    ]);
  }
  const order = [first, ...(settings.gatewayFallbacks as GatewayId[]).filter((g) => g !== first)];
  const customerOwner = request.customerId
    ? ((store.customers.byExternalId(accountId, request.customerId)?.gateway as GatewayId | undefined) ?? first)
    : undefined;
  const hasToken = !!(request.creditCard?.token || request.creditCard?.paymentMethodId);
  const hasRecipientId = (request as { split?: Array<{ recipient_id?: string }> }).split?.some((s) => s.recipient_id) ?? false;
  const payer = knownPayer(store, accountId, request);

  const attempts = order.map((gateway): PlannedAttempt => {
    const adapter = ADAPTERS[gateway];
    const charge: NormalizedCharge = { ...request, gateway };
    if (customerOwner && customerOwner !== gateway) delete charge.customerId;
    if (!charge.customer && payer?.name) charge.customer = payer; // the stored customer, for gateways that want the payer inline
    const capability = adapter.capabilities[request.paymentMethod].charge;
    const skip = (reason: SkipReason, message: string): PlannedAttempt => ({ gateway, charge, skip: { reason, message } });
    if (capability === 'unsupported') return skip('GATEWAY_UNSUPPORTED_OPERATION', `${gateway} does not support ${request.paymentMethod} charges`);
    if (!chargesCurrency(adapter.currencies, request.paymentMethod, request.currency)) {
      return skip('CURRENCY_NOT_SUPPORTED', `${gateway} cannot charge ${request.paymentMethod.replace('_', ' ')} in ${request.currency}`);
    }
    if (hasToken && gateway !== first) {
      return skip('CARD_TOKEN_NOT_PORTABLE', `the card token belongs to ${first} and cannot be charged on ${gateway}`);
    }
    if (hasRecipientId && gateway !== first) {
      return skip('SPLIT_RECIPIENT_UNAVAILABLE', `split recipient ids belong to ${first} and are unknown to ${gateway}`);
    }
    if (typeof capability === 'object' && capability.needs === 'customerId' && !charge.customerId) {
      return skip('GATEWAY_UNSUPPORTED_OPERATION', `${gateway} needs a customer on every charge: create one with POST /api/v1/customers (gateway ${gateway}) and send its externalId as customerId`);
    }
    if (typeof capability === 'object' && capability.needs === 'customer' && !charge.customer) {
      return skip('GATEWAY_UNSUPPORTED_OPERATION', `${gateway} needs the buyer on every charge: send customer (name, email, document)`);
    }
    const unmet = unmetRequirement(gateway, adapter.requirements, charge, payer, settings);
    if (unmet) return skip(unmet.reason, unmet.message);
    const credentials = vault.reveal(accountId, gateway);
    if (!credentials) {
      return skip('MISSING_CREDENTIALS', `No ${gateway} credentials stored for this account: store them with POST /api/v1/credentials`);
    }
    return { gateway, charge, credentials };
  });
  return { first, attempts };
}
