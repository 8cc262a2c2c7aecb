import { hmacBase64, hmacHex } from '../lib/signatures';

/**
 * The headers of a forwarded event, signed with every secret that signs now (two during a rotation's overlap):
 * - `X-RG-Signature: t=<unix s>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 of `<t>.<body>`, keyed with the whole `whsec_...`
 *   string as UTF-8 (the `t=,v1=` scheme the spec names);
 * - Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`, and
 *   `webhook-signature: v1,<base64> [v1,<base64>]`, HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the base64
 *   part of the secret decoded, so the `standardwebhooks` libraries verify it as they are.
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, timestampS: number, body: string): Record<string, string> {
  const rg = secrets.map((s) => `v1=${hmacHex(s, `${timestampS}.`, body)}`);
  const standard = secrets.map((s) => `v1,${hmacBase64(Buffer.from(s.replace(/^whsec_/, ''), 'base64'), `${eventId}.${timestampS}.`, body)}`);
  return {
    'x-rg-signature': [`t=${timestampS}`, ...rg].join(','),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': standard.join(' '),
  };
}
