import type { FastifyInstance } from 'fastify';
import type { EventService } from './events';

const errors = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 403: { $ref: 'error-envelope#' }, 404: { $ref: 'error-envelope#' } };
const idParams = { type: 'object', properties: { id: { type: 'string' } } };

/** The merchant's events: thin handlers over EventService (which the dashboard's events pages use too). */
export async function eventRoutes(app: FastifyInstance, opts: { events: EventService }): Promise<void> {
  const { events } = opts;

  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/events', {
    schema: { tags: ['events'], summary: 'Events RouteGate received from the gateways, newest first (cursor pagination)', querystring: { $ref: 'event-list-query#' }, response: { 200: { $ref: 'event-list-response#' }, ...errors } },
  }, async (request) => {
    const limit = Number(request.query.limit ?? 20);
    const page = await events.list(request.account.id, limit, request.query.cursor);
    return { success: true, data: page.events, pagination: { limit, nextCursor: page.nextCursor } };
  });

  app.get<{ Params: { id: string } }>('/events/:id', {
    schema: { tags: ['events'], summary: 'One event, as forwarded, with its deliveries and every attempt (status, duration, error)', params: idParams, response: { 200: { $ref: 'event-response#' }, ...errors } },
  }, async (request) => ({ success: true, data: await events.get(request.account.id, request.params.id) }));

  app.post<{ Params: { id: string } }>('/events/:id/redeliver', {
    schema: { tags: ['events'], summary: 'Send the event to webhookForwardUrl again now (a new delivery, retried like any other)', params: idParams, response: { 200: { $ref: 'redelivery-response#' }, ...errors } },
  }, async (request) => ({ success: true, data: await events.redeliver(request.account.id, request.params.id) }));
}
