import { createPublicKey, verify as rsaVerify, type KeyObject } from 'node:crypto';
import { headerValue, hmacHex, parsePairs, safeEqual } from '../../lib/signatures';
import { invalid, stringAt, UNCONFIGURED, verified, type GatewayWebhook, type WebhookKeys, type WebhookRequest, type WebhookVerdict } from '../webhook';

// Two schemes (DESIGN.md, shared/gateways/pagarme.md section 7):
// - SPEC.md's HMAC-SHA256 of the raw body in `x-hub-signature`, `sha256=<hex>` or bare hex, keyed with webhookSecret;
// - v5's `X-Webhook-Asymmetric-Signature: alg=RS256; kid=<key id>; signature=<base64url>`, RSASSA-PKCS1-v1_5 +
//   SHA-256 over the raw body, when the account stores webhookPublicKey (a PEM public key, a JWKS document, or the
//   https URL of one such as https://hubapi.pagar.me/.well-known/jwks.json).
// Every header the account can check must verify, and at least one must be there. Events carry `id` (hook_...).

// Where a JWKS URL may point: Pagar.me's own host, or wherever the operator points RouteGate at Pagar.me
// (ROUTEGATE_PAGARME_URL: the emulators in the sandbox). Never a host a merchant picks: a stored credential must not
// turn the receiver into a probe of the network.
const PAGARME_JWKS_ORIGIN = 'https://hubapi.pagar.me';

function jwksUrlAllowed(raw: string, gatewayOrigin: string): boolean {
  try {
    const origin = new URL(raw).origin;
    return origin === PAGARME_JWKS_ORIGIN || origin === gatewayOrigin;
  } catch {
    return false;
  }
}

async function publicKeys(source: string, keys: WebhookKeys, kid: string | undefined): Promise<Map<string | undefined, KeyObject>> {
  const text = source.trim();
  if (text.startsWith('-----BEGIN')) return new Map([[undefined, createPublicKey(text)]]);
  const isUrl = /^https?:\/\//.test(text);
  if (isUrl && !jwksUrlAllowed(text, keys.gatewayOrigin)) throw new Error('not a Pagar.me URL');
  const jwks = (isUrl ? await keys.fetchJson(text, { refreshFor: kid }) : JSON.parse(text)) as { keys?: Array<Record<string, unknown>> };
  const out = new Map<string | undefined, KeyObject>();
  for (const jwk of jwks.keys ?? []) {
    if (jwk.kty !== 'RSA') continue;
    out.set(typeof jwk.kid === 'string' ? jwk.kid : undefined, createPublicKey({ key: jwk as never, format: 'jwk' }));
  }
  return out;
}

async function checkAsymmetric(req: WebhookRequest, header: string, source: string, keys: WebhookKeys): Promise<WebhookVerdict> {
  const fields = new Map(parsePairs(header, ';'));
  if (fields.get('alg') !== 'RS256') return invalid('X-Webhook-Asymmetric-Signature alg is not RS256');
  const signature = fields.get('signature');
  if (!signature) return invalid('X-Webhook-Asymmetric-Signature has no signature');
  const kid = fields.get('kid');
  let known: Map<string | undefined, KeyObject>;
  try {
    known = await publicKeys(source, keys, kid);
  } catch {
    // Nothing about why (a refused host, a connection error, a TLS error) reaches the sender: the 401 is generic.
    return invalid('the signature could not be checked');
  }
  // A PEM key has no kid: it checks whatever kid the header names.
  const key = known.get(kid) ?? known.get(undefined);
  if (!key) return invalid('X-Webhook-Asymmetric-Signature names no known key');
  const ok = rsaVerify('sha256', req.rawBody, key, Buffer.from(signature, 'base64url'));
  return ok ? verified('rs256') : invalid('X-Webhook-Asymmetric-Signature does not match the body');
}

function checkHmac(req: WebhookRequest, header: string, secret: string): WebhookVerdict {
  const hex = header.replace(/^sha256=/i, '').toLowerCase();
  return safeEqual(hex, hmacHex(secret, req.rawBody)) ? verified('x-hub-signature') : invalid('x-hub-signature does not match the body');
}

export const pagarmeWebhook: GatewayWebhook = {
  async verify(req, keys) {
    const secret = keys.credentials.webhookSecret;
    const keySource = keys.credentials.webhookPublicKey;
    if (!secret && !keySource) return UNCONFIGURED;
    const hub = headerValue(req.headers, 'x-hub-signature');
    const asymmetric = headerValue(req.headers, 'x-webhook-asymmetric-signature');
    const verdicts: WebhookVerdict[] = [];
    if (asymmetric && keySource) verdicts.push(await checkAsymmetric(req, asymmetric, keySource, keys));
    if (hub && secret) verdicts.push(checkHmac(req, hub, secret));
    if (verdicts.length === 0) return invalid(`no ${[keySource && 'X-Webhook-Asymmetric-Signature', secret && 'x-hub-signature'].filter(Boolean).join(' or ')} header`);
    return verdicts.find((v) => v.result === 'invalid') ?? verdicts[0];
  },
  eventId: (req) => stringAt(req.body, 'id'),
};
