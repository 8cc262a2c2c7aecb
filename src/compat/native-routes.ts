import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import httpProxy from '@fastify/http-proxy';
import type { Store } from '../store';
import { authenticate, keyInQuery } from '../auth/plugin';
import { rgError } from '../errors';
import { logError, sendEnvelope, toRouteGateError } from '../http/error-handler';
import { installIdempotency } from '../http/idempotency';
import { registerKeyRateLimit, type RateLimitOptions } from '../http/rate-limit';
import { rgHeaders } from '../charges/response-format';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import { nativeKey } from './native-auth';
import { decodeNativeBody, decodeNativeQuery } from './native-body';
import { nativeErrorAnswer, type NativeErrorContext } from './native-errors';
import { nativeReplayAnswer, runOperation, type CompatServices } from './operations';
import { NativeRouter } from './route-match';
import { PassthroughAllowlist } from './passthrough';
import { COMPAT_SURFACES, compatSurface, rootRoutes, surfacesAt } from './surfaces';
import type { CompatRoute, CompatSurface, HttpMethod, NativeRequest } from './types';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Headers that carry the client's RouteGate key: never sent on to a gateway. */
const KEY_HEADERS = ['authorization', 'x-api-key', 'access_token', 'cookie', 'x-payload-format'];
/** Operations that create or move something: RouteGate honours Idempotency-Key on them. */
const WRITES = new Set(['create', 'capture', 'cancel', 'refund', 'cancelOrRefund', 'customerCreate']);

interface CompatState {
  /** The gateway whose shape errors take (known before authentication when the path says it). */
  shape?: GatewayId;
  gateway?: GatewayId;
  surface?: CompatSurface;
  /** The native path below the gateway's base (/v1/payment_intents/pi_1). */
  path: string;
  native?: NativeRequest;
  route?: CompatRoute;
  raw?: Buffer;
  errorContext: NativeErrorContext;
  /** The account's credentials for a passthrough call, read before the proxy's synchronous header rewrite. */
  passthroughCredentials?: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    compatState?: CompatState;
  }
}

export interface CompatRoutesOptions { services: CompatServices; store: Store; production: boolean; rateLimit: number; rateLimitStore?: RateLimitOptions['store'] }

const routers = new Map([...COMPAT_SURFACES].map(([id, s]) => [id, new NativeRouter(s.routes)] as const));
const allowlists = new Map([...COMPAT_SURFACES].map(([id, s]) => [id, new PassthroughAllowlist(s.passthrough)] as const));

/**
 * The compat gateways' own APIs: under /compat/<id>/... and at the root (SDKs that take only a host), with the
 * gateway's auth forms, its error shapes, translated operations for the paths the surface lists, and, for accounts an
 * operator turned passthrough on for, the gateway's allowlisted paths passed through (@fastify/http-proxy, this
 * context only) to that gateway alone; any other path answers the gateway's native 404.
 */
export async function compatRoutes(app: FastifyInstance, opts: CompatRoutesOptions): Promise<void> {
  const { services, store, production } = opts;
  const { deps } = services;
  // Native bodies are read as bytes: decoded per surface for translated calls, forwarded untouched when passed through.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.addHook('onRequest', async (request) => {
    const state = locate(request);
    request.compatState = state;
    if (keyInQuery(request)) throw rgError('API_KEY_IN_URL');
    await authenticate(request, store, nativeKey(request.headers));
    const mode = request.settings.compatibilityMode as GatewayId | null;
    if (state.gateway) {
      if (mode !== state.gateway) throw rgError('COMPAT_NOT_ENABLED', { gateway: state.gateway, mode: mode ?? 'off' });
      return;
    }
    // At the root the account's mode decides whose API this is (two gateways may both live under /v1).
    const surface = mode ? COMPAT_SURFACES.get(mode) : undefined;
    state.shape = surface ? mode! : undefined;
    if (!surface || !surfacesAt(state.path).includes(mode!)) throw rgError('ROUTE_NOT_FOUND', { method: request.method, path: state.path });
    state.gateway = mode!;
    state.surface = surface;
  });
  await registerKeyRateLimit(app, { max: opts.rateLimit, store: opts.rateLimitStore });

  app.setErrorHandler(async (err, request, reply) => {
    const rgErr = logError(toRouteGateError(err as Error), err, request);
    const state = request.compatState;
    // No gateway's shape to answer in (a root path several gateways share, before the key is known): RouteGate's
    // envelope, with the X-RG-* headers every compatibility answer carries.
    if (!state?.shape) return sendEnvelope(reply.headers({ ...rgHeaders(undefined, state?.gateway), 'x-rg-error-code': rgErr.code }), rgErr, production);
    const answer = await nativeErrorAnswer(deps.mappings, state.shape, rgErr, { production, log: request.log, context: state.errorContext });
    return reply.code(answer.status).headers({ ...rgHeaders(undefined, state.gateway ?? state.shape), ...answer.headers })
      .type('application/json; charset=utf-8').send(answer.body);
  });

  installIdempotency(app, store, {
    applies: (request) => !!request.compatState?.route && WRITES.has(request.compatState.route.operation),
    bodyOf: (request) => request.compatState?.native?.body,
    // A create first answered "being confirmed" (504): one read-only settle, then the charge as it is now, natively.
    async answerFromCharge(request, chargeId) {
      const state = request.compatState;
      if (state?.route?.operation !== 'create' || !state.native) return undefined;
      await services.charges.reconcile(chargeId);
      return nativeReplayAnswer(deps, { gateway: state.gateway!, surface: state.surface, body: state.native.body, accountId: request.account.id, production }, chargeId);
    },
    headers: (request) => request.compatState?.surface?.idempotency?.headers ?? ['idempotency-key'],
    // The same native endpoint under /compat/<id> or at the root, with or without its trailing slash, is one scope.
    scope: (request) => (request.compatState?.surface?.idempotency?.perEndpoint
      ? `${request.method} ${request.compatState.path.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1')}` : undefined),
  });

  // Native route documentation: one family per prefix (the operations are the gateway's own; docs/compatibility.md).
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), tags: ['compatibility'], summary: 'A compat gateway\'s own API (native paths, auth and errors)' };
  });

  const proxyOptions = {
    upstream: '',
    httpMethods: METHODS,
    preValidation: decode,
    handler: dispatch,
    undici: { headersTimeout: deps.timeoutMs, bodyTimeout: deps.timeoutMs },
    replyOptions: {
      // The origin only: the gateway's base path (an emulator's /<id>) is put on the path by dispatch().
      getUpstream: (request: FastifyRequest) => new URL(deps.gatewayUrls[request.compatState!.gateway!]).origin,
      rewriteRequestHeaders: (request: FastifyRequest, headers: Record<string, unknown>) => {
        const out = { ...headers };
        for (const h of KEY_HEADERS) delete out[h];
        return { ...out, ...request.compatState!.surface!.passthroughHeaders(request.compatState!.passthroughCredentials ?? {}) };
      },
      rewriteHeaders: (headers: Record<string, unknown>, request?: FastifyRequest) => ({
        ...headers, ...rgHeaders(undefined, request?.compatState?.gateway), 'x-rg-passthrough': 'true',
      }),
      onError: (reply: FastifyReply, { error }: { error: Error }) => {
        const gateway = reply.request.compatState?.gateway ?? 'the gateway';
        reply.send(rgError('PASSTHROUGH_FAILED', { gateway, reason: (error as { code?: string }).code ?? error.message }, { gateway }));
      },
    },
  };
  await app.register(httpProxy, { ...proxyOptions, prefix: '/compat/:gateway', routes: ['/*'] } as never);
  const roots = rootRoutes();
  if (roots.length) await app.register(httpProxy, { ...proxyOptions, prefix: '', routes: roots } as never);

  /** preValidation: the native request decoded, and the translated route it is, if any. */
  async function decode(request: FastifyRequest): Promise<void> {
    const state = request.compatState!;
    const surface = state.surface!;
    state.raw = Buffer.isBuffer(request.body) ? request.body : undefined;
    const query = decodeNativeQuery(request.url, surface);
    const method = request.method as HttpMethod;
    const router = routers.get(state.gateway!)!;
    if (!router.knows(method, state.path)) return;
    const body = decodeNativeBody(request.headers['content-type'], state.raw, surface);
    // `when` may read the body (a PUT that captures or cancels by it): matched with the body decoded. A body no
    // route's `when` takes is passed through untranslated.
    const exact = router.match(method, state.path, { method, path: state.path, query, body });
    if (!exact) return;
    state.native = { method, path: state.path, params: exact.params, query, body };
    state.route = exact.route;
    // A client retrying with its gateway's own idempotency header must not be charged twice: honour it as RouteGate's.
    const alias = surface.idempotencyHeader?.toLowerCase();
    if (state.route && alias && request.headers['idempotency-key'] === undefined && request.headers[alias] !== undefined) {
      request.headers['idempotency-key'] = request.headers[alias];
    }
  }

  async function dispatch(request: FastifyRequest, reply: FastifyReply, _dest: string, options: Record<string, unknown>) {
    const state = request.compatState!;
    const gateway = state.gateway!;
    if (state.route && state.native) {
      const answer = await runOperation(services, {
        request, gateway, surface: state.surface!, route: state.route, native: state.native, errorContext: state.errorContext,
      });
      return reply.code(answer.status).headers({ ...rgHeaders(undefined, gateway), ...answer.headers }).send(answer.body);
    }
    // Untranslated: passed on only for an account an operator turned passthrough on for, and only on the gateway's
    // allowlist; anything else is the gateway's own 404 (a client cannot tell it from a path the gateway lacks).
    if (!request.account.compatPassthrough || !allowlists.get(gateway)!.allows(request.method, state.path)) {
      throw rgError('ROUTE_NOT_FOUND', { method: request.method, path: state.path });
    }
    state.passthroughCredentials = await deps.vault.reveal(request.account.id, gateway);
    if (!state.passthroughCredentials) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
    const base = new URL(deps.gatewayUrls[gateway]).pathname.replace(/\/$/, '');
    const body = state.raw && state.raw.length ? { body: state.raw, contentType: request.headers['content-type'] ?? 'application/octet-stream' } : {};
    return reply.from(`${base}${state.path}`, { ...options, ...body });
  }
}

/** Which gateway's API a path is, before authentication: /compat/<id>/... names it; at the root, the path's owners. */
function locate(request: FastifyRequest): CompatState {
  const url = request.url.split('?')[0];
  const state: CompatState = { path: url, errorContext: {} };
  const param = (request.params as { gateway?: string } | undefined)?.gateway;
  if (url.startsWith('/compat/') && param !== undefined) {
    state.path = url.slice(`/compat/${param}`.length) || '/';
    const found = compatSurface(param);
    if (!found) {
      const known = resolveGatewayId(param);
      throw known ? rgError('COMPAT_NOT_SERVED', { gateway: known }) : rgError('UNKNOWN_GATEWAY', { gateway: param });
    }
    Object.assign(state, { shape: found.gateway, gateway: found.gateway, surface: found.surface });
    return state;
  }
  // An unauthenticated error at a root path several gateways share takes the shape of the client it looks like.
  const owners = surfacesAt(url);
  state.shape = owners.length === 1 ? owners[0] : owners.find((g) => COMPAT_SURFACES.get(g)!.recognizes?.(request.headers));
  return state;
}
