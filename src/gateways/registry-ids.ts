export const GATEWAY_IDS = ['stripe', 'pagarme', 'asaas', 'mercadopago', 'pagbank'] as const;
export type GatewayId = (typeof GATEWAY_IDS)[number];

// SPEC.md uses neutral labels; DESIGN.md says every input place accepts them and `pagseguro`.
const ALIASES = new Map<string, GatewayId>([
  ['gateway_1', 'stripe'],
  ['gateway_2', 'pagarme'],
  ['gateway_3', 'asaas'],
  ['gateway_4', 'mercadopago'],
  ['gateway_5', 'pagbank'],
  ['pagseguro', 'pagbank'],
]);

export const GATEWAY_ALIASES = [...ALIASES.keys()];
export const GATEWAY_INPUT_IDS: string[] = [...GATEWAY_IDS, ...GATEWAY_ALIASES];

// A Map, not an object literal: client input such as `__proto__` or `constructor` must find nothing.
const INPUT_IDS = new Map<string, GatewayId>([...GATEWAY_IDS.map((id) => [id, id] as const), ...ALIASES]);

/** Canonical id for any accepted spelling, or undefined. */
export function resolveGatewayId(value: unknown): GatewayId | undefined {
  if (typeof value !== 'string') return undefined;
  return INPUT_IDS.get(value.trim().toLowerCase());
}
