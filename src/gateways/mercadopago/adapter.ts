import { capabilityTable } from '../capabilities';
import { newestListed, normalizeCharge, normalizeCustomer, normalizeRefund, queryOf, requireCredential, send, today, type Transport } from '../common';
import type { GatewayReply } from '../http-client';
import { GatewayFailure, type CallContext, type ChargeOutcome, type ChargeRef, type GatewayAdapter, type GatewayQuotedPlan, type InstallmentQuoteRequest, type NormalizedCharge } from '../types';

// Mercado Pago Payments API v1 (shared/gateways/mercadopago.md). One payment per charge, numeric id as the
// externalId; capture and cancel are PUT /v1/payments/{id}; refunds are their own resource, so a refund
// re-reads the payment. Raw card data is first exchanged for a card token (POST /v1/card_tokens).

const transport: Transport = {
  authHeaders: (credentials) => ({ authorization: `Bearer ${credentials.accessToken ?? ''}` }),
  // Required on POST /v1/payments and refunds; the SDK sends one on every write, and so do we.
  idempotencyHeader: 'x-idempotency-key',
  // Declines are HTTP 201 with status rejected (normalizeCharge turns them into decline failures), so every
  // non-2xx here is an error proper, classified by HTTP status; mappings/mercadopago/error.response reads
  // {message, error, status, cause: [{code, description}]} into the message (with the cause codes) and code.
};

const paymentPath = (ref: ChargeRef) => `/v1/payments/${encodeURIComponent(ref.externalId)}`;

// Without it MP answers a pix refund still in process (contingency) with 400; with it, 201 and status in_process, and
// the refund reads answer in_process too (mercadopago.md section 3; MP's "Refund of transactions with Pix" guide).
const IN_PROCESS_REFUNDS = { 'x-render-in-process-refunds': 'true' };

// Cause 101: a customer with this e-mail exists already (mercadopago.md section 4).
const CUSTOMER_EXISTS = '101';

/** Raw card data goes to POST /v1/card_tokens first; a given token (or no card number) skips it. */
async function tokenizeCard(ctx: CallContext, charge: NormalizedCharge): Promise<string | undefined> {
  const card = charge.creditCard;
  if (!(charge.paymentMethod === 'credit_card' || charge.paymentMethod === 'debit_card') || !card?.number || card.token) return undefined;
  const body = await ctx.mappings.evaluate('card_token.request', { charge, chargeId: ctx.chargeId });
  let reply: GatewayReply;
  try {
    reply = await send(ctx, transport, { method: 'POST', path: '/v1/card_tokens', body });
  } catch (err) {
    // Whatever happened to the token call, no payment can exist yet: the attempt is not ambiguous.
    if (err instanceof GatewayFailure && err.info.ambiguous) throw new GatewayFailure(err.kind, err.gateway, err.message, { ...err.info, ambiguous: false });
    throw err;
  }
  const id = (reply.json as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || id === '') {
    throw new GatewayFailure('bad_response', ctx.gateway, 'mercadopago card token response has no id', { status: reply.status });
  }
  return id;
}

async function retrieveCharge(ctx: CallContext, ref: ChargeRef): Promise<ChargeOutcome> {
  requireCredential(ctx, 'accessToken');
  return normalizeCharge(ctx, await send(ctx, transport, { method: 'GET', path: paymentPath(ref) }));
}

/** GET /v1/payments/search by external_reference (the create sends RouteGate's charge id), newest first. */
async function lookupCharge(ctx: CallContext, reference: string): Promise<ChargeOutcome | null> {
  requireCredential(ctx, 'accessToken');
  const path = `/v1/payments/search?external_reference=${encodeURIComponent(reference)}&sort=date_created&criteria=desc&limit=30`;
  const reply = await send(ctx, transport, { method: 'GET', path });
  const payment = newestListed(ctx, reply, 'results', (p) => Date.parse(p.date_created));
  return payment ? normalizeCharge(ctx, { ...reply, json: payment }) : null;
}

/** PUT /v1/payments/{id}: the one update route for capture and cancel; the body is the action's mapping. */
async function updatePayment(ctx: CallContext, ref: ChargeRef, action: 'capture' | 'cancel', amount?: number): Promise<ChargeOutcome> {
  requireCredential(ctx, 'accessToken');
  const body = await ctx.mappings.evaluate(`${action}.request`, { amount: amount ?? null, ref, chargeId: ctx.chargeId });
  const reply = await send(ctx, transport, { method: 'PUT', path: paymentPath(ref), body, idempotencyKey: `${ctx.idempotencyKey}-${action}` });
  return normalizeCharge(ctx, reply);
}

/** GET a resource with the account's token (a subscription the webhook receiver reads); its JSON body. */
export async function readResource(ctx: CallContext, path: string): Promise<unknown> {
  requireCredential(ctx, 'accessToken');
  return (await send(ctx, transport, { method: 'GET', path })).json;
}

/**
 * GET /v1/payment_methods/installments?amount=&bin=: the card's issuer's payer_costs (installments.request and
 * installments.response convert the amounts). Mercado Pago prices per issuer, so the quote needs the bin.
 */
async function quoteInstallments(ctx: CallContext, request: InstallmentQuoteRequest): Promise<GatewayQuotedPlan[]> {
  requireCredential(ctx, 'accessToken');
  const params = await ctx.mappings.evaluate<Record<string, unknown>>('installments.request', request);
  const reply = await send(ctx, transport, { method: 'GET', path: `/v1/payment_methods/installments?${queryOf(params)}` });
  return (await ctx.mappings.evaluate<GatewayQuotedPlan[] | undefined>('installments.response', { response: reply.json })) ?? [];
}

export const mercadopagoAdapter: GatewayAdapter = {
  id: 'mercadopago',
  amountUnit: 'major',
  currencies: ['BRL'],
  installments: { currencies: ['BRL'], maxCount: 12, why: 'takes installments from 1 to 12 (error 4033 above)', quotedPlan: 'price' },
  keepsIdempotencyKeys: true,
  lookupProvesAbsence: true,
  defaultBaseUrl: 'https://api.mercadopago.com',
  // capture:false exists for cards only. A pending pix/boleto can be cancelled; once paid, MP refunds pix
  // and boleto (fully or partly) to the payer's account, like cards.
  capabilities: capabilityTable({
    pix: { capture: 'unsupported' },
    boleto: { capture: 'unsupported' },
  }),
  requirements: [
    {
      methods: ['boleto'], reason: 'MISSING_PAYER_DATA', why: 'boleto needs the payer identification and full address (zip, street, number, neighborhood, city, UF)',
      needs: ['payer.document', 'payer.address.street', 'payer.address.number', 'payer.address.district', 'payer.address.city', 'payer.address.state', 'payer.address.postalCode'],
    },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'accessToken');
    const cardToken = await tokenizeCard(ctx, charge);
    const input = { charge, chargeId: ctx.chargeId, today: today(), now: new Date().toISOString(), cardToken, webhookUrl: ctx.webhookUrl };
    const body = await ctx.mappings.evaluate('charge.request', input);
    const reply = await send(ctx, transport, { method: 'POST', path: '/v1/payments', body, idempotencyKey: ctx.idempotencyKey });
    return normalizeCharge(ctx, reply);
  },

  retrieveCharge,
  lookupCharge,
  quoteInstallments,

  // A partial capture names the amount (capture.request converts it to reais); MP releases the rest of the reserve.
  captureCharge: (ctx, ref, amount) => updatePayment(ctx, ref, 'capture', amount),

  cancelCharge: (ctx, ref) => updatePayment(ctx, ref, 'cancel'),

  // The refund answer is a refund object, not the payment: read the payment afterwards for its status and
  // transaction_amount_refunded. Replayed under the same key MP answers 200 with an empty body; then the
  // payment's latest refund stands for the one the first call created.
  async refundCharge(ctx, ref, amount) {
    requireCredential(ctx, 'accessToken');
    const body = await ctx.mappings.evaluate('refund.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, {
      method: 'POST', path: `${paymentPath(ref)}/refunds`, body, idempotencyKey: `${ctx.idempotencyKey}-refund`, headers: IN_PROCESS_REFUNDS,
    });
    let outcome: ChargeOutcome;
    try {
      outcome = await retrieveCharge(ctx, ref);
    } catch (err) {
      // Mercado Pago made the refund (its answer is the refund): a failed read after it is not the refund's failure.
      const f = err instanceof GatewayFailure ? err : undefined;
      const accepted = { raw: reply.json, refund: await normalizeRefund(ctx, reply.json) };
      throw new GatewayFailure(f?.kind ?? 'bad_response', ctx.gateway, `refund accepted; reading the payment after it failed: ${(err as Error).message}`, { status: f?.info.status, accepted });
    }
    const refunds = (outcome.raw as { refunds?: unknown[] } | undefined)?.refunds;
    const recorded = reply.json ?? (Array.isArray(refunds) ? refunds[refunds.length - 1] : undefined);
    return { ...outcome, refund: await normalizeRefund(ctx, recorded) };
  },

  // A refund answered in_process, read again by its id (GET /v1/payments/{id}/refunds/{refund_id}), with the payment.
  async readRefund(ctx, ref, refundId) {
    requireCredential(ctx, 'accessToken');
    let reply: GatewayReply;
    try {
      reply = await send(ctx, transport, { method: 'GET', path: `${paymentPath(ref)}/refunds/${encodeURIComponent(refundId)}`, headers: IN_PROCESS_REFUNDS });
    } catch (err) {
      if (err instanceof GatewayFailure && err.info.status === 404) return null;
      throw err;
    }
    const outcome = await retrieveCharge(ctx, ref);
    return { ...outcome, refund: await normalizeRefund(ctx, reply.json) };
  },

  // MP keeps one customer per e-mail: a duplicate (cause 101) answers with the existing customer instead.
  async createCustomer(ctx, customer) {
    requireCredential(ctx, 'accessToken');
    const body = await ctx.mappings.evaluate('customer.request', { customer });
    try {
      return await normalizeCustomer(ctx, await send(ctx, transport, { method: 'POST', path: '/v1/customers', body, idempotencyKey: ctx.idempotencyKey }));
    } catch (err) {
      if (!(err instanceof GatewayFailure && err.kind === 'invalid_request' && err.info.error?.codes?.includes(CUSTOMER_EXISTS))) throw err;
      const search = await send(ctx, transport, { method: 'GET', path: `/v1/customers/search?email=${encodeURIComponent(customer.email)}` });
      const existing = (search.json as { results?: unknown[] } | undefined)?.results?.[0];
      if (!existing) throw err;
      return normalizeCustomer(ctx, { ...search, json: existing });
    }
  },
};
