import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AttemptRecord } from '../store/charges';
import { rgError } from '../errors';
import { SeriesCounter, SeriesHistogram } from './series';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * RouteGate's Prometheus metrics, one registry per app (tests run several apps in one process). Gateway attempts
 * are observed where the store records them (ChargesRepository's attempt listener), requests and fallbacks from
 * the answers (onResponse), the reconciler backlog and the webhook outbox backlog when scraped; webhooks as the
 * receivers and the forwarder report them.
 */
export class Metrics {
  readonly registry = new Registry();
  // Observed on every request and gateway call: series.ts's metrics (label values given in labelNames' order).
  private readonly requests: SeriesCounter;
  private readonly requestSeconds: SeriesHistogram;
  private readonly attempts: SeriesCounter;
  private readonly attemptSeconds: SeriesHistogram;
  private readonly fallbacks: Counter<'gateway'>;
  private readonly declines: Counter<'gateway' | 'code'>;
  private readonly webhooksReceived: Counter<'gateway'>;
  private readonly webhooksVerified: Counter<'gateway' | 'result'>;
  private readonly webhooksRejected: Counter<'gateway'>;
  private readonly deliveries: Counter<'outcome'>;
  // An attempt row is written when it finishes, and again if the reconciler later settles it: count it once.
  private readonly counted = new RecentKeys(10_000);

  constructor(opts: { backlog: () => Promise<number>; outboxBacklog?: () => Promise<number> }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'routegate_' });
    this.requests = new SeriesCounter({ name: 'routegate_http_requests_total', help: 'HTTP answers by method, route pattern and status', labelNames: ['method', 'route', 'status_code'], registers });
    this.requestSeconds = new SeriesHistogram({
      name: 'routegate_http_request_duration_seconds', help: 'Time to answer, by method, route pattern and status', labelNames: ['method', 'route', 'status_code'], buckets: SECONDS, registers,
    });
    this.attempts = new SeriesCounter({
      name: 'routegate_gateway_attempts_total', help: 'Gateway calls by gateway, operation (charge, capture, cancel, refund, retrieve, reconcile) and outcome', labelNames: ['gateway', 'operation', 'outcome'], registers,
    });
    this.attemptSeconds = new SeriesHistogram({
      name: 'routegate_gateway_attempt_duration_seconds', help: 'Gateway call latency by gateway, operation and outcome (skipped attempts excluded)', labelNames: ['gateway', 'operation', 'outcome'], buckets: SECONDS, registers,
    });
    this.fallbacks = new Counter({ name: 'routegate_charge_fallbacks_total', help: 'Charges processed by a fallback gateway, by that gateway', labelNames: ['gateway'], registers });
    this.declines = new Counter({ name: 'routegate_declines_total', help: 'Declines by gateway and normalized decline code', labelNames: ['gateway', 'code'], registers });
    this.webhooksReceived = new Counter({ name: 'routegate_webhooks_received_total', help: 'Gateway notifications received (for a known account), by gateway', labelNames: ['gateway'], registers });
    this.webhooksVerified = new Counter({
      name: 'routegate_webhooks_verified_total', help: 'Notifications accepted, by gateway and result: verified, or unverified (no webhookSecret stored)', labelNames: ['gateway', 'result'], registers,
    });
    this.webhooksRejected = new Counter({ name: 'routegate_webhooks_rejected_total', help: 'Notifications refused because their signature did not verify, by gateway', labelNames: ['gateway'], registers });
    this.deliveries = new Counter({
      name: 'routegate_webhook_deliveries_total', help: 'Attempts to deliver events to merchant backends, by outcome: delivered, failed (retried later), gave_up', labelNames: ['outcome'], registers,
    });
    new Gauge({
      name: 'routegate_webhook_outbox_backlog', help: 'Event deliveries waiting in the outbox for the merchant backend', registers,
      async collect() {
        this.set((await opts.outboxBacklog?.()) ?? 0);
      },
    });
    new Gauge({
      name: 'routegate_reconciler_backlog', help: 'Charges in processing, waiting for the reconciler to settle them at their gateway', registers,
      async collect() {
        this.set(await opts.backlog());
      },
    });
  }

  attemptFinished(chargeId: string, a: AttemptRecord): void {
    if (a.outcome === 'in_flight') return;
    if (!this.counted.add(`${chargeId}:${a.seq}`)) return;
    const labels = [a.gateway, a.operation, a.outcome];
    this.attempts.inc(labels);
    if (a.outcome !== 'skipped') this.attemptSeconds.observe(labels, a.durationMs / 1000);
    // DESIGN.md: a decline's public message starts with the normalized decline code.
    if (a.outcome === 'decline') this.declines.inc({ gateway: a.gateway, code: /^([a-z_]+):/.exec(a.message ?? '')?.[1] ?? 'unknown' });
  }

  answered(method: string, route: string, status: number, seconds: number): void {
    const labels = [method, route, status];
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  webhook(gateway: string, stage: 'received' | 'verified' | 'unverified' | 'rejected'): void {
    if (stage === 'received') this.webhooksReceived.inc({ gateway });
    else if (stage === 'rejected') this.webhooksRejected.inc({ gateway });
    else this.webhooksVerified.inc({ gateway, result: stage });
  }

  delivery(outcome: 'delivered' | 'failed' | 'gave_up'): void {
    this.deliveries.inc({ outcome });
  }

  fallback(gateway: string): void {
    this.fallbacks.inc({ gateway });
  }
}

/**
 * Keys seen lately: at least the last `size / 2`, at most `size`. Two generations of a Set, the older dropped
 * whole when the newer fills: a lookup and an insert per key, with no per-key recency bookkeeping.
 */
export class RecentKeys {
  private newer = new Set<string>();
  private older = new Set<string>();

  constructor(private readonly size: number) {}

  /** False when the key was seen lately; otherwise remembers it. */
  add(key: string): boolean {
    if (this.newer.has(key) || this.older.has(key)) return false;
    if (this.newer.size >= this.size / 2) {
      this.older = this.newer;
      this.newer = new Set();
    }
    this.newer.add(key);
    return true;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Request metrics for every route, and GET /metrics (behind ROUTEGATE_METRICS_TOKEN; closed in production without one). */
export const metricsPlugin = fp(async (app: FastifyInstance, opts: { metrics: Metrics; token?: string; production: boolean }) => {
  const { metrics, token, production } = opts;
  app.addHook('onResponse', async (request, reply) => {
    // Unknown paths share one label, so a scan cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.answered(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (route === '/api/v1/charges' && request.method === 'POST' && !request.idempotentReplay && reply.getHeader('x-rg-fallback-used') === 'true') {
      metrics.fallback(String(reply.getHeader('x-rg-gateway')));
    }
  });

  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics' } }, async (request, reply) => {
    // Counts per route and gateway are for the operator: production without a token keeps them closed.
    if (!token && production) throw rgError('METRICS_TOKEN_NOT_SET', {}, { headers: { 'www-authenticate': 'Bearer' } });
    if (token) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), digest(token))) {
        throw rgError('METRICS_TOKEN_REQUIRED', {}, { headers: { 'www-authenticate': 'Bearer' } });
      }
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
});
