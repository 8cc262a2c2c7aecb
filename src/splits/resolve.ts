import type { GatewayId } from '../gateways/registry-ids';
import type { AppliedSplitItem, ResolvedSplit, SplitCapability } from '../gateways/types';
import { rgError, type RouteGateError } from '../errors';
import type { SkipReason } from '../charges/outcomes';
import type { PreparedSplit } from './prepare';
import { splitCapability } from './recipients';

export type SplitResolution =
  | { split: ResolvedSplit; capability: SplitCapability }
  | { skip: { reason: SkipReason; error: RouteGateError } };

const OPTION_NAMES = { chargeProcessingFee: 'chargeProcessingFee', liable: 'liable' } as const;

/**
 * The split as `gateway` would apply it, decided before any network call on every attempt: each coproducer
 * becomes its recipient there, a raw recipient_id stays on the gateway it was given for. Anything the gateway
 * cannot take skips it (SPLIT_RECIPIENT_UNAVAILABLE for a missing recipient, GATEWAY_UNSUPPORTED_OPERATION for
 * what the gateway cannot do): a split charge is never sent without its split.
 */
export function resolveSplitFor(prepared: PreparedSplit, gateway: GatewayId): SplitResolution {
  const extra = { gateway };
  const capability = splitCapability(gateway);
  if (!capability) return { skip: { reason: 'GATEWAY_UNSUPPORTED_OPERATION', error: rgError('SPLIT_UNSUPPORTED', { gateway }, extra) } };
  const count = prepared.items.length;
  if (capability.maxRecipients !== undefined && count > capability.maxRecipients) {
    return { skip: { reason: 'GATEWAY_UNSUPPORTED_OPERATION', error: rgError('SPLIT_TOO_MANY_RECIPIENTS', { gateway, max: capability.maxRecipients, count }, extra) } };
  }
  for (const option of Object.values(OPTION_NAMES)) {
    if (prepared.items.some((i) => i[option]) && !capability.options.includes(option)) {
      return { skip: { reason: 'GATEWAY_UNSUPPORTED_OPERATION', error: rgError('SPLIT_OPTION_UNSUPPORTED', { gateway, option }, extra) } };
    }
  }
  const items: ResolvedSplit['items'] = [];
  for (const item of prepared.items) {
    let recipientId: string | undefined;
    if (item.coproducer) {
      recipientId = item.coproducer.recipients[gateway];
      if (!recipientId) {
        const error = rgError('SPLIT_COPRODUCER_UNAVAILABLE', { email: item.coproducer.email, gateway, id: item.coproducer.id }, extra);
        return { skip: { reason: 'SPLIT_RECIPIENT_UNAVAILABLE', error } };
      }
    } else if (item.owner !== gateway) {
      return { skip: { reason: 'SPLIT_RECIPIENT_UNAVAILABLE', error: rgError('SPLIT_RECIPIENT_UNAVAILABLE', { owner: item.owner, gateway }, extra) } };
    } else {
      recipientId = item.recipientId!;
    }
    items.push({
      recipientId, type: item.type, amount: item.amount, chargeProcessingFee: item.chargeProcessingFee, liable: item.liable,
      ...(item.percentage !== undefined ? { percentage: item.percentage } : {}),
      ...(item.coproducer ? { coproducerEmail: item.coproducer.email } : {}),
    });
  }
  return { split: { items, remainder: prepared.remainder }, capability };
}

/**
 * Where the gateway's split names the merchant too, the account's own recipient from the gateway credentials read
 * for this attempt; without it the gateway is skipped (its rules must cover the whole payment).
 */
export function withOwnRecipient(
  resolution: { split: ResolvedSplit; capability: SplitCapability }, gateway: GatewayId, credentials: Record<string, string>,
): { split: ResolvedSplit } | { skip: { reason: SkipReason; error: RouteGateError } } {
  const field = resolution.capability.ownRecipientCredential;
  if (!field) return { split: resolution.split };
  const own = credentials[field];
  if (!own) return { skip: { reason: 'SPLIT_RECIPIENT_UNAVAILABLE', error: rgError('SPLIT_OWN_RECIPIENT_MISSING', { gateway, field }, { gateway }) } };
  return { split: { ...resolution.split, ownRecipientId: own } };
}

/** The split as the charge row stores it and the API shows it: resolved recipient ids and cents. */
export function appliedSplit(split: ResolvedSplit): AppliedSplitItem[] {
  return split.items.map((i) => ({
    type: i.type, recipient_id: i.recipientId,
    ...(i.coproducerEmail ? { coproducerEmail: i.coproducerEmail } : {}),
    ...(i.percentage !== undefined ? { percentage: i.percentage } : {}),
    amount: i.amount, chargeProcessingFee: i.chargeProcessingFee, liable: i.liable,
  }));
}
