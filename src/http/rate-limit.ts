import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import { rgError, type RouteGateError } from '../errors';

const WINDOW_MS = 60_000;

// Probes and scrapes come every few seconds from the same addresses; they are not API traffic.
const PROBES = new Set(['/health', '/ready', '/metrics']);
// Gateways deliver webhooks in bursts from a few addresses (a batch of pix paid at once); throttling them would
// only make them retry for days. Receivers check the signature first and store nothing unverified.
const WEBHOOKS = '/api/v1/webhooks/';

function exceeded(_req: FastifyRequest, context: { ttl: number; max: number }): RouteGateError {
  const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
  return rgError('RATE_LIMIT_EXCEEDED', { max: context.max, seconds });
}

export interface RateLimitOptions {
  max: number;
  /** A shared store (e.g. @fastify/rate-limit's Redis support) can replace the in-memory one. */
  store?: Pick<RateLimitPluginOptions, 'redis' | 'store'>;
}

/**
 * Per client IP, as the very first onRequest hook of the whole app: it runs before auth, so it also
 * throttles key guessing, and it covers unknown routes. Probes and webhook receivers stay exempt.
 */
export async function registerIpRateLimit(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, { global: false, ...opts.store });
  app.addHook('onRequest', app.rateLimit({
    max: opts.max,
    timeWindow: WINDOW_MS,
    keyGenerator: (req) => `ip:${req.ip}`,
    allowList: (req) => PROBES.has(req.url.split('?')[0]) || req.url.startsWith(WEBHOOKS),
    errorResponseBuilder: exceeded,
  }));
}

/**
 * Per API key, after auth, in the authenticated context. A second registration of the plugin, not
 * `fastify.rateLimit()`: that decorator shares the first registration's once-per-request marker, so the
 * per-IP hook would silently disable it. Counted apart from the per-IP limit.
 */
export async function registerKeyRateLimit(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: opts.max,
    timeWindow: WINDOW_MS,
    hook: 'preHandler',
    keyGenerator: (req) => `key:${req.account.id}`,
    errorResponseBuilder: exceeded,
    ...opts.store,
  });
}
