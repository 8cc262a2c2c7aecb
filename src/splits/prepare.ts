import type { Store } from '../store';
import type { CoproducerRecord } from '../store/coproducers';
import type { CredentialVault } from '../accounts/credential-vault';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';
import type { NormalizedCharge } from '../gateways/types';
import { fieldSummary, rgError, type FieldError } from '../errors';
import { recipientIdProblem, splitCapability } from './recipients';

/** One split item checked and priced in cents, before it is resolved for a gateway. */
export interface PreparedSplitItem {
  index: number;
  type: 'percentage' | 'fixed';
  percentage?: number;
  /** cents */
  amount: number;
  /** A raw recipient_id, with the gateway it was given for. */
  recipientId?: string;
  owner?: GatewayId;
  coproducer?: CoproducerRecord;
  chargeProcessingFee: boolean;
  liable: boolean;
}

export interface PreparedSplit {
  items: PreparedSplitItem[];
  /** Cents that stay with the merchant. */
  remainder: number;
}

/**
 * RouteGate's rounding, the same on every gateway: a percentage item gets floor(amount x percent / 100) cents,
 * computed in whole numbers (percents have at most two decimals, so amount x hundredths / 10000); what rounding
 * leaves over stays with the merchant, with everything no item takes.
 */
export function percentageCents(amount: number, percentage: number): number {
  return Math.floor((amount * Math.round(percentage * 100)) / 10000);
}

const hasTwoDecimalsAtMost = (n: number) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6;

/** The account's own recipients at the gateways whose splits name the merchant too (from the stored credentials). */
async function ownRecipients(vault: CredentialVault, accountId: string): Promise<Set<string>> {
  const own = new Set<string>();
  for (const gateway of GATEWAY_IDS) {
    const field = splitCapability(gateway)?.ownRecipientCredential;
    const value = field ? (await vault.reveal(accountId, gateway))?.[field] : undefined;
    if (value) own.add(value);
  }
  return own;
}

/**
 * The request's split, checked before anything is routed (400 naming every problem): exactly one recipient form
 * per item, percentages in (0, 100] with at most two decimals summing to at most 100, fixed amounts whole cents
 * summing below the charge amount, every item worth at least a cent, the whole no more than the charge, no
 * recipient twice, coproducers known by e-mail, raw recipient ids in the format of `owner` (the gateway they are
 * given for). An item naming the account's own recipient (a native split that lists the merchant, as the gateways
 * whose rules cover the whole payment do) is the merchant's share: left out, it stays in the remainder.
 */
export async function prepareSplit(store: Store, vault: CredentialVault, accountId: string, request: NormalizedCharge, owner: GatewayId): Promise<PreparedSplit | undefined> {
  const split = request.split;
  if (!split || split.length === 0) return undefined;
  const errors: FieldError[] = [];
  const own = split.some((s) => s.recipient_id) ? await ownRecipients(vault, accountId) : new Set<string>();
  const items: PreparedSplitItem[] = [];
  const seen = new Map<string, number>();
  for (const [index, s] of split.entries()) {
    const field = `split.${index}`;
    const type = s.type === 'percentage' ? 'percentage' : 'fixed';
    if (s.recipient_id !== undefined && own.has(s.recipient_id)) continue;
    if (type === 'percentage' && !(s.amount > 0 && s.amount <= 100 && hasTwoDecimalsAtMost(s.amount))) {
      errors.push({ field: `${field}.amount`, message: 'must be a percentage greater than 0 and at most 100, with at most two decimals' });
      continue;
    }
    if (type === 'fixed' && !(Number.isInteger(s.amount) && s.amount >= 1)) {
      errors.push({ field: `${field}.amount`, message: 'must be whole cents, at least 1, for a fixed item' });
      continue;
    }
    const item: PreparedSplitItem = {
      index, type, amount: type === 'percentage' ? percentageCents(request.amount, s.amount) : s.amount,
      chargeProcessingFee: s.chargeProcessingFee === true, liable: s.liable === true,
    };
    if (type === 'percentage') item.percentage = s.amount;
    if (item.amount < 1) errors.push({ field: `${field}.amount`, message: `comes to less than one cent of ${request.amount} (RouteGate rounds percentages down)` });
    if (s.coproducerEmail !== undefined) {
      item.coproducer = await store.coproducers.byEmail(accountId, s.coproducerEmail);
      if (!item.coproducer) {
        errors.push({ field: `${field}.coproducerEmail`, message: `${s.coproducerEmail} is not a coproducer of this account (create it with POST /api/v1/coproducers)` });
      }
    } else if (s.recipient_id !== undefined) {
      const problem = recipientIdProblem(owner, s.recipient_id);
      if (problem) errors.push({ field: `${field}.recipient_id`, message: `${problem}: ${owner} is the gateway it is given for` });
      item.recipientId = s.recipient_id;
      item.owner = owner;
    }
    const who = item.coproducer ? `coproducer:${item.coproducer.id}` : `recipient:${s.recipient_id}`;
    const first = seen.get(who);
    if (first !== undefined) errors.push({ field, message: `names the same recipient as split.${first}` });
    else seen.set(who, index);
    items.push(item);
  }
  const percent = items.filter((i) => i.type === 'percentage').reduce((sum, i) => sum + Math.round(i.percentage! * 100), 0) / 100;
  const fixed = items.filter((i) => i.type === 'fixed').reduce((sum, i) => sum + i.amount, 0);
  const total = items.reduce((sum, i) => sum + i.amount, 0);
  if (percent > 100) errors.push({ field: 'split', message: `percentages add up to ${percent}, more than 100` });
  if (fixed >= request.amount) errors.push({ field: 'split', message: `fixed amounts add up to ${fixed} cents: they must stay below the charge amount (${request.amount})` });
  else if (percent <= 100 && total > request.amount) {
    errors.push({ field: 'split', message: `items come to ${total} cents, more than the charge amount (${request.amount})` });
  }
  if (errors.length) throw rgError('INVALID_REQUEST', { fields: fieldSummary(errors) }, { details: { errors } });
  return items.length ? { items, remainder: request.amount - total } : undefined;
}
