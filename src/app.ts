import { rejectNulCharacters } from './http/nul-guard';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Config } from './config';
import type { Store } from './store';
import { openStore } from './store/open';
import { CredentialVault } from './accounts/credential-vault';
import { accountRoutes } from './accounts/routes';
import { installAuth } from './auth/plugin';
import { errorHandlerPlugin } from './http/error-handler';
import { AJV_OPTIONS, registerSchemas, SchemaValidator } from './http/schemas';
import { registerIpRateLimit, registerKeyRateLimit, sharedStore } from './http/rate-limit';
import { closeRedis, openRedis, redisReady } from './lib/redis';
import { registerDocs } from './http/docs';
import { probeRoutes } from './http/probes';
import { mappingOpsRoutes, registerMappingMetrics } from './http/mapping-ops';
import { MappingState } from './mapping/mapping-state';
import { describeFolder } from './mapping/completeness';
import { Metrics, metricsPlugin } from './http/metrics';
import { clientErrorHandler, frameworkErrors } from './http/framework-errors';
import { RequestLog } from './http/request-log';
import { requestLoggerFactory } from './http/request-logger';
import { censorSecrets, clientRequestId, requestSerializer, responseSerializer } from './lib/redact';
import { chargeRoutes } from './charges/routes';
import { installmentRoutes } from './installments/routes';
import { coproducerRoutes } from './splits/routes';
import { assertShippedMappings, loadMappings } from './mapping/loader';
import { GatewayHttp } from './gateways/http-client';
import { GATEWAYS_NAMING_CHARGE_ID } from './gateways/registry';
import { ChargeService, type GatewayDeps } from './charges/orchestrator';
import { Reconciler } from './charges/reconciler';
import { IdempotencyPurger } from './http/idempotency-purge';
import { CustomerService } from './charges/customers';
import { compatRoutes } from './compat/native-routes';
import { clock } from './lib/clock';
import { SafeHttp } from './webhooks/safe-http';
import { JwksCache } from './webhooks/jwks-cache';
import { SigningSecrets } from './webhooks/signing-secrets';
import { Forwarder } from './webhooks/forwarder';
import { DeliveryWorker } from './webhooks/worker';
import { WebhookProcessor } from './webhooks/processor';
import { webhookReceiverRoutes } from './webhooks/routes';
import { eventRoutes } from './webhooks/event-routes';
import { EventService } from './webhooks/events';
import { CoproducerService } from './splits/coproducers';
import { SessionService } from './auth/sessions';
import { LoginService } from './auth/logins';
import { LoginThrottle } from './auth/login-throttle';
import { SharedLoginThrottle } from './auth/shared-login-throttle';
import { dashboardPlugin } from './dashboard';

export interface AppOptions {
  config: Config;
  /** Tests pass a stream to read log lines; default is stdout. */
  logStream?: NodeJS.WritableStream;
  store?: Store;
  /** Fixtures that failed at start-up and were allowed by the emergency override (src/server.ts). */
  failingFixtures?: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
    vault: CredentialVault;
    charges: ChargeService;
    reconciler: Reconciler;
    idempotencyPurger: IdempotencyPurger;
    webhooks: { processor: WebhookProcessor; worker: DeliveryWorker; forwarder: Forwarder; secrets: SigningSecrets };
    logins: LoginService;
    mappingState: MappingState;
  }
}

/** Everything RouteGate serves, in request-path order; src/server.ts only adds listen and shutdown. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Secrets censored by src/lib/censor.ts rather than pino's `redact`, which tried every path on every key of
      // every line (and of every request's logger): ~15 µs a line.
      formatters: { log: censorSecrets },
      serializers: { req: requestSerializer, res: responseSerializer },
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    },
    childLoggerFactory: requestLoggerFactory(censorSecrets),
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    genReqId: (req) => clientRequestId(req.headers['x-request-id']) ?? randomUUID(),
    ajv: { customOptions: AJV_OPTIONS },
    // Behind a load balancer (ROUTEGATE_TRUST_PROXY) the client address comes from its X-Forwarded-For.
    trustProxy: config.trustProxy,
    frameworkErrors: frameworkErrors(config.production),
    clientErrorHandler: clientErrorHandler(config.production),
  });

  // Mappings compile before anything opens: a broken file stops start-up naming it.
  const mappings = loadMappings(config.mappingsDir);
  assertShippedMappings(config.mappingsDir, mappings);
  const mappingState = new MappingState(config.mappingsDir, mappings, opts.failingFixtures ?? []);
  const store = opts.store ?? await openStore(config, { serving: true });
  // Webhooks find these gateways' charges by RouteGate's own id: their gateway ids are indexed only for compatibility mode.
  store.charges.gatewaysNamingChargeId = GATEWAYS_NAMING_CHARGE_ID;
  const vault = new CredentialVault(store, config.masterKey);
  try {
    await vault.verifyMasterKey();
  } catch (err) {
    await store.close();
    throw err;
  }
  for (const w of config.warnings) app.log.warn(w);
  app.log.info({ mappingsDir: mappingState.dir, mappingsVersion: mappingState.version }, `mappings: ${describeFolder(mappingState.dir)}, version ${mappingState.version}`);
  app.decorate('mappingState', mappingState);
  app.decorate('store', store);
  app.decorate('config', config);
  app.decorate('vault', vault);
  app.decorateRequest('account', null as never);
  app.decorateRequest('settings', null as never);
  const http = new GatewayHttp({ connectTimeoutMs: config.connectTimeoutMs });
  const gatewayDeps: GatewayDeps = {
    store, vault, mappings, http, gatewayUrls: config.gatewayUrls, timeoutMs: config.gatewayTimeoutMs, requestDeadlineMs: config.requestDeadlineMs,
    reconcileBackoffMs: config.reconcileBackoffMs, settleHorizonMs: config.settleHorizonMs, wire: config.wire, log: app.log,
    // Read when a charge is sent (the webhook URL it carries): the sandbox sets it once it knows its port.
    get publicUrl() { return config.publicUrl; },
  };
  const charges = new ChargeService(gatewayDeps);
  const reconciler = new Reconciler(store, charges, app.log, { intervalMs: config.reconcileIntervalMs });
  app.decorate('charges', charges);
  app.decorate('reconciler', reconciler);
  // Webhooks: the clock is injectable (lib/clock) so replay windows and backoff are tested without waiting.
  const now = () => clock.now();
  const safeHttp = new SafeHttp({ production: config.production, allowPrivate: config.allowPrivateForwardUrls });
  const secrets = new SigningSecrets(store, config.masterKey, now);
  const forwarder = new Forwarder(store, secrets, safeHttp, app.log, { timeoutMs: config.webhookTimeoutMs, retryBaseMs: config.webhookRetryBaseMs, now });
  const worker = new DeliveryWorker(store, forwarder, app.log, { intervalMs: config.webhookWorkerIntervalMs, now });
  // Key documents (a JWKS URL) under the production policy without ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS, which is
  // for forward URLs only: nothing inside the network is reachable through a stored credential.
  const keyHttp = new SafeHttp({ production: config.production, allowPrivate: false });
  const jwks = new JwksCache((url, timeoutMs) => keyHttp.getDocument(url, timeoutMs), app.log);
  const processor = new WebhookProcessor({ gatewayDeps, charges, forwarder, http: jwks, log: app.log, now });
  app.decorate('webhooks', { processor, worker, forwarder, secrets });
  // One instance of each service behind both the API and the dashboard: the same rules whichever way a merchant acts.
  const events = new EventService(store, forwarder, now);
  const coproducers = new CoproducerService(store);
  const idempotencyPurger = new IdempotencyPurger(store, app.log);
  app.decorate('idempotencyPurger', idempotencyPurger);
  // Charges a crash left `processing` are settled as soon as the service is up, then periodically; so are the
  // deliveries a crash left in the outbox, and expired idempotency keys are deleted.
  app.addHook('onReady', async () => {
    reconciler.start();
    worker.start();
    idempotencyPurger.start();
  });
  app.addHook('onClose', async () => {
    await reconciler.stop();
    await worker.stop();
    await idempotencyPurger.stop();
    await http.close();
    await safeHttp.close();
    await keyHttp.close();
    await store.close();
  });
  // REDIS_URL: rate limits and the sign-in throttle counted across processes. Start-up waits briefly for the
  // connection and goes on without it (requests never wait for Redis: lib/redis.ts).
  const redis = config.redisUrl ? openRedis(config.redisUrl, app.log) : undefined;
  if (redis) {
    app.addHook('onClose', async () => closeRedis(redis));
    if (!(await redisReady(redis))) app.log.warn('Redis did not answer at start-up; starting without it (it is retried in the background)');
  }
  // Keys: <prefix>rate-limit:ip:<address>, <prefix>rate-limit:key:<account> and, counted apart as in memory,
  // <prefix>rate-limit:compat:key:<account>.
  const rateLimitStore = (scope = '') => (redis ? sharedStore(redis, config.redisPrefix, scope) : undefined);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  rejectNulCharacters(app);

  // Only JSON bodies on the public API (webhook receivers add their own raw parser in their context).
  app.removeContentTypeParser('text/plain');

  registerSchemas(app);
  const validator = new SchemaValidator();
  await registerIpRateLimit(app, { max: config.rateLimit, store: rateLimitStore() });
  await app.register(errorHandlerPlugin, { production: config.production });
  await registerDocs(app, config.publicUrl);

  await app.register(probeRoutes, { store, mappings, redis, mappingState });
  const metrics = new Metrics({ backlog: () => reconciler.backlog(), outboxBacklog: () => store.deliveries.backlog() });
  store.charges.attemptListener = (chargeId, attempt) => metrics.attemptFinished(chargeId, attempt);
  processor.listener = (gateway, stage) => metrics.webhook(gateway, stage);
  forwarder.listener = (outcome) => metrics.delivery(outcome);
  await app.register(metricsPlugin, { metrics, token: config.metricsToken, production: config.production });
  registerMappingMetrics(metrics.registry, mappingState);
  await app.register(mappingOpsRoutes, {
    state: mappingState, token: config.metricsToken,
    onReload: (r) => app.log[(r as { reloaded: boolean }).reloaded ? 'info' : 'error']({ reload: r }, (r as { reloaded: boolean }).reloaded ? 'mappings reloaded' : 'mappings reload refused: the running set is kept'),
  });

  // Webhook receivers: no x-api-key (the gateway's signature authenticates), the body kept as bytes.
  await app.register(webhookReceiverRoutes, { prefix: '/api/v1/webhooks', processor });
  const sessions = new SessionService(store, config.sessionTtlMs);
  const throttle = redis ? new SharedLoginThrottle(redis, config.redisPrefix, app.log) : new LoginThrottle();
  const logins = new LoginService(store, sessions, throttle);
  app.decorate('logins', logins);
  if (config.admin) await logins.ensureOperator(config.admin.email, config.admin.password);
  await app.register(dashboardPlugin, {
    prefix: '/dashboard', store, vault, validator, charges, logins, sessions, events, coproducers, publicUrl: () => config.publicUrl, mappingState,
    sessionKey: config.sessionKey, sessionTtlMs: config.sessionTtlMs, secureCookies: config.production,
  });

  await app.register(async (api) => {
    installAuth(api, store);
    await registerKeyRateLimit(api, { max: config.rateLimit, store: rateLimitStore() });
    await api.register(accountRoutes, { store, vault, validator, publicUrl: () => config.publicUrl });
    await api.register(chargeRoutes, { deps: gatewayDeps, charges, validator });
    await api.register(installmentRoutes, { deps: gatewayDeps });
    await api.register(coproducerRoutes, { coproducers });
    await api.register(eventRoutes, { events });
  }, { prefix: '/api/v1' });
  // Compatibility mode: the compat gateways' own paths, auth and errors (their own context: raw bodies, proxy).
  await app.register(compatRoutes, { services: { deps: gatewayDeps, charges, customers: new CustomerService(gatewayDeps), validator }, store, production: config.production, rateLimit: config.rateLimit, rateLimitStore: rateLimitStore('compat:') });

  return app;
}
