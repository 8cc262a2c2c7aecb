import { capabilityTable } from '../capabilities';
import { normalizeCharge, normalizeRefund, requireCredential, send, type Transport } from '../common';
import { GatewayFailure, type ChargeRef, type GatewayAdapter } from '../types';

// Template: a made-up JSON API in integer cents (the emulator beside this file is its only documentation).
// POST /v1/payments creates a card or pix payment; capture, cancel and refunds are POSTs on the payment; every
// answer is the payment, and a refund answers the payment with its refunds. Payload shapes live in
// mappings/template/; this file holds only transport, paths and what the gateway can do.

const transport: Transport = {
  authHeaders: (credentials) => ({ authorization: `Bearer ${credentials.apiKey ?? ''}` }),
  idempotencyHeader: 'idempotency-key',
  // Errors: the default classification by HTTP status (401/403 auth, 404, 429, 5xx) over what
  // mappings/template/error.response reads from the body; declines are 201 payments. A gateway whose declines are
  // HTTP errors adds classifyError(reply, gateway, facts) here, deciding from the facts, never reading the body.
};

const paymentPath = (ref: ChargeRef, action = '') => `/v1/payments/${encodeURIComponent(ref.externalId)}${action}`;

export const templateAdapter: GatewayAdapter = {
  id: 'template',
  amountUnit: 'minor',
  currencies: ['BRL'],
  // The emulator answers a repeated Idempotency-Key with the first answer, so an unknown outcome is settled by replay.
  keepsIdempotencyKeys: true,
  defaultBaseUrl: 'https://api.template.example',
  // Cards (credit) and pix. A pix cannot be pre-authorized; debit cards and boleto are not offered.
  capabilities: capabilityTable({
    debit_card: { charge: 'unsupported', capture: 'unsupported', cancel: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
    boleto: { charge: 'unsupported', capture: 'unsupported', cancel: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
    pix: { capture: 'unsupported' },
  }, 'unsupported'),
  // What the real API refuses a charge without, as data: the router checks it before any call.
  requirements: [
    { methods: ['pix'], needs: ['payer.document'], reason: 'MISSING_PAYER_DATA', why: 'needs the payer tax id (CPF or CNPJ) on pix payments' },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'apiKey');
    const body = await ctx.mappings.evaluate('charge.request', { charge, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, { method: 'POST', path: '/v1/payments', body, idempotencyKey: ctx.idempotencyKey });
    return normalizeCharge(ctx, reply);
  },

  async retrieveCharge(ctx, ref) {
    return normalizeCharge(ctx, await send(ctx, transport, { method: 'GET', path: paymentPath(ref) }));
  },

  async captureCharge(ctx, ref, amount) {
    const body = await ctx.mappings.evaluate('capture.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    return normalizeCharge(ctx, await send(ctx, transport, { method: 'POST', path: paymentPath(ref, '/capture'), body, idempotencyKey: `${ctx.idempotencyKey}-capture` }));
  },

  // Every call with a body has a mapping; a call whose real API takes no body sends none and says so here.
  async cancelCharge(ctx, ref) {
    const body = await ctx.mappings.evaluate('cancel.request', { ref, chargeId: ctx.chargeId });
    return normalizeCharge(ctx, await send(ctx, transport, { method: 'POST', path: paymentPath(ref, '/cancel'), body, idempotencyKey: `${ctx.idempotencyKey}-cancel` }));
  },

  async refundCharge(ctx, ref, amount) {
    const body = await ctx.mappings.evaluate('refund.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, { method: 'POST', path: paymentPath(ref, '/refunds'), body, idempotencyKey: `${ctx.idempotencyKey}-refund` });
    return { ...(await normalizeCharge(ctx, reply)), refund: await normalizeRefund(ctx, reply.json) };
  },

  // capabilities.customer is unsupported, so the router answers 422 before this is ever called.
  async createCustomer(ctx) {
    throw new GatewayFailure('unsupported', ctx.gateway, `${ctx.gateway} has no customer resource: send the payer inline as customer`);
  },
};
