import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store';
import type { DeliveryAttemptRecord, DeliveryRecord } from '../store/deliveries';
import type { WebhookEventRecord } from '../store/webhook-events';
import type { RouteGateEvent } from './event';
import { nowIso } from '../store/db';
import type { SigningSecrets } from './signing-secrets';
import { signatureHeaders } from './signing';
import { retryDelayMs } from './backoff';
import type { SafeHttp } from './safe-http';

export interface ForwarderOptions {
  /** How long the backend has to answer one delivery (the gateway is waiting on the first one). */
  timeoutMs: number;
  /** First retry delay (one minute); it doubles to six hours. */
  retryBaseMs: number;
  now: () => number;
}

export interface AttemptResult { delivered: boolean; attempt?: DeliveryAttemptRecord; delivery?: DeliveryRecord }

/**
 * The bytes to send: the stored event, which says whether it was verified. An event stored before events said so
 * gets it from its row (null, not recorded, goes out as not verified): every forwarded event says it.
 */
export function forwardedBody(event: WebhookEventRecord): string {
  const data = event.payload.indexOf('"data":');
  if (data === -1 || event.payload.lastIndexOf('"verified":', data) !== -1) return event.payload;
  const { data: d, gatewayEvent, ...head } = JSON.parse(event.payload) as RouteGateEvent;
  return JSON.stringify(Object.assign(head, { verified: event.verified === true, verifiedBy: event.verified === true ? 'signature' : null, data: d, gatewayEvent }));
}

/** Told of every attempt's outcome (metrics count them). */
export type DeliveryListener = (outcome: 'delivered' | 'failed' | 'gave_up') => void;

/**
 * One attempt of one delivery, by the holder of its lease: sign the stored event with the account's current secrets,
 * POST it to the account's webhookForwardUrl, record the attempt and where the delivery stands (delivered, due
 * again after the backoff, or given up three days after the event).
 */
export class Forwarder {
  listener: DeliveryListener | undefined;

  constructor(
    private readonly store: Store,
    private readonly secrets: SigningSecrets,
    private readonly http: SafeHttp,
    private readonly log: FastifyBaseLogger,
    readonly options: ForwarderOptions,
  ) {}

  /** The lease a holder takes: long enough for one attempt, short enough that a crashed holder's is soon taken over. */
  get leaseMs(): number {
    return 2 * this.options.timeoutMs + 1_000;
  }

  /**
   * `known`: the delivery and its event as their writer just stored them (the first attempt, holding the lease it
   * wrote them with), so they are not read back; anyone else reads them under the lease it took.
   */
  async attempt(deliveryId: string, owner: string, known?: { delivery: DeliveryRecord; event: WebhookEventRecord }): Promise<AttemptResult> {
    const { store } = this;
    const delivery = known?.delivery ?? await store.deliveries.get(deliveryId);
    if (!delivery || delivery.status !== 'pending') return { delivered: delivery?.status === 'delivered', delivery };
    const event = known?.event ?? await store.webhookEvents.get(delivery.accountId, delivery.eventId);
    const url = (await store.accounts.settings(delivery.accountId)).webhookForwardUrl;
    const number = delivery.attempts + 1;
    let statusCode: number | null = null;
    let error: string | null = null;
    let durationMs = 0;
    if (!event) error = 'the event is gone';
    else if (!url) error = 'no webhookForwardUrl is set for the account';
    else {
      const ts = Math.floor(this.options.now() / 1000);
      const body = forwardedBody(event);
      const headers = signatureHeaders((await this.secrets.signing(delivery.accountId)).secrets, event.id, ts, body);
      // The signature's headers last: none of them is one of these two (and see docs/performance.md, eighteenth round).
      const res = await this.http.post(url, { 'x-rg-event-type': event.type, 'x-rg-delivery-attempt': String(number), ...headers }, body, this.options.timeoutMs);
      statusCode = res.statusCode ?? null;
      error = res.error ?? null;
      durationMs = res.durationMs;
    }
    const delivered = error === null;
    const now = this.options.now();
    const gaveUp = !delivered && now + retryDelayMs(number, this.options.retryBaseMs) > delivery.giveUpAt;
    const attempt: DeliveryAttemptRecord = { attempt: number, outcome: delivered ? 'delivered' : 'failed', statusCode, durationMs, error, createdAt: nowIso() };
    const next = delivered ? { status: 'delivered' as const, nextAttemptAt: now }
      : gaveUp ? { status: 'failed' as const, nextAttemptAt: now }
        : { status: 'pending' as const, nextAttemptAt: now + retryDelayMs(number, this.options.retryBaseMs) };
    // In the turn's group commit on SQLite (its UPDATE and INSERT in one transaction with other writes), one
    // statement on PostgreSQL.
    const recorded = await store.writeOne((tx) => tx.deliveries.finishAttempt(deliveryId, owner, attempt, next));
    if (!recorded) this.log.warn({ deliveryId }, 'webhook delivery lease lost during an attempt; its outcome is not recorded');
    const outcome = delivered ? 'delivered' : gaveUp ? 'gave_up' : 'failed';
    this.listener?.(outcome);
    const logFields = { deliveryId, eventId: delivery.eventId, attempt: number, statusCode, durationMs, outcome };
    if (delivered) this.log.info(logFields, 'webhook delivered');
    else this.log.warn({ ...logFields, reason: error }, gaveUp ? 'webhook delivery given up after three days' : 'webhook delivery failed; will retry');
    const after: DeliveryRecord = recorded ? Object.assign({}, delivery, { status: next.status, attempts: number, nextAttemptAt: next.nextAttemptAt }) : delivery;
    return { delivered, attempt, delivery: after };
  }
}
