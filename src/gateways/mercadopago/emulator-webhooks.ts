import { HOUR_MS, MINUTE_MS, hmacSha256Hex, isoSeconds, randomDigits, randomUuid, type EmulatorCore, type Json, type Webhooks } from '../../sandbox/core';

// Mercado Pago webhooks (shared/gateways/mercadopago.md section 7), "Webhooks" style: to the payment's
// notification_url when it carried one (it takes priority), else to the URL configured in "Suas integrações"
// (here: POST /__control/webhooks). `?data.id=<id>&type=payment` is appended to the URL; the body only names the
// payment (`{action, api_version, data: {id}, date_created, id, live_mode, type, user_id}`): receivers GET it.
// `x-signature: ts=<ms>,v1=<hex HMAC-SHA256 of "id:<data.id>;request-id:<x-request-id>;ts:<ts>;">`, data.id
// lowercased as the docs say (payment ids are digits anyway). Every retry is re-signed: new ts, new x-request-id,
// new notification id, and X-Retry counts the retries.
// (Mercado Pago's own test credentials send no notifications; the emulator sends them so receivers can be tested.)

interface Snapshot { status: string; detail: string; refunded: number; refundsInProcess: number; refundsRejected: number }

/** 200 or 201 within 22 s; then 15 min, 30 min, 6 h, 48 h and 96 h three times (8 attempts in all). */
const CONVENTION = {
  retries: [15 * MINUTE_MS, 30 * MINUTE_MS, 6 * HOUR_MS, 48 * HOUR_MS, 96 * HOUR_MS, 96 * HOUR_MS, 96 * HOUR_MS],
  delivered: (status: number) => status === 200 || status === 201,
  timeoutMs: 22_000,
};

export function mercadopagoWebhooks(core: EmulatorCore, payments: Map<string, Json>): Webhooks {
  const userId = Number(randomDigits(10).replace(/^0/, '1')); // the seller's user id
  return core.webhooks<Snapshot>({
    convention: CONVENTION,
    snapshot(id) {
      const p = payments.get(id);
      // A refund held in process, and its end (approved or rejected), change the payment too: MP notifies them.
      return p && {
        status: p.status, detail: p.status_detail, refunded: p.transaction_amount_refunded,
        refundsInProcess: p.refunds.filter((r: Json) => r.status === 'in_process').length, refundsRejected: p.refunds.filter((r: Json) => r.status === 'rejected').length,
      };
    },
    urls: (id) => (payments.get(id)?.notification_url ? [payments.get(id)!.notification_url] : []),
    events({ id, before }) {
      const action = before ? 'payment.updated' : 'payment.created';
      return [{
        event: action,
        resource: id,
        render({ attempt, secret }) {
          const body = JSON.stringify({
            action, api_version: 'v1', data: { id }, date_created: isoSeconds(), id: randomDigits(12), live_mode: false, type: 'payment', user_id: userId,
          });
          const requestId = randomUuid();
          const headers: Record<string, string> = {
            'content-type': 'application/json', 'user-agent': 'MercadoPago Feed v2.0 payment', 'x-request-id': requestId,
            'x-retry': String(attempt), 'x-socket-timeout': '22000',
          };
          if (secret) {
            const ts = String(Date.now());
            headers['x-signature'] = `ts=${ts},v1=${hmacSha256Hex(secret, `id:${id.toLowerCase()};request-id:${requestId};ts:${ts};`)}`;
          }
          return { headers, body, query: `data.id=${encodeURIComponent(id)}&type=payment` };
        },
      }];
    },
  });
}
