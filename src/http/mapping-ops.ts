import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { rgError } from '../errors';
import type { MappingState } from '../mapping/mapping-state';

const digest = (s: string) => createHash('sha256').update(s).digest();
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Who may reload: the holder of the operator token (ROUTEGATE_METRICS_TOKEN, the one /metrics takes) or, when none is
 * set, a caller on this machine (the socket's own address: a proxy's X-Forwarded-For cannot fake it).
 */
export function assertOperator(request: FastifyRequest, token: string | undefined): void {
  if (token) {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given && timingSafeEqual(digest(given), digest(token))) return;
  } else if (LOOPBACK.has(request.socket.remoteAddress ?? '')) {
    return;
  }
  throw rgError('OPERATOR_TOKEN_REQUIRED', {}, { headers: { 'www-authenticate': 'Bearer' } });
}

/** POST /ops/mappings/reload (what `npx routegate mappings reload` calls) and GET /ops/mappings. */
export async function mappingOpsRoutes(app: FastifyInstance, opts: { state: MappingState; token?: string; onReload?: (result: unknown) => void }): Promise<void> {
  const { state, token } = opts;
  app.get('/ops/mappings', { schema: { tags: ['operations'], summary: 'The mapping set in use: folder, version, failing fixtures' } }, async (request) => {
    assertOperator(request, token);
    return { success: true, data: state.describe() };
  });
  app.post('/ops/mappings/reload', {
    schema: { tags: ['operations'], summary: 'Compile the mappings folder again, run every fixture and the money guard, and swap only if all pass' },
  }, async (request) => {
    assertOperator(request, token);
    const result = await state.reload();
    opts.onReload?.(result);
    return { success: true, data: result };
  });
}

/** The mapping set in /metrics: which folder and version serve, fixtures failing under the override, reloads. */
export function registerMappingMetrics(registry: Registry, state: MappingState): void {
  const registers = [registry];
  new Gauge({
    name: 'routegate_mappings_info', help: 'The mapping set in use (value 1): its folder and version (a hash of its files)', labelNames: ['folder', 'version'], registers,
    collect() {
      this.reset();
      this.set({ folder: state.dir, version: state.version }, 1);
    },
  });
  new Gauge({
    name: 'routegate_mappings_failing_fixtures', help: 'Mapping fixtures failing in the set in use (only ever above 0 under ROUTEGATE_ALLOW_FAILING_MAPPINGS)', registers,
    collect() {
      this.set(state.failingFixtures.length);
    },
  });
  const reloads = new Counter({ name: 'routegate_mappings_reloads_total', help: 'Mapping reloads by result: swapped, or refused (the running set kept)', labelNames: ['result'], registers });
  reloads.inc({ result: 'swapped' }, 0);
  reloads.inc({ result: 'refused' }, 0);
  let seen = { swapped: 0, refused: 0 };
  new Gauge({
    name: 'routegate_mappings_loaded_timestamp_seconds', help: 'When the mapping set in use was loaded', registers,
    collect() {
      this.set(state.loadedAt.getTime() / 1000);
      if (state.reloads > seen.swapped) reloads.inc({ result: 'swapped' }, state.reloads - seen.swapped);
      if (state.failedReloads > seen.refused) reloads.inc({ result: 'refused' }, state.failedReloads - seen.refused);
      seen = { swapped: state.reloads, refused: state.failedReloads };
    },
  });
}
