import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

// The services outside Node some tests need (PostgreSQL, Redis, Chromium), and what a test does when one is missing:
// outside CI it is skipped with one line saying what is missing and how to provide it; with CI=true it fails, since
// .ci/run provides every service and a missing one there is a bug. `npm test` (test/run-suite.ts) probes once and
// hands the answers to every test file in ROUTEGATE_TEST_SERVICES; a file run on its own probes for itself.

export type ServiceName = 'postgres' | 'redis' | 'chromium';
export const SERVICE_NAMES: readonly ServiceName[] = ['postgres', 'redis', 'chromium'];

/** The PostgreSQL server tests make their databases on (trust auth, a database named test). */
export const TEST_PG_URL = process.env.ROUTEGATE_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/test';
/** The Redis the tests use: ROUTEGATE_TEST_REDIS_URL, else the development machine's (and CI's, see .ci/run). */
export const TEST_REDIS_URL = process.env.ROUTEGATE_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
/** The Chromium the browser tests drive through playwright-core (which downloads no browser of its own). */
export const TEST_CHROMIUM = process.env.ROUTEGATE_TEST_CHROMIUM || '/usr/bin/chromium';

/** How to provide each service, for the skip line. */
export const HOW_TO_PROVIDE: Record<ServiceName, string> = {
  postgres: 'start PostgreSQL with trust auth on 127.0.0.1:5432 and a database named test, or set ROUTEGATE_TEST_PG_URL',
  redis: 'start one (redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no) or set ROUTEGATE_TEST_REDIS_URL',
  chromium: 'install it (apt-get install chromium) or set ROUTEGATE_TEST_CHROMIUM to its executable',
};

/** Why each service cannot be used, or '' when it answers. */
export type Probe = Record<ServiceName, string>;

/** Connects to each service for real (PostgreSQL and Redis answer a query, Chromium is an executable file). */
export async function probeServices(): Promise<Probe> {
  const [postgres, redis] = await Promise.all([probePostgres(), probeRedis()]);
  return { postgres, redis, chromium: probeChromium() };
}

async function probePostgres(): Promise<string> {
  const { default: pg } = await import('pg');
  const { withDefaultUser } = await import('../../src/store/pg/pool');
  const client = new pg.Client({ connectionString: withDefaultUser(TEST_PG_URL), connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return '';
  } catch (err) {
    return `PostgreSQL is not reachable at ${TEST_PG_URL} (${oneLine(err)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeRedis(): Promise<string> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let lastError: unknown;
  redis.on('error', (err) => { lastError = err; });
  try {
    await redis.connect();
    await redis.ping();
    return '';
  } catch (err) {
    return `Redis is not reachable at ${TEST_REDIS_URL} (${oneLine(lastError ?? err)})`;
  } finally {
    redis.disconnect();
  }
}

function probeChromium(): string {
  try {
    fs.accessSync(TEST_CHROMIUM, fs.constants.X_OK);
    return '';
  } catch {
    return `Chromium is not at ${TEST_CHROMIUM}`;
  }
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message || err.constructor.name : String(err)).split('\n')[0];

/** The probe handed down by `npm test`, else one made now (synchronously: test options are built at load time). */
function knownProbe(): Probe {
  const handed = process.env.ROUTEGATE_TEST_SERVICES;
  if (handed) return JSON.parse(handed) as Probe;
  const child = spawnSync(process.execPath, [path.join(__dirname, 'probe-services.js')], { encoding: 'utf8', timeout: 20_000, env: process.env });
  if (child.status !== 0) throw new Error(`probing the test services failed: ${child.stderr || child.error?.message}`);
  const probe = JSON.parse(child.stdout) as Probe;
  process.env.ROUTEGATE_TEST_SERVICES = JSON.stringify(probe);
  return probe;
}

/** The one line a skipped test shows: what is missing, and how to provide it. */
export function skipLine(service: ServiceName, why: string): string {
  return `${why}: ${HOW_TO_PROVIDE[service]}`;
}

/** The line a CI run fails with. */
export function ciFailure(service: ServiceName, why: string): string {
  return `${why}; CI=true, so this fails instead of skipping: .ci/run provides ${service}`;
}

/**
 * For a test's `{ skip }`: false when `service` answers; the skip line when it does not. With CI=true a missing
 * service throws here, failing the test file with the service's name.
 */
export function unlessAvailable(service: ServiceName): string | false {
  const why = knownProbe()[service];
  if (!why) return false;
  if (process.env.CI === 'true') throw new Error(ciFailure(service, why));
  return skipLine(service, why);
}

/** Several services at once: the first one missing decides. */
export function unlessAvailableAll(...services: ServiceName[]): string | false {
  for (const s of services) {
    const skip = unlessAvailable(s);
    if (skip) return skip;
  }
  return false;
}
