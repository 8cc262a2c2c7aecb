import type { FastifyInstance } from 'fastify';
import type { Store } from '../store';
import type { MappingRegistry } from '../mapping/loader';
import type { MappingState } from '../mapping/mapping-state';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import { rgError } from '../errors';
import type { Redis } from 'ioredis';
import { redisReachable } from '../lib/redis';

/** GET /health (liveness: the process answers and the database reads) and GET /ready (it can take charges). */
export async function probeRoutes(app: FastifyInstance, opts: { store: Store; mappings: MappingRegistry; redis?: Redis; mappingState?: MappingState }): Promise<void> {
  const { store, mappings } = opts;

  app.get('/health', { schema: { tags: ['operations'], summary: 'Liveness: the process is up and the database answers' } }, async () => {
    try {
      await store.ping();
      return { status: 'ok', database: 'ok' };
    } catch (err) {
      throw rgError('DATABASE_UNAVAILABLE', {}, { cause: err });
    }
  });

  app.get('/ready', { schema: { tags: ['operations'], summary: 'Readiness: the database is writable and every gateway\'s mappings are loaded' } }, async () => {
    const problems: string[] = [];
    try {
      await store.probeWrite();
    } catch (err) {
      problems.push(`the database is not writable (${(err as Error).message})`);
    }
    const missing = GATEWAY_IDS.filter((g) => !mappings.get(g)?.has('charge.request') || !mappings.get(g)?.has('charge.response'));
    if (missing.length) problems.push(`no charge mappings loaded for ${missing.join(', ')}`);
    // Failing fixtures are served only under the emergency override: not ready, so a load balancer and a person see it.
    const failing = opts.mappingState?.failingFixtures ?? [];
    if (failing.length) problems.push(`${failing.length} mapping fixture${failing.length === 1 ? '' : 's'} fail under ROUTEGATE_ALLOW_FAILING_MAPPINGS (${failing.slice(0, 5).join(', ')}${failing.length > 5 ? ', ...' : ''}); run npx routegate mappings check`);
    if (problems.length) throw rgError('NOT_READY', { problems: problems.join('; ') });
    // Reported, not required: without Redis the limits let requests through (docs/operations.md, "When
    // Redis fails"), so taking every instance out of the load balancer would turn a Redis outage into a payments one.
    const redis = opts.redis ? { redis: (await redisReachable(opts.redis)) ? 'ok' : 'unreachable' } : {};
    const set = opts.mappingState ? { mappingSet: opts.mappingState.describe() } : {};
    return { status: 'ready', database: 'writable', mappings: 'loaded', ...set, ...redis };
  });
}
