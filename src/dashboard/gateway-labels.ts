import { GATEWAYS } from '../gateways/registry';

/** Gateway ids with their human names, from the registry (no page names a gateway itself). */
export const GATEWAY_CHOICES = GATEWAYS.map((g) => ({ value: g.id, label: g.name }));

export function gatewayName(id: string | null | undefined): string {
  if (!id) return '';
  return GATEWAYS.find((g) => g.id === id)?.name ?? id;
}
