import { HOUR_MS, MINUTE_MS, dateTime, randomId, randomUuid, type EmulatorCore, type Json, type WebhookEvent, type Webhooks } from '../../sandbox/core';

// Asaas webhooks (shared/gateways/asaas.md section 7): POST to the webhook configured in the panel or with
// POST /v3/webhooks (here: POST /__control/webhooks), body `{id: "evt_...", event, dateCreated, account, payment}`.
// No signature: the authToken configured with the webhook travels verbatim in `asaas-access-token`.

interface Snapshot { status: string; deleted: boolean; refunds: number; chargeback: string | null }

/**
 * Only HTTP 200 counts (201, 204, 3xx and timeouts are failures). Attempt 1 at once, then 30 s, 1 min, 3.5 min, 5 min,
 * 15 min, 25 min, 1 h five times, 2 h twice, 3 h: after the 15th failure Asaas pauses the queue (`interrupted`).
 */
const CONVENTION = {
  retries: [30_000, MINUTE_MS, 3.5 * MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, 25 * MINUTE_MS, HOUR_MS, HOUR_MS, HOUR_MS, HOUR_MS, HOUR_MS, 2 * HOUR_MS, 2 * HOUR_MS, 3 * HOUR_MS],
  delivered: (status: number) => status === 200,
  timeoutMs: 30_000,
};

/** Status -> the event Asaas sends when a payment reaches it. */
const STATUS_EVENTS: Record<string, string> = {
  AUTHORIZED: 'PAYMENT_AUTHORIZED',
  CONFIRMED: 'PAYMENT_CONFIRMED',
  RECEIVED: 'PAYMENT_RECEIVED',
  OVERDUE: 'PAYMENT_OVERDUE',
  CHARGEBACK_REQUESTED: 'PAYMENT_CHARGEBACK_REQUESTED',
  CHARGEBACK_DISPUTE: 'PAYMENT_CHARGEBACK_DISPUTE',
  AWAITING_CHARGEBACK_REVERSAL: 'PAYMENT_AWAITING_CHARGEBACK_REVERSAL',
};

export function asaasWebhooks(core: EmulatorCore, payments: Map<string, Json>): Webhooks {
  const account = { id: randomUuid(), ownerId: null };
  return core.webhooks<Snapshot>({
    convention: CONVENTION,
    snapshot(id) {
      const p = payments.get(id);
      return p && { status: p.status, deleted: Boolean(p.deleted), refunds: (p.refunds ?? []).length, chargeback: p.chargeback?.status ?? null };
    },
    events({ id, before, after }) {
      const payment = payments.get(id)!;
      const names: string[] = [];
      if (!before) names.push('PAYMENT_CREATED');
      if (before?.status !== after.status && STATUS_EVENTS[after.status]) names.push(STATUS_EVENTS[after.status]);
      if (after.refunds > (before?.refunds ?? 0)) names.push(after.status === 'REFUNDED' ? 'PAYMENT_REFUNDED' : 'PAYMENT_PARTIALLY_REFUNDED');
      if (after.deleted && !before?.deleted) names.push('PAYMENT_DELETED');
      // A chargeback's outcome that leaves the payment's status as it was (lost) is told by the generic update.
      if (before && before.status === after.status && before.chargeback !== after.chargeback && after.chargeback) names.push('PAYMENT_UPDATED');
      return names.map((event) => asaasEvent(account, event, payment));
    },
  });
}

function asaasEvent(account: Json, event: string, payment: Json): WebhookEvent {
  // The id joins a hash and a sequence with "&", as Asaas' do.
  const body = JSON.stringify({
    id: `evt_${randomId('', 32, '0123456789abcdef')}&${randomId('', 9, '0123456789')}`, event, dateCreated: dateTime(), account,
    payment,
  });
  return {
    event,
    resource: payment.id,
    render({ secret }) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (secret) headers['asaas-access-token'] = secret;
      return { headers, body };
    },
  };
}
