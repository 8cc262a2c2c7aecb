import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { HOUR_MS, MINUTE_MS, hmacSha256Hex, randomId, type EmulatorCore, type Json, type WebhookEvent, type Webhooks } from '../../sandbox/core';
import type { StoredCharge } from './emulator-shapes';

// Pagar.me v5 webhooks (shared/gateways/pagarme.md section 7): one event per POST to the URL configured in the
// Dashboard (here: POST /__control/webhooks), `{id: "hook_...", account, type, created_at, data}` where data is the
// order (order.*) or the charge with its order (charge.*).
//
// Signatures, two:
// - `X-Webhook-Asymmetric-Signature: alg=RS256; kid=<kid>; signature=<base64url>`: what current Pagar.me v5 sends
//   (RSASSA-PKCS1-v1_5 + SHA-256 over the raw body), checked against the JWKS, which the emulator serves at
//   GET /pagarme/.well-known/jwks.json (Pagar.me: https://hubapi.pagar.me/.well-known/jwks.json).
// - `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed with the webhook secret: SPEC.md's scheme
//   (the v5 docs do not document it), sent so a receiver that holds only a webhookSecret can check the emulator.

interface Snapshot { status: string; tx: string; canceled: number }

/** "attempts 3/3" on the hook object; the intervals are not published (chosen here: 5 minutes, then 1 hour). */
const CONVENTION = { retries: [5 * MINUTE_MS, HOUR_MS], timeoutMs: 30_000 };

export interface PagarmeRender {
  charge(orderId: string): StoredCharge | undefined;
  order(orderId: string): Json;
  chargeView(charge: StoredCharge): Json;
}

export function pagarmeWebhooks(core: EmulatorCore, render: PagarmeRender): Webhooks {
  const account = { id: randomId('acc_', 16), name: 'RouteGate Sandbox' };
  return core.webhooks<Snapshot>({
    convention: CONVENTION,
    snapshot(orderId) {
      const charge = render.charge(orderId);
      return charge && { status: charge.status, tx: charge.last_transaction?.status ?? '', canceled: charge.canceled_amount };
    },
    events({ id, before, after }) {
      const charge = render.charge(id)!;
      const out: WebhookEvent[] = [];
      const add = (type: string) => out.push(pagarmeEvent(account, type, id, type.startsWith('order.') ? render.order(id) : render.chargeView(charge)));
      if (!before) add('order.created');
      if (before?.status !== after.status) {
        if (after.status === 'paid') add('charge.paid'), add('order.paid');
        if (after.status === 'failed') add('charge.payment_failed'), add('order.payment_failed');
        if (after.status === 'chargedback') add('charge.chargedback');
      }
      const refunded = charge.paid_amount > 0 && after.canceled > (before?.canceled ?? 0);
      if (refunded) add(after.status === 'canceled' ? 'charge.refunded' : 'charge.partial_canceled');
      if (after.status === 'canceled' && before?.status !== 'canceled') add('order.canceled');
      return out;
    },
  });
}

function pagarmeEvent(account: Json, type: string, resource: string, data: Json): WebhookEvent {
  const body = JSON.stringify({ id: randomId('hook_', 16), account, type, created_at: new Date().toISOString().slice(0, 19), data });
  return {
    event: type,
    resource,
    render({ secret }) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-webhook-asymmetric-signature': `alg=RS256; kid=${signingKey().kid}; signature=${sign('sha256', Buffer.from(body, 'utf8'), signingKey().privateKey).toString('base64url')}`,
      };
      if (secret) headers['x-hub-signature'] = `sha256=${hmacSha256Hex(secret, body)}`;
      return { headers, body };
    },
  };
}

// One RSA key per process, made on first use: generating one costs tens of milliseconds, and most emulator
// servers never send a Pagar.me webhook.
let key: { kid: string; privateKey: KeyObject; publicKey: KeyObject } | undefined;
function signingKey() {
  if (!key) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    key = { kid: randomId('', 16, '0123456789abcdef'), ...pair };
  }
  return key;
}

/** The JWKS a receiver verifies X-Webhook-Asymmetric-Signature with. */
export function pagarmeJwks(): Json {
  const k = signingKey();
  return { keys: [{ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, use: 'sig', alg: 'RS256' }] };
}
