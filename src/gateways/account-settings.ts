import { GATEWAYS } from './registry';

/** Every account setting the gateways declare for themselves (descriptor.accountSettings), with its default. */
export function gatewaySettingDefaults(): Record<string, unknown> {
  return Object.fromEntries(GATEWAYS.flatMap((g) => Object.entries(g.accountSettings ?? {}).map(([name, spec]) => [name, spec.default])));
}

/** The names of those settings. */
export function gatewaySettingNames(): string[] {
  return Object.keys(gatewaySettingDefaults());
}
