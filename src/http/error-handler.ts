import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { RouteGateError, envelope, validationError } from '../errors';
import { fieldErrors, validationSummary } from './validation-messages';

/** Turn anything thrown into the SPEC.md envelope. Never a stack trace, never HTML. */
export function toRouteGateError(err: FastifyError | Error): RouteGateError {
  if (err instanceof RouteGateError) return err;
  const e = err as FastifyError & { validation?: import('ajv').ErrorObject[] };
  if (e.validation) {
    const errors = fieldErrors(e.validation);
    return validationError(validationSummary(errors), errors);
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RouteGateError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send the body as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RouteGateError('PAYLOAD_TOO_LARGE', 'Request body is larger than the configured limit');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError('Request body is empty but content-type is application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return validationError('Content-Length does not match the body');
    case 'FST_ERR_BAD_URL':
      return validationError('The URL is malformed: a percent sign must start a valid UTF-8 percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new RouteGateError('URI_TOO_LONG', 'A path segment is longer than any id RouteGate issues (100 characters)');
  }
  const status = e.statusCode ?? 500;
  if (status === 400) {
    const isJson = err instanceof SyntaxError || /JSON/i.test(e.message);
    return validationError(isJson ? 'Request body is not valid JSON' : `Bad request: ${e.message}`);
  }
  if (status === 404) return new RouteGateError('NOT_FOUND', 'Not found');
  if (status === 413) return new RouteGateError('PAYLOAD_TOO_LARGE', 'Request body is larger than the configured limit');
  if (status === 415) return new RouteGateError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send the body as application/json');
  if (status === 429) return new RouteGateError('RATE_LIMIT_EXCEEDED', e.message);
  if (status === 503) return new RouteGateError('SERVICE_UNAVAILABLE', 'Service unavailable');
  return new RouteGateError('INTERNAL_ERROR', 'Internal server error', { cause: err });
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
    const rgErr = toRouteGateError(err);
    if (rgErr.statusCode >= 500 && rgErr.code === 'INTERNAL_ERROR') request.log.error({ err }, 'unhandled error');
    // The error's text under its own key: pino's `msg` is the line's one message.
    else if (rgErr.statusCode >= 500) request.log.warn({ code: rgErr.code, gateway: rgErr.gateway, reason: rgErr.message }, 'gateway failure');
    for (const [name, value] of Object.entries(rgErr.extra.headers ?? {})) reply.header(name, value);
    return reply.code(rgErr.statusCode).type('application/json; charset=utf-8').send(envelope(rgErr, opts.production));
  });

  // Unknown routes are rate-limited too: the per-IP limit is an app-wide onRequest hook.
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0];
    const allowed = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) r.methods.forEach((m) => allowed.add(m));
    allowed.delete('HEAD');
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      throw new RouteGateError('METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed on ${path}; allowed: ${allow}`, { headers: { allow } });
    }
    throw new RouteGateError('NOT_FOUND', `Route ${request.method} ${path} not found`);
  });
});
