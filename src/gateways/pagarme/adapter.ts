import { capabilityTable } from '../capabilities';
import { newestListed, normalizeCharge, normalizeCustomer, normalizeRefund, requireCredential, send, today, type Transport } from '../common';
import { GatewayFailure, type CallContext, type ChargeRef, type GatewayAdapter } from '../types';

// Pagar.me core v5 (shared/gateways/pagarme.md). Orders hold one charge; capture, cancel and refund act on
// the charge (refs.chargeId); cancel and refund are the same DELETE route.

const API = '/core/v5';

const transport: Transport = {
  // HTTP Basic with the secret key as user and an empty password (the trailing colon matters).
  authHeaders: (credentials) => ({ authorization: `Basic ${Buffer.from(`${credentials.secretKey ?? ''}:`).toString('base64')}` }),
  idempotencyHeader: 'idempotency-key',
  // Errors: classified by HTTP status; mappings/pagarme/error.response reads the text ({message, errors}).
};

function chargeIdOf(ctx: CallContext, ref: ChargeRef): string {
  const id = ref.refs?.chargeId;
  if (!id) throw new GatewayFailure('bad_response', ctx.gateway, `pagarme charge ${ref.externalId} has no stored charge id`);
  return id;
}

async function retrieveCharge(ctx: CallContext, ref: ChargeRef) {
  return normalizeCharge(ctx, await send(ctx, transport, { method: 'GET', path: `${API}/orders/${encodeURIComponent(ref.externalId)}` }));
}

/** GET /orders?code= (the create sends RouteGate's charge id as the order code); the list reads are consistent. */
async function lookupCharge(ctx: CallContext, reference: string) {
  requireCredential(ctx, 'secretKey');
  const reply = await send(ctx, transport, { method: 'GET', path: `${API}/orders?code=${encodeURIComponent(reference)}&page=1&size=30` });
  const order = newestListed(ctx, reply, 'data', (o) => Date.parse(o.created_at));
  return order ? normalizeCharge(ctx, { ...reply, json: order }) : null;
}

export const pagarmeAdapter: GatewayAdapter = {
  id: 'pagarme',
  amountUnit: 'minor',
  currencies: ['BRL'],
  installments: { currencies: ['BRL'], maxCount: 12, why: 'takes credit_card.installments from 1 to 12' },
  keepsIdempotencyKeys: true,
  lookupProvesAbsence: true,
  defaultBaseUrl: 'https://api.pagar.me',
  // Boleto and pix refunds on PSP accounts are bank transfers that need the payer's bank account,
  // which a normalized refund does not carry; pending ones can still be cancelled.
  split: {
    options: ['chargeProcessingFee', 'liable'], ownRecipientCredential: 'recipientId',
    describe: '`payments[].split[]` (percentage or flat, `options`), the account\'s own recipient (credentials `recipientId`) taking the rest',
  },
  capabilities: capabilityTable({
    boleto: { capture: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
    pix: { capture: 'unsupported' },
  }),
  requirements: [
    { methods: ['pix'], needs: ['payer.phone'], reason: 'MISSING_PAYER_DATA', why: 'needs a customer phone on pix orders ("At least one customer phone is required.")' },
    {
      methods: ['boleto'], reason: 'MISSING_PAYER_DATA', why: 'registers a boleto with the customer address (line_1, zip_code, city, state)',
      needs: ['payer.address.street', 'payer.address.number', 'payer.address.city', 'payer.address.state', 'payer.address.postalCode'],
    },
    {
      methods: ['debit_card'], needs: ['charge.debitCard.authentication'], reason: 'AUTHENTICATION_REQUIRED',
      why: 'takes debit cards only with 3-D Secure authentication data (debitCard.authentication: eci, cavv, ...)',
    },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'secretKey');
    const body = await ctx.mappings.evaluate('charge.request', { charge, chargeId: ctx.chargeId, today: today() });
    const reply = await send(ctx, transport, { method: 'POST', path: `${API}/orders`, body, idempotencyKey: ctx.idempotencyKey });
    return normalizeCharge(ctx, reply);
  },

  retrieveCharge,
  lookupCharge,

  async captureCharge(ctx, ref, amount) {
    const path = `${API}/charges/${encodeURIComponent(chargeIdOf(ctx, ref))}/capture`;
    const body = await ctx.mappings.evaluate('capture.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    return normalizeCharge(ctx, await send(ctx, transport, { method: 'POST', path, body, idempotencyKey: `${ctx.idempotencyKey}-capture` }));
  },

  async cancelCharge(ctx, ref) {
    const body = await ctx.mappings.evaluate('cancel.request', { ref, chargeId: ctx.chargeId });
    const path = `${API}/charges/${encodeURIComponent(chargeIdOf(ctx, ref))}`;
    return normalizeCharge(ctx, await send(ctx, transport, { method: 'DELETE', path, body, idempotencyKey: `${ctx.idempotencyKey}-cancel` }));
  },

  async refundCharge(ctx, ref, amount) {
    const body = await ctx.mappings.evaluate('refund.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    const path = `${API}/charges/${encodeURIComponent(chargeIdOf(ctx, ref))}`;
    const reply = await send(ctx, transport, { method: 'DELETE', path, body, idempotencyKey: `${ctx.idempotencyKey}-refund` });
    return { ...(await normalizeCharge(ctx, reply)), refund: await normalizeRefund(ctx, reply.json) };
  },

  async createCustomer(ctx, customer) {
    requireCredential(ctx, 'secretKey');
    const body = await ctx.mappings.evaluate('customer.request', { customer });
    return normalizeCustomer(ctx, await send(ctx, transport, { method: 'POST', path: `${API}/customers`, body, idempotencyKey: ctx.idempotencyKey }));
  },
};
