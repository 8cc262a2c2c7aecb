import { GATEWAYS } from '../gateways/registry';
import type { GatewayDescriptor } from '../gateways/descriptor';
import type { SettingsRow } from '../store/accounts';

/** Credentials the emulators accept, per gateway (each descriptor's sandboxCredentials). */
export const SANDBOX_CREDENTIALS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze(
  Object.fromEntries(GATEWAYS.map((g) => [g.id, g.sandboxCredentials])),
);

/** A gateway that takes pix and card charges with the buyer inline, nothing to create at it first. */
function readyToCharge(g: GatewayDescriptor): boolean {
  const caps = g.adapter.capabilities;
  return (['pix', 'credit_card'] as const).every((m) => caps[m].charge === 'supported' || (typeof caps[m].charge === 'object' && (caps[m].charge as { needs: string }).needs === 'customer'));
}

/**
 * The demo account's routing, from the registry: the primary is the first registered gateway that charges pix and
 * cards with nothing set up beforehand and no account setting of its own; the fallbacks are the others that need
 * nothing set up first. Each gateway's sandboxAccountSettings apply (e.g. raw card data on the emulated account).
 */
export function demoSettings(current: SettingsRow): SettingsRow {
  const ready = GATEWAYS.filter(readyToCharge);
  const primary = ready.find((g) => !g.accountSettings) ?? ready[0];
  const extra = Object.assign({}, ...GATEWAYS.map((g) => g.sandboxAccountSettings ?? {}));
  return { ...current, ...extra, primaryGateway: primary.id, gatewayFallbacks: ready.filter((g) => g !== primary).map((g) => g.id) };
}
