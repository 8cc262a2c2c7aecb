import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rgError } from '../errors';
import type { WebhookProcessor } from './processor';

/** Receivers take at most 1 MiB: no gateway notification comes near it. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

const errors = { 401: { $ref: 'error-envelope#' }, 404: { $ref: 'error-envelope#' } };

function flatQuery(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === 'string') out[k] = first;
  }
  return out;
}

/**
 * POST /api/v1/webhooks/:gateway/:token (the per-account URL) and /api/v1/webhooks/:gateway (the account comes from
 * the event's charge). No x-api-key: the gateway's signature is the authentication. Their own context, with the
 * body kept as bytes whatever its content type, because signatures cover the exact bytes.
 */
export async function webhookReceiverRoutes(app: FastifyInstance, opts: { processor: WebhookProcessor }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  const receive = async (request: FastifyRequest<{ Params: { gateway: string; token?: string } }>) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const outcome = await opts.processor.receive({
      gateway: request.params.gateway, token: request.params.token, rawBody, headers: request.headers, query: flatQuery(request.query),
    });
    if (outcome.kind === 'ignored') return { success: true, data: { received: true, ignored: outcome.reason } };
    // The gateway retries what it did not get a 2xx for: that is what it must do while the backend is down (a gateway
    // acknowledged on store never gets here: its outcome is never `delivered: false`).
    if (outcome.delivered === false) throw rgError('WEBHOOK_NOT_DELIVERED', { id: outcome.eventId, reason: outcome.error ?? 'no answer' });
    return {
      success: true,
      data: { received: true, eventId: outcome.eventId, type: outcome.type, duplicate: outcome.duplicate, forwarded: outcome.delivered === true, ...(outcome.queued ? { queued: true } : {}) },
    };
  };

  const schema = (summary: string, token: boolean) => ({
    tags: ['webhooks'], summary,
    params: {
      type: 'object', required: token ? ['gateway', 'token'] : ['gateway'],
      properties: { gateway: { type: 'string', description: 'a gateway id (or an accepted alias)' }, ...(token ? { token: { type: 'string', description: "the account's webhookToken (wh_...)" } } : {}) },
    },
    response: { 200: { $ref: 'webhook-receipt#' }, ...errors },
  });
  app.post('/:gateway/:token', { schema: schema("A gateway's notification for the account whose webhookToken is in the URL", true) }, receive);
  app.post('/:gateway', { schema: schema("A gateway's notification; the account is found from the event's charge", false) }, receive);
}
