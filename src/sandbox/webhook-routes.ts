import type { FastifyInstance } from 'fastify';
import type { GatewayId } from '../gateways/types';
import type { EmulatorControl } from './control';

/**
 * /__control/webhooks: what a gateway's dashboard would hold (the endpoint URL its webhooks go to, the signing
 * secret) and the record of every webhook sent, with each attempt's answer. Gateways that take a URL per charge
 * send to that URL instead when the charge carried one.
 */
export async function webhookControlRoutes(app: FastifyInstance, opts: { control: EmulatorControl }): Promise<void> {
  const { control } = opts;
  const webhooks = control.webhooks;
  const gatewayQuery = {
    type: 'object', additionalProperties: false,
    properties: { gateway: { type: 'string', enum: [...control.gateways] } },
  };

  app.post<{ Body: { gateway: string; url?: string; secret?: string } }>('/webhooks', {
    schema: {
      body: {
        type: 'object', required: ['gateway'], additionalProperties: false, minProperties: 2,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] },
          url: { type: 'string', pattern: '^https?://\\S+$' },
          secret: { type: 'string', minLength: 1 },
        },
      },
    },
  }, async (req, reply) => {
    const { gateway, url, secret } = req.body;
    const endpoint = webhooks.register(gateway as GatewayId, { url, secret });
    return reply.code(201).send({ gateway, url: endpoint.url ?? null, secret: endpoint.secret !== undefined });
  });

  app.get<{ Querystring: { gateway?: string } }>('/webhooks', { schema: { querystring: gatewayQuery } }, async (req) => {
    const gateway = req.query.gateway as GatewayId | undefined;
    return {
      endpoints: webhooks.listEndpoints().filter((e) => !gateway || e.gateway === gateway),
      timeScale: webhooks.timeScale,
      deliveries: webhooks.list(gateway),
    };
  });

  app.delete<{ Querystring: { gateway?: string } }>('/webhooks', { schema: { querystring: gatewayQuery } }, async (req) => {
    webhooks.unregister(req.query.gateway as GatewayId | undefined);
    return { cleared: true };
  });

  // Real retry schedules span hours or days; the scale shrinks them (0.001: a minute lasts 60 ms).
  app.post<{ Body: { timeScale: number } }>('/webhooks/settings', {
    schema: {
      body: {
        type: 'object', required: ['timeScale'], additionalProperties: false,
        properties: { timeScale: { type: 'number', exclusiveMinimum: 0, maximum: 1 } },
      },
    },
  }, async (req) => {
    webhooks.timeScale = req.body.timeScale;
    return { timeScale: webhooks.timeScale };
  });
}
