import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChargeResult, GatewayDeps } from '../charges/orchestrator';
import { rgError } from '../errors';
import { logError, sendEnvelope, toRouteGateError } from '../http/error-handler';
import type { SchemaValidator } from '../http/schemas';
import { rgHeaders } from '../charges/response-format';
import type { GatewayId } from '../gateways/registry-ids';
import { decodeNativeBody } from './native-body';
import { nativeCreateToNormalized } from './native-charges';
import { nativeErrorAnswer, type NativeErrorContext } from './native-errors';
import { nativeCreateAnswer, nativeReplayAnswer } from './operations';
import type { ChargeLinkedAnswer } from '../http/idempotency';
import { COMPAT_SURFACES } from './surfaces';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when POST /api/v1/charges takes the compat gateway's native create body (compatibilityMode, no X-Payload-Format). */
    compatCreate?: { gateway: GatewayId; nativeBody: unknown; errorContext: NativeErrorContext };
  }
}

/** SPEC.md: `X-Payload-Format: native` = this call in RouteGate's normalized format; nothing else is accepted. */
function normalizedFormatAsked(request: FastifyRequest): boolean {
  const header = request.headers['x-payload-format'];
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim().toLowerCase() !== 'native') throw rgError('PAYLOAD_FORMAT_INVALID', { value: JSON.stringify(value.slice(0, 40)) });
  return true;
}

const isCreate = (request: FastifyRequest) => request.method === 'POST' && request.routeOptions.url?.replace(/\/$/, '').endsWith('/charges') === true;

/**
 * Compatibility mode on POST /api/v1/charges (installed in the charge routes' context): the native create body
 * (JSON, or form-encoded for a surface that takes it) is turned into the normalized charge before schema
 * validation, the answer is the gateway's native response, and errors take the gateway's native shape.
 */
export function installCompatCreate(app: FastifyInstance, opts: { deps: GatewayDeps; validator: SchemaValidator; production: boolean }): {
  answer(request: FastifyRequest, reply: FastifyReply, result: ChargeResult): Promise<FastifyReply>;
  /** A replayed native create's answer from the (already settled once) charge; undefined when the call is not native. */
  replay(request: FastifyRequest, chargeId: string): Promise<ChargeLinkedAnswer | undefined>;
} {
  const { deps, validator, production } = opts;
  const nativeMode = (request: FastifyRequest): GatewayId | undefined =>
    (isCreate(request) && !normalizedFormatAsked(request) ? request.settings?.compatibilityMode ?? undefined : undefined);

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    try {
      const mode = nativeMode(request);
      done(null, decodeNativeBody('application/x-www-form-urlencoded', body as string, mode ? COMPAT_SURFACES.get(mode) : undefined));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.addHook('preValidation', async (request) => {
    if (!isCreate(request)) return;
    const mode = nativeMode(request);
    if (!mode) return;
    request.compatCreate = { gateway: mode, nativeBody: request.body, errorContext: {} };
    request.body = await nativeCreateToNormalized(deps, validator, mode, COMPAT_SURFACES.get(mode), request.account.id, request.body ?? {});
  });

  app.setErrorHandler(async (err, request, reply) => {
    const rgErr = logError(toRouteGateError(err as Error), err, request);
    const compat = request.compatCreate;
    if (!compat) return sendEnvelope(reply, rgErr, production);
    const answer = await nativeErrorAnswer(deps.mappings, compat.gateway, rgErr, { production, log: request.log, context: compat.errorContext });
    return reply.code(answer.status).headers({ ...rgHeaders(undefined, compat.gateway), ...answer.headers }).type('application/json; charset=utf-8')
      .send(JSON.stringify(answer.body));
  });

  return {
    async replay(request, chargeId) {
      const compat = request.compatCreate;
      if (!compat) return undefined;
      return nativeReplayAnswer(deps, { gateway: compat.gateway, surface: COMPAT_SURFACES.get(compat.gateway), body: compat.nativeBody, accountId: request.account.id, production }, chargeId);
    },
    async answer(request, reply, result) {
      const compat = request.compatCreate!;
      const answer = await nativeCreateAnswer(deps, { gateway: compat.gateway, surface: COMPAT_SURFACES.get(compat.gateway), body: compat.nativeBody, errorContext: compat.errorContext }, result);
      // A string: the route's response schema is the normalized charge's and must not filter the native body.
      return reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
    },
  };
}
