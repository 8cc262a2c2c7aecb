import type { FastifyInstance } from 'fastify';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import { quoteFor } from './quote';

const errors = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' } };

/** GET /installments: the plans a buyer can be shown for an amount (DESIGN.md "Installments (contract)"). */
export async function installmentRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { amount: string; gateway?: string; bin?: string } }>('/installments', {
    schema: {
      tags: ['charges'], summary: 'Installment plans for an amount: count, installment, total, interest (cents)',
      querystring: { $ref: 'installment-quote-query#' }, response: { 200: { $ref: 'installment-quote-response#' }, ...errors },
    },
  }, async (request) => {
    const gateway = request.query.gateway === undefined ? undefined : (resolveGatewayId(request.query.gateway) as GatewayId);
    const amount = Number(request.query.amount);
    return { success: true, data: quoteFor(request.settings.installments, amount, gateway ? { id: gateway, rule: ADAPTERS[gateway].installments } : undefined) };
  });
}
