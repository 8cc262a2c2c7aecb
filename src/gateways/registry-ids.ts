import { GATEWAYS, GATEWAY_IDS } from './registry';

import type { GatewayId } from './types';

export type { GatewayId };

export { GATEWAY_IDS };

// A Map, not an object literal: client input such as `__proto__` or `constructor` must find nothing.
// DESIGN.md: every input place also accepts SPEC.md's neutral labels and the gateways' other names.
const INPUT_IDS = new Map<string, GatewayId>(GATEWAYS.flatMap((g) => [[g.id, g.id] as const, ...g.aliases.map((a) => [a, g.id] as const)]));

export const GATEWAY_ALIASES: readonly string[] = GATEWAYS.flatMap((g) => g.aliases);
export const GATEWAY_INPUT_IDS: string[] = [...INPUT_IDS.keys()];

/** Canonical id for any accepted spelling, or undefined. */
export function resolveGatewayId(value: unknown): GatewayId | undefined {
  if (typeof value !== 'string') return undefined;
  return INPUT_IDS.get(value.trim().toLowerCase());
}
