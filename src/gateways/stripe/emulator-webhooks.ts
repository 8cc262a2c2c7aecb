import { HOUR_MS, hmacSha256Hex, randomId, unixNow, type EmulatorCore, type Json, type WebhookEvent, type Webhooks } from '../../sandbox/core';
import type { State } from './emulator-payment-methods';
import { STRIPE_ACCOUNT_DEFAULT_VERSION } from './emulator-intents';

// Stripe's webhooks (shared/gateways/stripe.md section 7): one Event object per POST to the endpoint registered in
// the Dashboard (here: POST /__control/webhooks), pretty-printed JSON, signed
// `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_ string>`.
// Each attempt is signed anew with its own timestamp; the event (and its id) stays the same across retries.

/** What of a PaymentIntent its events follow: status, which charge is the latest, how much of it was refunded. */
interface Snapshot { status: string; charge: string | null; refunded: number; dispute: string | null }

/** Test mode retries "3 times over a few hours"; any 2xx within ~30 s is delivered. */
const CONVENTION = { retries: [HOUR_MS, 2 * HOUR_MS, 4 * HOUR_MS], timeoutMs: 30_000 };

export function stripeWebhooks(core: EmulatorCore, s: State): Webhooks {
  const chargeOf = (pi: Json): Json | undefined => (pi.latest_charge ? s.charges.get(pi.latest_charge) : undefined);
  return core.webhooks<Snapshot>({
    convention: CONVENTION,
    snapshot(id) {
      const pi = s.intents.get(id);
      if (!pi) return undefined;
      const ch = chargeOf(pi);
      return { status: pi.status, charge: pi.latest_charge ?? null, refunded: ch?.captured ? ch.amount_refunded : 0, dispute: s.disputes.get(id)?.status ?? null };
    },
    events({ id, before, after }) {
      const pi = s.intents.get(id)!;
      const ch = chargeOf(pi);
      const out: WebhookEvent[] = [];
      const add = (type: string, object: Json | undefined) => {
        if (object) out.push(stripeEvent(type, object, id));
      };
      if (before?.status !== after.status || before?.charge !== after.charge) {
        if (after.status === 'requires_action') add('payment_intent.requires_action', pi);
        if (after.status === 'requires_capture') {
          add('charge.succeeded', ch);
          add('payment_intent.amount_capturable_updated', pi);
        }
        if (after.status === 'succeeded') {
          add(before?.status === 'requires_capture' ? 'charge.captured' : 'charge.succeeded', ch);
          add('payment_intent.succeeded', pi);
        }
        // A decline leaves a failed charge; an expired pix/boleto has none.
        if (after.status === 'requires_payment_method' && pi.last_payment_error) {
          if (ch?.status === 'failed' && after.charge !== before?.charge) add('charge.failed', ch);
          add('payment_intent.payment_failed', pi);
        }
        if (after.status === 'canceled') add('payment_intent.canceled', pi);
      }
      if (after.refunded > (before?.refunded ?? 0)) {
        add('charge.refunded', ch);
        add('refund.created', [...s.refunds.values()].filter((r) => r.payment_intent === id).pop());
      }
      const dispute = s.disputes.get(id);
      if (dispute && after.dispute !== (before?.dispute ?? null)) {
        if (!before?.dispute) {
          add('charge.dispute.created', dispute);
          add('charge.dispute.funds_withdrawn', dispute);
        } else if (after.dispute === 'won' || after.dispute === 'lost') {
          if (after.dispute === 'won') add('charge.dispute.funds_reinstated', dispute);
          add('charge.dispute.closed', dispute);
        }
      }
      return out;
    },
  });
}

function stripeEvent(type: string, object: Json, resource: string): WebhookEvent {
  const event = {
    id: randomId('evt_3', 24), object: 'event', api_version: STRIPE_ACCOUNT_DEFAULT_VERSION, created: unixNow(),
    data: { object }, livemode: Boolean(object.livemode), pending_webhooks: 1,
    request: { id: null, idempotency_key: null }, type,
  };
  // Stripe sends the event pretty-printed: the whitespace is part of the signed bytes.
  const body = JSON.stringify(event, null, 2);
  return {
    event: type,
    resource,
    render({ secret }) {
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'cache-control': 'no-cache',
      };
      if (secret) {
        const t = unixNow();
        headers['stripe-signature'] = `t=${t},v1=${hmacSha256Hex(secret, `${t}.${body}`)}`;
      }
      return { headers, body };
    },
  };
}
