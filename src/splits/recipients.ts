import { ADAPTERS, GATEWAYS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import type { SplitCapability } from '../gateways/types';

// Split facts of each gateway, read from its own folder (descriptor.splitRecipient, adapter.split).

/** Why `id` cannot be a split recipient at `gateway` (a sentence ending the field name), or undefined when it can. */
export function recipientIdProblem(gateway: GatewayId, id: string): string | undefined {
  const spec = GATEWAYS.find((g) => g.id === gateway)?.splitRecipient;
  if (!spec) return id.trim() === '' ? 'must not be empty' : undefined;
  return new RegExp(spec.pattern).test(id) ? undefined : `must be ${spec.description}`;
}

/** The gateway's split capability; undefined when it cannot split a payment. */
export function splitCapability(gateway: GatewayId): SplitCapability | undefined {
  return ADAPTERS[gateway]?.split;
}
