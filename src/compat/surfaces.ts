import { GATEWAYS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { CompatSurface } from './types';

/** The gateways whose own API RouteGate serves, each with its surface (GatewayDescriptor.compat). */
export const COMPAT_SURFACES: ReadonlyMap<GatewayId, CompatSurface> = new Map(
  GATEWAYS.filter((g) => g.compat).map((g) => [g.id, g.compat!] as const),
);

/** The surface for any accepted spelling of a gateway id, or undefined when that gateway has none. */
export function compatSurface(id: unknown): { gateway: GatewayId; surface: CompatSurface } | undefined {
  const gateway = resolveGatewayId(id);
  const surface = gateway === undefined ? undefined : COMPAT_SURFACES.get(gateway);
  return surface && gateway ? { gateway, surface } : undefined;
}

/** Every root prefix some surface serves (a prefix two gateways share is one route, dispatched by account). */
export function rootPrefixes(): string[] {
  return [...new Set([...COMPAT_SURFACES.values()].flatMap((s) => s.prefixes))].sort();
}

/**
 * The root routes RouteGate registers: each prefix's subtree, and the prefix itself where a surface has a native
 * path there (a resource at the API's first segment, e.g. `POST /orders`).
 */
export function rootRoutes(): string[] {
  const paths = new Set([...COMPAT_SURFACES.values()].flatMap((s) => s.routes.map((r) => r.path)));
  return rootPrefixes().flatMap((p) => (paths.has(p) ? [p, `${p}/*`] : [`${p}/*`]));
}

/** The surfaces that serve a root path, in registry order. */
export function surfacesAt(path: string): GatewayId[] {
  return [...COMPAT_SURFACES].filter(([, s]) => s.prefixes.some((p) => path === p || path.startsWith(`${p}/`))).map(([id]) => id);
}
