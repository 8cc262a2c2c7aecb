import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { rgError, type RouteGateError } from '../errors';

const WINDOW_MS = 60_000;

// Probes and scrapes come every few seconds from the same addresses; they are not API traffic. Neither are the
// operator's mapping operations (token or same machine only; concurrent reloads share one run).
const PROBES = new Set(['/health', '/ready', '/metrics', '/ops/mappings', '/ops/mappings/reload']);
// Gateways deliver webhooks in bursts from a few addresses (a batch of pix paid at once); throttling them would
// only make them retry for days. Receivers check the signature first and store nothing unverified.
const WEBHOOKS = '/api/v1/webhooks/';

function exceeded(_req: FastifyRequest, context: { ttl: number; max: number }): RouteGateError {
  const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
  return rgError('RATE_LIMIT_EXCEEDED', { max: context.max, seconds });
}

export interface RateLimitOptions {
  max: number;
  /** Counted in Redis (all processes) instead of in this process's memory: see `sharedStore`. */
  store?: Pick<RateLimitPluginOptions, 'redis' | 'nameSpace' | 'skipOnError'>;
}

/**
 * @fastify/rate-limit's own Redis store (one INCR + PEXPIRE script per request), keys under
 * `<ROUTEGATE_REDIS_PREFIX>rate-limit:<scope><key>`. `skipOnError`: when Redis fails or does not answer in time
 * (lib/redis.ts bounds it), the request goes through uncounted. A payments API stays up rather than refusing
 * every charge because its limiter is down; docs/operations.md ("When Redis fails") has the reasoning.
 */
export function sharedStore(redis: Redis, prefix: string, scope: string): NonNullable<RateLimitOptions['store']> {
  return { redis, nameSpace: `${prefix}rate-limit:${scope}`, skipOnError: true };
}

/**
 * Per client IP, as the very first onRequest hook of the whole app: it runs before auth, so it also
 * throttles key guessing, and it covers unknown routes. Probes and webhook receivers stay exempt.
 */
export async function registerIpRateLimit(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  // The options at registration and `rateLimit()` without any: the limiter then counts in the plugin's own store
  // (with options it would make a child store, whose Redis keys carry a route name this hook does not have).
  await app.register(rateLimit, {
    global: false,
    max: opts.max,
    timeWindow: WINDOW_MS,
    keyGenerator: (req) => `ip:${req.ip}`,
    allowList: (req) => PROBES.has(req.url.split('?')[0]) || req.url.startsWith(WEBHOOKS),
    errorResponseBuilder: exceeded,
    ...opts.store,
  });
  app.addHook('onRequest', app.rateLimit());
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
