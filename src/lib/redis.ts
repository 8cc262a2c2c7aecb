import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/** Redis answers in well under a millisecond; a command still unanswered after this has failed. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * The one Redis client of a process (REDIS_URL), shared by the rate limits and the sign-in throttle.
 *
 * Redis is a helper here, never something a request waits for: while it is unreachable a command fails at once
 * (no offline queue) and one that gets no answer fails after REDIS_COMMAND_TIMEOUT_MS, so its callers carry on
 * without it (see docs/operations.md, "When Redis fails"). The client keeps reconnecting in the background; the log
 * says once when Redis is lost and once when it is back, not on every retry.
 */
export function openRedis(url: string, log: FastifyBaseLogger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    connectionName: 'routegate',
  });
  let lost = false;
  redis.on('error', (err: Error & { code?: string }) => {
    if (lost) return;
    lost = true;
    log.warn({ redis: { code: err.code, message: err.message } },
      'Redis unreachable: rate limits let requests through and sign-ins are throttled per process until it is back');
  });
  redis.on('ready', () => {
    if (lost) log.info('Redis reachable again: rate limits and sign-in throttling are shared again');
    lost = false;
  });
  return redis;
}

/** Resolves when the client is connected, or after `ms` if it is not (start-up goes on without Redis). */
export function redisReady(redis: Redis, ms = CONNECT_TIMEOUT_MS): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

/** Ends the connection: politely when it is up, at once when it is not (QUIT would wait for a reconnect). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // fall through: the connection went away meanwhile
    }
  }
  redis.disconnect();
}

/** For GET /ready: whether Redis answers a PING now. */
export async function redisReachable(redis: Redis): Promise<boolean> {
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}
