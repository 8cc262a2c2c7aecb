import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Config } from './config';
import { openStore, type Store } from './store';
import { CredentialVault } from './accounts/credential-vault';
import { accountRoutes } from './accounts/routes';
import { installAuth } from './auth/plugin';
import { errorHandlerPlugin } from './http/error-handler';
import { AJV_OPTIONS, registerSchemas, SchemaValidator } from './http/schemas';
import { registerIpRateLimit, registerKeyRateLimit } from './http/rate-limit';
import { registerDocs } from './http/docs';
import { probeRoutes } from './http/probes';
import { Metrics, metricsPlugin } from './http/metrics';
import { clientErrorHandler, frameworkErrors } from './http/framework-errors';
import { REDACT_PATHS, clientRequestId, requestSerializer } from './lib/redact';
import { chargeRoutes } from './charges/routes';
import { assertShippedMappings, loadMappings } from './mapping/loader';
import { GatewayHttp } from './gateways/http-client';
import { ChargeService, type GatewayDeps } from './charges/orchestrator';
import { Reconciler } from './charges/reconciler';
import { SessionService } from './auth/sessions';
import { LoginService } from './auth/logins';
import { dashboardPlugin } from './dashboard';

export interface AppOptions {
  config: Config;
  /** Tests pass a stream to read log lines; default is stdout. */
  logStream?: NodeJS.WritableStream;
  store?: Store;
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
    vault: CredentialVault;
    charges: ChargeService;
    reconciler: Reconciler;
    logins: LoginService;
  }
}

/** Everything RouteGate serves, in request-path order; src/server.ts only adds listen and shutdown. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: { req: requestSerializer },
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    },
    bodyLimit: config.bodyLimit,
    genReqId: (req) => clientRequestId(req.headers['x-request-id']) ?? randomUUID(),
    ajv: { customOptions: AJV_OPTIONS },
    trustProxy: false,
    frameworkErrors: frameworkErrors(config.production),
    clientErrorHandler: clientErrorHandler(config.production),
  });

  // Mappings compile before anything opens: a broken file stops start-up naming it.
  const mappings = loadMappings(config.mappingsDir);
  assertShippedMappings(config.mappingsDir, mappings);
  const store = opts.store ?? openStore(config.dbPath);
  const vault = new CredentialVault(store, config.masterKey);
  try {
    vault.verifyMasterKey();
  } catch (err) {
    store.close();
    throw err;
  }
  for (const w of config.warnings) app.log.warn(w);
  app.decorate('store', store);
  app.decorate('config', config);
  app.decorate('vault', vault);
  app.decorateRequest('account', null as never);
  app.decorateRequest('settings', null as never);
  const http = new GatewayHttp({ connectTimeoutMs: config.connectTimeoutMs });
  const gatewayDeps: GatewayDeps = {
    store, vault, mappings, http, gatewayUrls: config.gatewayUrls, timeoutMs: config.gatewayTimeoutMs, requestDeadlineMs: config.requestDeadlineMs,
    reconcileBackoffMs: config.reconcileBackoffMs, wire: config.wire, publicUrl: config.publicUrl,
  };
  const charges = new ChargeService(gatewayDeps);
  const reconciler = new Reconciler(store, charges, app.log, { intervalMs: config.reconcileIntervalMs });
  app.decorate('charges', charges);
  app.decorate('reconciler', reconciler);
  // Charges a crash left `processing` are settled as soon as the service is up, then periodically.
  app.addHook('onReady', async () => reconciler.start());
  app.addHook('onClose', async () => {
    await reconciler.stop();
    await http.close();
    store.close();
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Only JSON bodies on the public API (webhook receivers add their own raw parser in their context).
  app.removeContentTypeParser('text/plain');

  registerSchemas(app);
  const validator = new SchemaValidator();
  await registerIpRateLimit(app, { max: config.rateLimit });
  await app.register(errorHandlerPlugin, { production: config.production });
  await registerDocs(app, config.publicUrl);

  await app.register(probeRoutes, { store, mappings });
  const metrics = new Metrics({ backlog: () => reconciler.backlog() });
  store.charges.attemptListener = (chargeId, attempt) => metrics.attemptFinished(chargeId, attempt);
  await app.register(metricsPlugin, { metrics, token: config.metricsToken });

  const sessions = new SessionService(store, config.sessionTtlMs);
  const logins = new LoginService(store, sessions);
  app.decorate('logins', logins);
  if (config.admin) await logins.ensureOperator(config.admin.email, config.admin.password);
  await app.register(dashboardPlugin, {
    prefix: '/dashboard', store, vault, validator, charges, logins, sessions, publicUrl: config.publicUrl,
    sessionKey: config.sessionKey, sessionTtlMs: config.sessionTtlMs, secureCookies: config.production,
  });

  await app.register(async (api) => {
    installAuth(api, store);
    await registerKeyRateLimit(api, { max: config.rateLimit });
    await api.register(accountRoutes, { store, vault, validator, publicUrl: config.publicUrl });
    await api.register(chargeRoutes, { deps: gatewayDeps, charges });
  }, { prefix: '/api/v1' });

  return app;
}
