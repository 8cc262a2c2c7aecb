import Fastify, { type FastifyInstance } from 'fastify';
import qs from 'qs';
import { GATEWAYS, GATEWAY_IDS } from '../gateways/registry';
import { EmulatorControl, applyAfterHandler, controlRoutes, recordAndApplyFault } from './control';
import { webhookControlRoutes } from './webhook-routes';
import type { WireSettings } from '../gateways/types';
import { parseWireSettings } from '../gateways/wire';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

export interface EmulatorServer {
  app: FastifyInstance;
  control: EmulatorControl;
  url: string; // e.g. http://127.0.0.1:4010
  gatewayUrl(gateway: string): string;
  close(): Promise<void>;
}

/** Every registered gateway's emulator in one fastify app, each under /<id>, plus /__control. */
export async function buildEmulatorApp(options: { logger?: boolean; wire?: WireSettings } = {}): Promise<{ app: FastifyInstance; control: EmulatorControl }> {
  const wire = options.wire ?? parseWireSettings(process.env);
  const control = new EmulatorControl(GATEWAY_IDS);
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: 1024 * 1024 });

  // Keep the raw text: emulated gateways compare bodies for idempotency and tests assert exact bytes.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    req.rawBody = body as string;
    if ((body as string).length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      const err = Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 });
      done(err, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
    req.rawBody = body as string;
    done(null, qs.parse(body as string, { arrayLimit: 100, depth: 10 }));
  });

  app.addHook('preHandler', (request, reply) => recordAndApplyFault(control, request, reply));
  app.addHook('onSend', (request, _reply, payload) => applyAfterHandler(control, request, payload));
  app.addHook('onClose', async () => {
    control.releaseHanging();
    await control.webhooks.stop();
  });

  await app.register(controlRoutes, { prefix: '/__control', control });
  await app.register(webhookControlRoutes, { prefix: '/__control', control });
  for (const g of GATEWAYS) {
    await app.register(g.emulator, { prefix: `/${g.id}`, gateway: g.id, control, wire, webhookSecret: g.sandboxCredentials.webhookSecret });
  }
  return { app, control };
}

export async function startEmulators(options: { port?: number; host?: string; logger?: boolean; wire?: WireSettings } = {}): Promise<EmulatorServer> {
  const { app, control } = await buildEmulatorApp({ logger: options.logger, wire: options.wire });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host}:${port}`;
  return {
    app,
    control,
    url,
    gatewayUrl: (gateway) => `${url}/${gateway}`,
    close: async () => {
      control.releaseHanging();
      await app.close();
    },
  };
}
