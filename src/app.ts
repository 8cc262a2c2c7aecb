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
import { REDACT_PATHS, requestSerializer } from './lib/redact';
import { RouteGateError } from './errors';
import { chargeRoutes } from './charges/routes';
import { loadMappings } from './mapping/loader';
import { GatewayHttp } from './gateways/http-client';

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
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: AJV_OPTIONS },
    trustProxy: false,
  });

  // Mappings compile before anything opens: a broken file stops start-up naming it.
  const mappings = loadMappings(config.mappingsDir);
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
  const http = new GatewayHttp();
  app.addHook('onClose', async () => {
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

  app.get('/health', { schema: { hide: true } }, async (_req, reply) => {
    try {
      store.db.prepare('SELECT 1').get();
      return { status: 'ok', database: 'ok' };
    } catch (err) {
      throw new RouteGateError('SERVICE_UNAVAILABLE', 'Database is not available', { cause: err });
    }
  });

  await app.register(async (api) => {
    installAuth(api, store);
    await registerKeyRateLimit(api, { max: config.rateLimit });
    await api.register(accountRoutes, { store, vault, validator, publicUrl: config.publicUrl });
    await api.register(chargeRoutes, { store, vault, mappings, http, gatewayUrls: config.gatewayUrls, timeoutMs: config.gatewayTimeoutMs,
      wire: config.wire, publicUrl: config.publicUrl,
    });
  }, { prefix: '/api/v1' });

  return app;
}
