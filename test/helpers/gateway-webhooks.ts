import { createHash, createHmac, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';

// Each gateway's notification signed exactly as that gateway signs it (shared/gateways/<id>.md section 7), written
// apart from src/ so the receivers are checked against the schemes, not against themselves.

const hmac = (key: string, msg: string, enc: 'hex' | 'base64' = 'hex') => createHmac('sha256', key).update(msg).digest(enc);

/** Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_ string>. */
export function stripeHeaders(body: string, secret: string, t = Math.floor(Date.now() / 1000), extraV1: string[] = []): Record<string, string> {
  const v1 = [...extraV1, hmac(secret, `${t}.${body}`)].map((s) => `v1=${s}`).join(',');
  return { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': `t=${t},${v1},v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39` };
}

/** Pagar.me (SPEC.md): x-hub-signature = sha256=<hex HMAC-SHA256 of the body> (bare hex also sent by some setups). */
export function pagarmeHeaders(body: string, secret: string, bare = false): Record<string, string> {
  const hex = hmac(secret, body);
  return { 'content-type': 'application/json', 'x-hub-signature': bare ? hex : `sha256=${hex}` };
}

/** A local RSA key standing for Pagar.me's JWKS key (the real one is at hubapi.pagar.me/.well-known/jwks.json). */
export function pagarmeKeyPair(kid = 'pagarme-test-key-1'): { kid: string; privateKey: KeyObject; publicPem: string; jwks: { keys: unknown[] } } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  return { kid, privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), jwks: { keys: [{ ...jwk, kid, use: 'sig', alg: 'RS256' }] } };
}

/** Pagar.me v5: X-Webhook-Asymmetric-Signature: alg=RS256; kid=<kid>; signature=<base64url RSASSA-PKCS1-v1_5 SHA-256 of the body>. */
export function pagarmeAsymmetricHeaders(body: string, key: { kid: string; privateKey: KeyObject }): Record<string, string> {
  const signature = createSign('sha256').update(body).sign(key.privateKey).toString('base64url');
  return { 'content-type': 'application/json', 'x-webhook-asymmetric-signature': `alg=RS256; kid=${key.kid}; signature=${signature}` };
}

/** Asaas: the authToken configured for the webhook, verbatim. */
export function asaasHeaders(token: string): Record<string, string> {
  return { 'content-type': 'application/json', 'asaas-access-token': token };
}

/** Mercado Pago: x-signature ts=<ms>,v1=<hex HMAC of "id:<data.id>;request-id:<x-request-id>;ts:<ts>;">, data.id from the query. */
export function mercadopagoHeaders(dataId: string, secret: string, requestId = 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e', ts = String(Date.now())): Record<string, string> {
  return {
    'content-type': 'application/json', 'x-request-id': requestId, 'x-retry': '0',
    'x-signature': `ts=${ts},v1=${hmac(secret, `id:${dataId};request-id:${requestId};ts:${ts};`)}`,
  };
}

/** PagBank (real): x-authenticity-token = hex SHA-256 of "<api token>-<body>". */
export function pagbankHeaders(body: string, token: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-authenticity-token': createHash('sha256').update(`${token}-${body}`).digest('hex') };
}

/** PagBank (SPEC.md): Authorization: Bearer <webhookSecret>. */
export function pagbankBearerHeaders(secret: string): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
}

// Event bodies in each gateway's shape (the examples of shared/gateways/<id>.md section 7).

export function stripeEvent(id: string, type: string, object: Record<string, unknown>): string {
  // Stripe pretty-prints its bodies; the newlines are part of what it signs.
  return JSON.stringify({ id, object: 'event', api_version: '2026-07-29.dahlia', created: Math.floor(Date.now() / 1000), data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type }, null, 2);
}

export function pagarmeEvent(id: string, type: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id, account: { id: 'acc_jZkdN857et650oNv', name: 'Lojinha' }, type, created_at: '2030-01-01T12:00:05', data });
}

export function asaasEvent(id: string, event: string, payment: Record<string, unknown>): string {
  return JSON.stringify({ id, event, dateCreated: '2030-01-01 16:45:03', account: { id: '0b5f5a3c-1b8e-4c1a-9a53-6f0b8e3c1d2e', ownerId: null }, payment });
}

export function mercadopagoNotification(dataId: string, action = 'payment.updated'): string {
  return JSON.stringify({ action, api_version: 'v1', data: { id: dataId }, date_created: new Date().toISOString(), id: String(Date.now()), live_mode: false, type: 'payment', user_id: 1234567890 });
}
