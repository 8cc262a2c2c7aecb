export const GATEWAY_IDS = ['stripe', 'pagarme', 'asaas', 'mercadopago', 'pagbank'] as const;
export type GatewayId = (typeof GATEWAY_IDS)[number];

// SPEC.md uses neutral labels; DESIGN.md says every input place accepts them and `pagseguro`.
const ALIASES: Record<string, GatewayId> = {
  gateway_1: 'stripe',
  gateway_2: 'pagarme',
  gateway_3: 'asaas',
  gateway_4: 'mercadopago',
  gateway_5: 'pagbank',
  pagseguro: 'pagbank',
};

export const GATEWAY_ALIASES = Object.keys(ALIASES);
export const GATEWAY_INPUT_IDS: string[] = [...GATEWAY_IDS, ...GATEWAY_ALIASES];

/** Canonical id for any accepted spelling, or undefined. */
export function resolveGatewayId(value: unknown): GatewayId | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  if ((GATEWAY_IDS as readonly string[]).includes(v)) return v as GatewayId;
  return ALIASES[v];
}
