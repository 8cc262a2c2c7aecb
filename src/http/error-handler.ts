import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { RouteGateError, envelope, rgError } from '../errors';
import { fieldErrors, validationSummary } from './validation-messages';

/** Turn anything thrown into the SPEC.md envelope. Never a stack trace, never HTML. */
export function toRouteGateError(err: FastifyError | Error): RouteGateError {
  if (err instanceof RouteGateError) return err;
  const e = err as FastifyError & { validation?: import('ajv').ErrorObject[] };
  if (e.validation) {
    const errors = fieldErrors(e.validation);
    return rgError('INVALID_REQUEST', { fields: validationSummary(errors) }, { details: { errors } });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return rgError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return rgError('BODY_TOO_LARGE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return rgError('EMPTY_JSON_BODY');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return rgError('CONTENT_LENGTH_MISMATCH');
    case 'FST_ERR_BAD_URL':
      return rgError('MALFORMED_URL');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return rgError('PATH_SEGMENT_TOO_LONG', { max: 100 });
  }
  const status = e.statusCode ?? 500;
  if (status === 400) {
    const isJson = err instanceof SyntaxError || /JSON/i.test(e.message);
    return isJson ? rgError('INVALID_JSON') : rgError('BAD_REQUEST', { reason: e.message });
  }
  if (status === 404) return rgError('NOT_FOUND');
  if (status === 413) return rgError('BODY_TOO_LARGE');
  if (status === 415) return rgError('UNSUPPORTED_MEDIA_TYPE');
  if (status === 429) return rgError('RATE_LIMITED', { reason: e.message });
  if (status === 503) return rgError('SERVICE_UNAVAILABLE');
  return rgError('INTERNAL_ERROR', {}, { cause: err });
}

/** Log what deserves it (a 500 of RouteGate's own with its stack; a gateway failure as a warning); returns the error. */
export function logError(rgErr: RouteGateError, err: unknown, request: FastifyRequest): RouteGateError {
  if (rgErr.statusCode >= 500 && rgErr.code === 'INTERNAL_ERROR') request.log.error({ err }, 'unhandled error');
  // The error's text under its own key: pino's `msg` is the line's one message.
  else if (rgErr.statusCode >= 500) request.log.warn({ code: rgErr.code, gateway: rgErr.gateway, reason: rgErr.message }, 'gateway failure');
  return rgErr;
}

/** The SPEC.md envelope with the error's headers. */
export function sendEnvelope(reply: FastifyReply, err: RouteGateError, production: boolean): FastifyReply {
  for (const [name, value] of Object.entries(err.extra.headers ?? {})) reply.header(name, value);
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(envelope(err, production));
}

interface RouteShape { methods: Set<string>; pattern: RegExp }

export const errorHandlerPlugin = fp(async (app: FastifyInstance, opts: { production: boolean }) => {
  const routes: RouteShape[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const source = route.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+').replace(/\*/g, '.*');
    routes.push({ methods: new Set(methods.map((m) => m.toUpperCase())), pattern: new RegExp(`^${source}/?$`) });
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    return sendEnvelope(reply, logError(toRouteGateError(err), err, request), opts.production);
  });

  // Unknown routes are rate-limited too: the per-IP limit is an app-wide onRequest hook.
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0];
    const allowed = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) r.methods.forEach((m) => allowed.add(m));
    allowed.delete('HEAD');
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      throw rgError('METHOD_NOT_ALLOWED', { method: request.method, path, allow }, { headers: { allow } });
    }
    throw rgError('ROUTE_NOT_FOUND', { method: request.method, path });
  });
});
