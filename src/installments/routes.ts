import type { FastifyInstance } from 'fastify';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { GatewayDeps } from '../charges/gateway-deps';
import { gatewayQuote, quotesNatively } from './gateway-quote';
import { quoteFor } from './quote';

const errors = {
  400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 403: { $ref: 'error-envelope#' }, 422: { $ref: 'error-envelope#' },
  502: { $ref: 'error-envelope#' }, 503: { $ref: 'error-envelope#' }, 504: { $ref: 'error-envelope#' },
};

/**
 * GET /installments: the plans a buyer can be shown for an amount (DESIGN.md "Installments (contract)"). With a
 * gateway that prices plans itself and the card's bin, the gateway's own quote (source "gateway"); otherwise the
 * account's settings (source "settings").
 */
export async function installmentRoutes(app: FastifyInstance, opts: { deps: GatewayDeps }): Promise<void> {
  app.get<{ Querystring: { amount: string; gateway?: string; bin?: string } }>('/installments', {
    schema: {
      tags: ['charges'], summary: 'Installment plans for an amount: count, installment, total, interest (cents)',
      querystring: { $ref: 'installment-quote-query#' }, response: { 200: { $ref: 'installment-quote-response#' }, ...errors },
    },
  }, async (request) => {
    const gateway = request.query.gateway === undefined ? undefined : (resolveGatewayId(request.query.gateway) as GatewayId);
    const amount = Number(request.query.amount);
    const bin = request.query.bin;
    if (gateway && bin !== undefined && quotesNatively(gateway)) {
      return { success: true, data: await gatewayQuote(opts.deps, request.account.id, request.settings.installments, amount, gateway, bin) };
    }
    return { success: true, data: quoteFor(request.settings.installments, amount, gateway ? { id: gateway, rule: ADAPTERS[gateway].installments } : undefined) };
  });
}
