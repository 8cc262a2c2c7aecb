import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';

import { TEST_REDIS_URL, ciFailure, skipLine } from './services';

export { TEST_REDIS_URL };

/**
 * A connected client for a test that needs a real Redis. Outside CI, an unreachable Redis skips the test with a
 * message saying how to start one; with CI=true it fails: .ci/run starts Redis, so its absence there is a bug.
 */
export async function requireRedis(t: TestContext): Promise<Redis | undefined> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let lastError: Error | undefined;
  redis.on('error', (err) => { lastError = err; });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    const why = `Redis is not reachable at ${TEST_REDIS_URL} (${(lastError ?? (err as Error)).message})`;
    if (process.env.CI === 'true') throw new Error(ciFailure('redis', why));
    t.skip(skipLine('redis', why));
    return undefined;
  }
}

/** A prefix no other test run uses, so runs on one Redis (other agents, CI) never see each other's counts. */
export function freshPrefix(): string {
  return `routegate-test-${randomBytes(6).toString('hex')}:`;
}

/** Every key under the prefix (SCAN, never KEYS on a shared server). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(redis, prefix);
  if (keys.length) await redis.del(...keys);
}
