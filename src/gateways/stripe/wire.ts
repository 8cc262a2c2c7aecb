/** The Stripe API version the stripe mappings are written for (shared/gateways/stripe.md). */
export const STRIPE_API_VERSION = '2026-07-29.dahlia';
/** The deployment setting that overrides it; the emulator answers unpinned calls as an account default. */
export const API_VERSION_SETTING = 'ROUTEGATE_STRIPE_API_VERSION';
