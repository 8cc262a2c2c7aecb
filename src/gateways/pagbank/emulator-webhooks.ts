import { HOUR_MS, MINUTE_MS, sha256Hex, type EmulatorCore, type Json, type Webhooks } from '../../sandbox/core';
import type { StoredCharge, StoredOrder } from './emulator-shapes';

// PagBank notifications (shared/gateways/pagbank.md section 7): no dashboard subscription; every order carrying
// `notification_urls` gets a POST to each URL whenever one of its charges changes status. The body is the same
// JSON as the API answer: the ORDER (created, paid through the order) or the CHARGE when a charge-level call
// (capture, cancel/refund) changed it; no event envelope. Authenticity: `x-authenticity-token` = hex SHA-256 of
// "<account token>-<raw body>", the account token being the one the order was created with (Authorization: Bearer).
// PagBank sends no Authorization header and no HMAC. An order without notification_urls goes to the URL
// registered through POST /__control/webhooks, if any (a test convenience; PagBank has no such setting).

/** Retries are not published (at-least-once); chosen here: 1 min, 5 min, 15 min, 1 h, 6 h. */
const CONVENTION = { retries: [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 6 * HOUR_MS], timeoutMs: 30_000 };

export interface PagbankViews {
  order(id: string): StoredOrder | undefined;
  charge(id: string): StoredCharge | undefined;
  renderOrder(order: StoredOrder, base: string): Json;
  renderCharge(charge: StoredCharge): Json;
}

/** `changed(orderId, chargeId?)`: chargeId when a charge-level call made the change (the body is then the charge). */
export function pagbankWebhooks(core: EmulatorCore, views: PagbankViews): Webhooks<string> & { created(orderId: string, origin: { token: string; base: string }): void } {
  // The token and public base URL each order was created with: the signature and the links in the body need them.
  const { origins } = core.state({ origins: new Map<string, { token: string; base: string }>() });
  const webhooks = core.webhooks<Array<[string, string, number, number]>, string>({
    convention: CONVENTION,
    snapshot(id) {
      const order = views.order(id);
      return order && order.chargeIds.map((c) => views.charge(c)!).map((c) => [c.id, c.status, c.paid, c.refunded]);
    },
    urls: (id) => views.order(id)?.notification_urls ?? [],
    secret: (id) => origins.get(id)?.token,
    events({ id, after, context }) {
      if (after.length === 0) return []; // a pix order nobody paid has no charge yet: nothing changed status
      const order = views.order(id)!;
      const charge = context ? views.charge(context) : undefined;
      const data = charge ? views.renderCharge(charge) : views.renderOrder(order, origins.get(id)?.base ?? '');
      const body = JSON.stringify(data);
      const status = charge ? charge.status : after.map(([, s]) => s).join(',');
      return [{
        event: `${charge ? 'charge' : 'order'} ${status}`,
        resource: charge ? charge.id : id,
        render({ secret }) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (secret) headers['x-authenticity-token'] = sha256Hex(`${secret}-${body}`);
          return { headers, body };
        },
      }];
    },
  });
  return {
    changed: webhooks.changed,
    created(orderId, origin) {
      origins.set(orderId, origin);
      webhooks.changed(orderId);
    },
  };
}
