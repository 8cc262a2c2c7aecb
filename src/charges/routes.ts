import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveGatewayId } from '../gateways/registry-ids';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { installIdempotency } from '../http/idempotency';
import { storedChargeError, type ChargeResult, type ChargeService, type GatewayDeps } from './orchestrator';
import { envelope } from '../errors';
import { CustomerService, customerView, type CustomerInput } from './customers';
import { chargeView, rgHeaders, shapeCharge } from './response-format';
import type { SchemaValidator } from '../http/schemas';
import { installCompatCreate } from '../compat/api-create';
import { chargeFromBody, type ChargeBody } from './charge-request';

const errors = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 404: { $ref: 'error-envelope#' }, 422: { $ref: 'error-envelope#' }, 502: { $ref: 'error-envelope#' }, 504: { $ref: 'error-envelope#' } };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } };
// Charge answers are serialized by fast-json-stringify from schemas/charge.json, which lists the fields in the order
// response-format.ts writes them: the same bytes as JSON.stringify, written faster (test/charge-serialization.test.ts).
const chargeAnswer = (status: 200 | 201) => ({ [status]: { $ref: 'charge-response#' } });
// responseFormat raw answers the gateway's body as received: its fields are the gateway's, not the normalized
// charge's, so it is not serialized through the charge schema (which would coerce a numeric id to a string).
const asReceived = (payload: unknown) => JSON.stringify(payload);
const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * `{"success":true,"data":{...}}` with `"gatewayResponse":<text>` as the last field of data, where JSON.stringify
 * would have put it (shapeCharge sets it last). The text is valid JSON: it was parsed to be mapped.
 */
export function withGatewayResponse(envelope: string, gatewayText: string): string {
  if (!envelope.endsWith('}}')) throw new Error('a charge answer ends with its data object');
  const empty = envelope.endsWith('{}}');
  return `${envelope.slice(0, -2)}${empty ? '' : ','}"gatewayResponse":${gatewayText.trim()}}}`;
}

/** POST/GET charges, follow-up operations and customers: thin handlers over the services. */
export async function chargeRoutes(app: FastifyInstance, opts: { deps: GatewayDeps; charges: ChargeService; validator: SchemaValidator }): Promise<void> {
  const { deps, charges } = opts;
  const customers = new CustomerService(deps);
  const production = app.config?.production ?? false;
  const compat = installCompatCreate(app, { deps, validator: opts.validator, production });
  // A retried create whose first answer was "being confirmed" (or whose first request died) answers what the
  // charge is now, after one read-only settle attempt, never a stale 504 or a "still processing" for 24 hours.
  installIdempotency(app, deps.store, {
    staleClaimMs: charges.locks.leaseMs,
    // A native create is "the same request" by what the client sent, not by its translation (which reads the clock).
    bodyOf: (request) => (request.compatCreate ? request.compatCreate.nativeBody : request.body),
    async answerFromCharge(request, chargeId) {
      // The retry carries the create's request: where the gateway keeps idempotency keys, settlement may replay it
      // under the create's own key (the same request to the gateway, never a second charge).
      const replay = request.compatCreate ? undefined
        : charges.createReplay(request.account, request.settings, chargeFromBody(request.body as ChargeBody, request.ip), chargeId);
      await charges.reconcile(chargeId, charges.deadline(), replay);
      // Compatibility mode: the same charge, as the compat gateway's native create answers it.
      if (request.compatCreate) return compat.replay(request, chargeId);
      const charge = await deps.store.charges.get(request.account.id, chargeId);
      if (!charge) return undefined;
      const headers = { ...rgHeaders(charge), 'content-type': JSON_UTF8 };
      const err = storedChargeError(charge);
      if (err) return { status: err.statusCode, headers, body: JSON.stringify(envelope(err, production)), settled: charge.status !== 'processing' };
      const body = JSON.stringify({ success: true, data: shapeCharge(request.settings.responseFormat, charge) });
      return { status: 201, headers, body, settled: true };
    },
  });

  // X-RG-* on every charge response, errors included; before a charge exists they name what was asked for.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('x-rg-gateway') && request.url.startsWith('/api/v1/charges')) {
      const body = request.body as { gateway?: string } | undefined;
      const asked = resolveGatewayId(body?.gateway) ?? request.settings?.primaryGateway;
      reply.headers(rgHeaders(undefined, asked));
    }
    return payload;
  });

  const send = (reply: FastifyReply, result: ChargeResult, format: 'full' | 'normalized' | 'raw', status: number, attempts?: unknown[]) => {
    const headers = rgHeaders(result.charge);
    if (result.error) throw result.error.with({ headers });
    // The gateway's body goes into a full answer as the text it came in (its last field): it was parsed once for
    // the mappings and is not serialized again.
    const spliced = format === 'full' && result.rawText !== undefined && !attempts;
    const data = shapeCharge(format, result.charge, spliced ? undefined : result.raw, result.refund);
    if (format === 'raw' && result.raw !== undefined) return reply.code(status).headers(headers).serializer(asReceived).send({ success: true, data });
    // A refreshed read answers like a plain read, with the attempts.
    if (attempts) (data as Record<string, unknown>).attempts = attempts;
    reply.code(status).headers(headers);
    if (spliced) return reply.type(JSON_UTF8).send(withGatewayResponse(String(reply.serialize({ success: true, data })), result.rawText!));
    return reply.send({ success: true, data });
  };
  const formatOf = (request: FastifyRequest) => request.settings.responseFormat;

  app.post<{ Body: ChargeBody }>('/charges', {
    schema: { tags: ['charges'], summary: 'Create a charge (primary gateway, then fallbacks)', body: { $ref: 'charge-request#' }, response: { ...chargeAnswer(201), ...errors } },
  }, async (request, reply) => {
    const { settings } = request;
    const charge = chargeFromBody(request.body, request.ip);
    const compatGateway = request.compatCreate?.gateway;
    const result = await charges.create(request.account, settings, charge, { idempotencyKey: request.idempotencyKey, deadline: charges.deadline(), compatGateway });
    if (compatGateway) return compat.answer(request, reply, result);
    return send(reply, result, settings.responseFormat, 201);
  });

  app.get<{ Querystring: { limit?: string; cursor?: string; status?: string; gateway?: string } }>('/charges', {
    schema: {
      tags: ['charges'], summary: 'List charges, newest first (cursor pagination)', querystring: { $ref: 'charge-list-query#' },
      response: { 200: { $ref: 'charge-list-response#' } },
    },
  }, async (request) => {
    const q = request.query;
    const limit = q.limit ? Number(q.limit) : 20;
    const rows = await deps.store.charges.list(request.account.id, {
      limit: limit + 1, status: q.status, gateway: q.gateway ? resolveGatewayId(q.gateway) : undefined, after: q.cursor ? decodeCursor(q.cursor) : undefined,
    });
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? encodeCursor(page[page.length - 1]) : null;
    return { success: true, data: page.map(chargeView), pagination: { limit, nextCursor } };
  });

  app.get<{ Params: { id: string }; Querystring: { refresh?: string } }>('/charges/:id', {
    schema: { tags: ['charges'], summary: 'A stored charge with its attempts (?refresh=true re-reads it at the gateway)', params: idParams, querystring: { $ref: 'charge-read-query#' }, response: chargeAnswer(200) },
  }, async (request, reply) => {
    const accountId = request.account.id;
    if (request.query.refresh === 'true') {
      const refreshed = await charges.refresh(accountId, request.params.id);
      return send(reply, refreshed, formatOf(request), 200, await deps.store.charges.attempts(refreshed.charge.id));
    }
    const charge = await charges.get(accountId, request.params.id);
    const data: Record<string, unknown> = chargeView(charge);
    data.attempts = await deps.store.charges.attempts(charge.id);
    return reply.headers(rgHeaders(charge)).send({ success: true, data });
  });

  app.post<{ Params: { id: string }; Body: { amount?: number } }>('/charges/:id/capture', {
    schema: { tags: ['charges'], summary: 'Capture a pre-authorization (optionally a smaller amount)', params: idParams, body: { $ref: 'amount-request#' }, response: chargeAnswer(200) },
  }, async (request, reply) => send(reply, await charges.capture(request.account.id, request.params.id, request.body?.amount, { clientKey: request.idempotencyKey }), formatOf(request), 200));

  app.post<{ Params: { id: string } }>('/charges/:id/cancel', {
    schema: { tags: ['charges'], summary: 'Cancel a pre-authorization or a pending charge', params: idParams, response: chargeAnswer(200) },
  }, async (request, reply) => send(reply, await charges.cancel(request.account.id, request.params.id, { clientKey: request.idempotencyKey }), formatOf(request), 200));

  app.post<{ Params: { id: string }; Body: { amount?: number } }>('/charges/:id/refunds', {
    schema: {
      tags: ['charges'], summary: 'Refund all or part of a charge (202 while the gateway holds it in process: docs/charges.md, "Refund lifecycle")',
      params: idParams, body: { $ref: 'amount-request#' }, response: { ...chargeAnswer(201), 202: { $ref: 'charge-response#' } },
    },
  }, async (request, reply) => {
    const result = await charges.refund(request.account.id, request.params.id, request.body?.amount, { clientKey: request.idempotencyKey });
    return send(reply, result, formatOf(request), result.refund?.status === 'pending' ? 202 : 201);
  });

  app.post<{ Body: CustomerInput }>('/customers', {
    schema: { tags: ['customers'], summary: 'Create a customer at a gateway (its externalId is a later customerId)', body: { $ref: 'customer-request#' }, response: { 201: { $ref: 'customer-response#' }, ...errors } },
  }, async (request, reply) => {
    const { customer } = await customers.create(request.account, request.settings, request.body);
    return reply.code(201).send({ success: true, data: customerView(customer) });
  });
}
