import type { WireSettings } from './types';

// Where SPEC.md and a real gateway API disagree on the wire, the wire follows the real API and SPEC.md's
// variant is one setting away (DESIGN.md). Read from the environment once, by src/config.ts for the service
// and by the emulators, so both sides of the wire follow the same setting.

/** The Stripe API version the stripe mappings are written for (shared/gateways/stripe.md). */
export const STRIPE_API_VERSION = '2026-07-29.dahlia';

export const DEFAULT_WIRE: WireSettings = { pagbankAmountUnit: 'cents', stripeApiVersion: STRIPE_API_VERSION };

export class WireSettingError extends Error {}

/** ROUTEGATE_PAGBANK_AMOUNT_UNIT and ROUTEGATE_STRIPE_API_VERSION; a bad value throws naming the variable. */
export function parseWireSettings(env: Record<string, string | undefined>): WireSettings {
  const unit = env.ROUTEGATE_PAGBANK_AMOUNT_UNIT?.trim() || DEFAULT_WIRE.pagbankAmountUnit;
  if (unit !== 'cents' && unit !== 'reais') {
    throw new WireSettingError(`ROUTEGATE_PAGBANK_AMOUNT_UNIT must be cents or reais, got "${unit}"`);
  }
  const version = env.ROUTEGATE_STRIPE_API_VERSION?.trim() || DEFAULT_WIRE.stripeApiVersion;
  if (!/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(version)) {
    throw new WireSettingError(`ROUTEGATE_STRIPE_API_VERSION must look like 2026-07-29.dahlia, got "${version}"`);
  }
  return { pagbankAmountUnit: unit, stripeApiVersion: version };
}
