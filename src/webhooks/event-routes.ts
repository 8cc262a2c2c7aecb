import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store';
import type { DeliveryRecord } from '../store/deliveries';
import { rgError } from '../errors';
import { decodeCursor, encodeCursor } from '../lib/cursor';
import { ChargeLocks } from '../charges/charge-locks';
import { RETRY_FOR_MS } from './backoff';
import type { Forwarder } from './forwarder';

const errors = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 403: { $ref: 'error-envelope#' }, 404: { $ref: 'error-envelope#' } };

function deliveryView(store: Store, d: DeliveryRecord) {
  return {
    id: d.id, status: d.status, attemptCount: d.attempts, nextAttemptAt: d.status === 'pending' ? new Date(d.nextAttemptAt).toISOString() : null, createdAt: d.createdAt,
    attempts: store.deliveries.attempts(d.id).map((a) => ({
      attempt: a.attempt, outcome: a.outcome, statusCode: a.statusCode, durationMs: a.durationMs, error: a.error, at: a.createdAt,
    })),
  };
}

/** The merchant's events: GET /events (newest first), GET /events/:id with every delivery attempt, POST redeliver. */
export async function eventRoutes(app: FastifyInstance, opts: { store: Store; forwarder: Forwarder; now: () => number }): Promise<void> {
  const { store, forwarder } = opts;

  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/events', {
    schema: { tags: ['events'], summary: 'Events RouteGate received from the gateways, newest first (cursor pagination)', querystring: { $ref: 'event-list-query#' }, response: { 200: { $ref: 'event-list-response#' }, ...errors } },
  }, async (request) => {
    const limit = Number(request.query.limit ?? 20);
    const rows = store.webhookEvents.list(request.account.id, limit + 1, request.query.cursor ? decodeCursor(request.query.cursor) : undefined);
    const page = rows.slice(0, limit);
    return {
      success: true,
      data: page.map((e) => ({
        id: e.id, type: e.type, gateway: e.gateway, createdAt: e.createdAt, chargeId: e.chargeId, delivery: store.deliveries.forEvent(e.id).at(-1)?.status ?? null,
      })),
      pagination: { limit, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null },
    };
  });

  app.get<{ Params: { id: string } }>('/events/:id', {
    schema: { tags: ['events'], summary: 'One event, as forwarded, with its deliveries and every attempt (status, duration, error)', params: { type: 'object', properties: { id: { type: 'string' } } }, response: { 200: { $ref: 'event-response#' }, ...errors } },
  }, async (request) => {
    const e = store.webhookEvents.get(request.account.id, request.params.id);
    if (!e) throw rgError('EVENT_NOT_FOUND', { id: request.params.id });
    return { success: true, data: { ...JSON.parse(e.payload), deliveries: store.deliveries.forEvent(e.id).map((d) => deliveryView(store, d)) } };
  });

  app.post<{ Params: { id: string } }>('/events/:id/redeliver', {
    schema: { tags: ['events'], summary: 'Send the event to webhookForwardUrl again now (a new delivery, retried like any other)', params: { type: 'object', properties: { id: { type: 'string' } } }, response: { 200: { $ref: 'redelivery-response#' }, ...errors } },
  }, async (request) => {
    const accountId = request.account.id;
    const e = store.webhookEvents.get(accountId, request.params.id);
    if (!e) throw rgError('EVENT_NOT_FOUND', { id: request.params.id });
    if (!request.settings.webhookForwardUrl) throw rgError('NO_FORWARD_URL');
    const id = `dlv_${randomUUID().replace(/-/g, '')}`;
    const owner = ChargeLocks.newOwner();
    const now = opts.now();
    store.deliveries.insert({ id, eventId: e.id, accountId, nextAttemptAt: now, giveUpAt: now + RETRY_FOR_MS }, { owner, expiresAt: now + forwarder.leaseMs });
    await forwarder.attempt(id, owner);
    return { success: true, data: { eventId: e.id, delivery: deliveryView(store, store.deliveries.get(id)!) } };
  });
}
