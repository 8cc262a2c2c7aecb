import { anyEqual, headerValue, hmacHex, parsePairs } from '../../lib/signatures';
import { invalid, stringAt, UNCONFIGURED, verified, type GatewayWebhook } from '../webhook';

// Stripe-Signature (shared/gateways/stripe.md section 7): `t=<unix s>,v1=<hex>[,v1=...][,v0=...]`, the HMAC-SHA256
// of `<t>.<raw body>` keyed with the whole whsec_... string. Several v1 values come during a secret rotation
// (accept any); v0 and other schemes are ignored. SPEC.md's 5-minute anti-replay window, both ways.
const TOLERANCE_S = 300;

export const stripeWebhook: GatewayWebhook = {
  verify(req, keys) {
    const secret = keys.credentials.webhookSecret;
    if (!secret) return UNCONFIGURED;
    const header = headerValue(req.headers, 'stripe-signature');
    if (!header) return invalid('no Stripe-Signature header');
    const pairs = parsePairs(header);
    const t = pairs.find(([k]) => k === 't')?.[1];
    const signatures = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
    if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return invalid('Stripe-Signature has no t= timestamp or no v1= signature');
    if (!anyEqual(signatures, hmacHex(secret, `${t}.`, req.rawBody))) return invalid('no v1 signature matches the payload');
    if (Math.abs(keys.now / 1000 - Number(t)) > TOLERANCE_S) return invalid('timestamp outside the 5-minute tolerance');
    return verified('stripe-signature');
  },
  eventId: (req) => stringAt(req.body, 'id'),
};
