import { newDeliveryId } from './ids';
import type { Store } from '../store';
import type { DeliveryRecord } from '../store/deliveries';
import type { WebhookEventRecord } from '../store/webhook-events';
import { rgError } from '../errors';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { ChargeLocks } from '../charges/charge-locks';
import { RETRY_FOR_MS } from './backoff';
import type { Forwarder } from './forwarder';
import type { RouteGateEvent } from './event';

export interface DeliveryView {
  id: string;
  status: DeliveryRecord['status'];
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  attempts: Array<{ attempt: number; outcome: 'delivered' | 'failed'; statusCode: number | null; durationMs: number; error: string | null; at: string }>;
}

export interface EventSummary {
  id: string;
  type: string;
  gateway: string;
  createdAt: string;
  chargeId: string | null;
  /** The latest delivery's status; null when the event was never forwarded. */
  delivery: DeliveryRecord['status'] | null;
  verified: boolean | null;
  /** Why a verified event was neither applied nor forwarded (it disagrees with its charge); null: nothing to flag. */
  flag: string | null;
}

export type EventDetail = Omit<RouteGateEvent, 'verified'> & { verified: boolean | null; flag: string | null; deliveries: DeliveryView[] };

/**
 * The account's events and their deliveries: what GET /api/v1/events, GET /events/:id and POST /events/:id/redeliver
 * answer, and what the dashboard's events pages show and do. Every read is by account: another account's event is
 * EVENT_NOT_FOUND.
 */
export class EventService {
  constructor(private readonly store: Store, private readonly forwarder: Forwarder, private readonly now: () => number) {}

  /** Newest first, `limit` at a time; `cursor` is the previous page's nextCursor. */
  async list(accountId: string, limit: number, cursor?: string): Promise<{ events: EventSummary[]; nextCursor: string | null }> {
    const rows = await this.store.webhookEvents.list(accountId, limit + 1, cursor ? decodeCursor(cursor) : undefined);
    const page = rows.slice(0, limit);
    return {
      events: await Promise.all(page.map((e) => this.summary(e))),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }

  /** The event as forwarded, whether its signature was checked, and every delivery with every attempt. */
  async get(accountId: string, id: string): Promise<EventDetail> {
    const e = await this.find(accountId, id);
    return { ...(JSON.parse(e.payload) as RouteGateEvent), verified: e.verified, flag: e.flag ?? null, deliveries: await Promise.all((await this.store.deliveries.forEvent(e.id)).map((d) => this.deliveryView(d))) };
  }

  /** A new delivery of the event to the account's webhookForwardUrl, attempted now; retried like any other after. */
  async redeliver(accountId: string, id: string): Promise<{ eventId: string; delivery: DeliveryView }> {
    const e = await this.find(accountId, id);
    if (!(await this.store.accounts.settings(accountId)).webhookForwardUrl) throw rgError('NO_FORWARD_URL');
    const deliveryId = newDeliveryId();
    const owner = ChargeLocks.newOwner();
    const now = this.now();
    await this.store.deliveries.insert({ id: deliveryId, eventId: e.id, accountId, nextAttemptAt: now, giveUpAt: now + RETRY_FOR_MS }, { owner, expiresAt: now + this.forwarder.leaseMs });
    await this.forwarder.attempt(deliveryId, owner);
    return { eventId: e.id, delivery: await this.deliveryView((await this.store.deliveries.get(deliveryId))!) };
  }

  private async find(accountId: string, id: string): Promise<WebhookEventRecord> {
    const e = await this.store.webhookEvents.get(accountId, id);
    if (!e) throw rgError('EVENT_NOT_FOUND', { id });
    return e;
  }

  private async summary(e: WebhookEventRecord): Promise<EventSummary> {
    return {
      id: e.id, type: e.type, gateway: e.gateway, createdAt: e.createdAt, chargeId: e.chargeId,
      delivery: (await this.store.deliveries.forEvent(e.id)).at(-1)?.status ?? null, verified: e.verified, flag: e.flag ?? null,
    };
  }

  private async deliveryView(d: DeliveryRecord): Promise<DeliveryView> {
    return {
      id: d.id, status: d.status, attemptCount: d.attempts, nextAttemptAt: d.status === 'pending' ? new Date(d.nextAttemptAt).toISOString() : null, createdAt: d.createdAt,
      attempts: (await this.store.deliveries.attempts(d.id)).map((a) => ({
        attempt: a.attempt, outcome: a.outcome, statusCode: a.statusCode, durationMs: a.durationMs, error: a.error, at: a.createdAt,
      })),
    };
  }
}
