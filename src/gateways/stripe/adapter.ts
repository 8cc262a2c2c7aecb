import qs from 'qs';
import { capabilityTable } from '../capabilities';
import type { GatewayReply } from '../http-client';
import { classifyHttpError, newestListed, normalizeCharge, normalizeCustomer, normalizeRefund, requireCredential, send, today, type Transport } from '../common';
import { API_VERSION_SETTING, STRIPE_API_VERSION } from './wire';
import {
  GatewayFailure, type CallContext, type ChargeRef, type DeclineCode, type GatewayAdapter, type GatewayErrorFacts, type NormalizedCharge,
  type NormalizedChargeResult, type PaymentMethod, type RefundResult,
} from '../types';

// Stripe PaymentIntents (shared/gateways/stripe.md). Form-encoded bodies with bracket notation, Bearer secret
// key, Idempotency-Key. Raw cards become a PaymentMethod first (no raw PAN on a PaymentIntent); declines are
// HTTP 402 card_errors that still carry the PaymentIntent; refunded amounts live on the expanded latest_charge.

const INTENTS = '/v1/payment_intents';
const WITH_CHARGE = '?expand[]=latest_charge';

// Card data Stripe refuses before any authorization (a 402 card_error too): the input is wrong, no issuer said no.
const BAD_CARD_DATA = new Set(['incorrect_number', 'invalid_number', 'invalid_expiry_month', 'invalid_expiry_year', 'invalid_cvc']);
const SAME_CODE: DeclineCode[] = ['expired_card', 'incorrect_cvc', 'processing_error'];

// Stripe reports some rate limits and lock contention as 400 with these codes (stripe.md section 5).
const RATE_LIMIT_CODES = new Set(['rate_limit', 'lock_timeout']);

/** stripe.md section 5: insufficient_funds comes as decline_code; expired/cvc/processing as code; the rest is a decline. */
export function stripeDeclineCode(err: GatewayErrorFacts): DeclineCode {
  if (err.declineCode === 'insufficient_funds' || err.code === 'insufficient_funds') return 'insufficient_funds';
  const same = SAME_CODE.find((c) => c === err.code);
  return same ?? 'card_declined';
}

const transport: Transport = {
  authHeaders: (credentials) => ({ authorization: `Bearer ${credentials.secretKey ?? ''}` }),
  // Pinned on every call: unpinned, Stripe answers in the account's default version, whose request and
  // response shapes the mappings were not written for (stripe.md section 2: endive drops payment_method_types).
  fixedHeaders: (ctx) => ({ 'stripe-version': ctx.wire?.[API_VERSION_SETTING] ?? STRIPE_API_VERSION }),
  encodeBody: (body) => ({
    contentType: 'application/x-www-form-urlencoded',
    payload: qs.stringify(body, { encodeValuesOnly: true, arrayFormat: 'indices' }),
  }),
  idempotencyHeader: 'idempotency-key',
  // The facts come from mappings/stripe/error.response ({error: {type, code, decline_code, message, param, payment_intent}}).
  classifyError(reply, gateway, err) {
    if (reply.status === 402 && err.type === 'card_error' && !BAD_CARD_DATA.has(err.code ?? '')) {
      return new GatewayFailure('decline', gateway, err.message ?? 'Your card was declined.', {
        status: reply.status, body: reply.json, error: err, declineCode: stripeDeclineCode(err),
      });
    }
    if (RATE_LIMIT_CODES.has(err.code ?? '')) {
      return new GatewayFailure('rate_limited', gateway, err.message ?? 'rate limited', { status: reply.status, body: reply.json, error: err });
    }
    return classifyHttpError(reply, gateway, err);
  },
};

const intentPath = (ref: ChargeRef, action = '') => `${INTENTS}/${encodeURIComponent(ref.externalId)}${action}`;
const isCard = (m: PaymentMethod) => m === 'credit_card' || m === 'debit_card';

/** Raw card data needs a PaymentMethod first; a token or saved payment method goes straight to the PaymentIntent. */
async function createPaymentMethod(ctx: CallContext, charge: NormalizedCharge): Promise<string | undefined> {
  const card = charge.creditCard;
  if (!isCard(charge.paymentMethod) || !card || card.token || card.paymentMethodId) return undefined;
  const body = await ctx.mappings.evaluate('payment_method.request', { charge });
  let reply: GatewayReply;
  try {
    reply = await send(ctx, transport, { method: 'POST', path: '/v1/payment_methods', body, idempotencyKey: `${ctx.idempotencyKey}-pm` });
  } catch (err) {
    // Whatever happened to this call, no PaymentIntent can exist yet: the attempt is not ambiguous.
    if (err instanceof GatewayFailure && err.info.ambiguous) throw new GatewayFailure(err.kind, err.gateway, err.message, { ...err.info, ambiguous: false });
    throw err;
  }
  const id = (reply.json as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') throw new GatewayFailure('bad_response', ctx.gateway, 'stripe payment_method response has no id', { status: reply.status, body: reply.json });
  return id;
}

/** A boleto needs the payer's name, e-mail and tax id; with only a customerId they come from the Stripe customer. */
async function payerCustomer(ctx: CallContext, charge: NormalizedCharge): Promise<unknown> {
  if (charge.paymentMethod !== 'boleto' || charge.customer || !charge.customerId) return undefined;
  const reply = await send(ctx, transport, { method: 'GET', path: `/v1/customers/${encodeURIComponent(charge.customerId)}` });
  return reply.json;
}

/** A 402 decline still created a PaymentIntent (error.payment_intent): normalize it so the charge is stored. */
async function withDeclinedIntent(ctx: CallContext, err: unknown, paymentMethod: PaymentMethod): Promise<unknown> {
  if (!(err instanceof GatewayFailure) || err.kind !== 'decline') return err;
  const pi = err.info.error?.charge;
  if (!pi) return err;
  let normalized: NormalizedChargeResult;
  try {
    normalized = await ctx.mappings.evaluate<NormalizedChargeResult>('charge.response', { response: pi, extra: { paymentMethod } });
  } catch {
    return err; // the decline itself is what matters; a mapping problem must not hide it
  }
  const declineCode = normalized.declineCode ?? err.info.declineCode ?? 'card_declined';
  return new GatewayFailure('decline', ctx.gateway, err.message, { ...err.info, declineCode, normalized: { ...normalized, status: 'declined', declineCode } });
}

async function retrieveCharge(ctx: CallContext, ref: ChargeRef) {
  const reply = await send(ctx, transport, { method: 'GET', path: intentPath(ref, WITH_CHARGE) });
  return normalizeCharge(ctx, reply, { paymentMethod: ref.paymentMethod });
}

/**
 * The charge read after a refund Stripe accepted: a failed read does not undo the refund, so it is reported as
 * accepted (GatewayFailure.info.accepted) with Stripe's own answer, never as the refund's failure.
 */
async function readBack(ctx: CallContext, ref: ChargeRef, raw: unknown, refund: RefundResult) {
  try {
    return await retrieveCharge(ctx, ref);
  } catch (err) {
    const f = err instanceof GatewayFailure ? err : undefined;
    throw new GatewayFailure(f?.kind ?? 'bad_response', ctx.gateway, `refund accepted; reading the charge after it failed: ${(err as Error).message}`, {
      status: f?.info.status, accepted: { raw, refund },
    });
  }
}

/** Search query language: the reference is a quoted string, so its quotes and backslashes are escaped. */
const byReference = (reference: string) => `metadata['rg_charge_id']:'${reference.replace(/['\\]/g, '\\$&')}'`;

/**
 * GET /v1/payment_intents/search by metadata[rg_charge_id] (the create sends it). Stripe's search index can
 * lag writes by up to a minute (docs.stripe.com/search, "Data freshness"), so a null proves nothing.
 */
async function lookupCharge(ctx: CallContext, reference: string, paymentMethod: PaymentMethod) {
  requireCredential(ctx, 'secretKey');
  const path = `${INTENTS}/search?query=${encodeURIComponent(byReference(reference))}&limit=100&expand[]=data.latest_charge`;
  const reply = await send(ctx, transport, { method: 'GET', path });
  const pi = newestListed(ctx, reply, 'data', (p) => p.created);
  return pi ? normalizeCharge(ctx, { ...reply, json: pi }, { paymentMethod }) : null;
}

export const stripeAdapter: GatewayAdapter = {
  id: 'stripe',
  amountUnit: 'minor',
  currencies: ['BRL', 'USD', 'EUR', 'GBP', 'MXN', 'CAD', 'AUD'],
  installments: { currencies: ['MXN', 'JPY'], maxCount: 24, why: 'documents card installments only in Mexico (MXN) and Japan (JPY)' },
  keepsIdempotencyKeys: true,
  lookupProvesAbsence: false,
  defaultBaseUrl: 'https://api.stripe.com',
  // Manual capture is card-only; boleto payments cannot be refunded (stripe.md section 3). Pending pix and
  // boleto PaymentIntents (requires_action) can be cancelled. debit_card is a card at Stripe.
  // A destination charge has one connected account (stripe.md section 9); the platform pays the fees and is liable.
  split: { maxRecipients: 1, options: [], describe: 'one recipient: `transfer_data[destination]`, the merchant\'s share as `application_fee_amount`' },
  capabilities: capabilityTable({
    pix: { capture: 'unsupported' },
    boleto: { capture: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
  }),
  requirements: [
    {
      methods: ['credit_card', 'debit_card'], when: 'charge.creditCard.number', needs: ['setting.stripeRawCardData'], reason: 'RAW_CARD_NOT_ACCEPTED',
      why: 'refuses raw card numbers unless the Stripe account has raw card data access (then PATCH /api/v1/clients/settings {"stripeRawCardData": true}); send a Stripe paymentMethodId (pm_...) from Stripe.js instead',
    },
    {
      methods: ['boleto'], reason: 'MISSING_PAYER_DATA', why: 'boleto needs the payer tax id and billing address (line1, city, state, postal_code)',
      needs: ['payer.document', 'payer.address.street', 'payer.address.city', 'payer.address.state', 'payer.address.postalCode'],
    },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'secretKey');
    try {
      const paymentMethodId = await createPaymentMethod(ctx, charge);
      const customer = await payerCustomer(ctx, charge);
      const body = await ctx.mappings.evaluate('charge.request', { charge, chargeId: ctx.chargeId, today: today(), paymentMethodId, customer });
      const reply = await send(ctx, transport, { method: 'POST', path: INTENTS, body, idempotencyKey: ctx.idempotencyKey });
      return await normalizeCharge(ctx, reply, { paymentMethod: charge.paymentMethod });
    } catch (err) {
      throw await withDeclinedIntent(ctx, err, charge.paymentMethod);
    }
  },

  retrieveCharge,
  lookupCharge,

  async captureCharge(ctx, ref, amount) {
    const body = await ctx.mappings.evaluate('capture.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, { method: 'POST', path: intentPath(ref, '/capture'), body, idempotencyKey: `${ctx.idempotencyKey}-capture` });
    return normalizeCharge(ctx, reply, { paymentMethod: ref.paymentMethod });
  },

  async cancelCharge(ctx, ref) {
    const body = await ctx.mappings.evaluate('cancel.request', { ref, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, { method: 'POST', path: intentPath(ref, '/cancel'), body, idempotencyKey: `${ctx.idempotencyKey}-cancel` });
    return normalizeCharge(ctx, reply, { paymentMethod: ref.paymentMethod });
  },

  // A refund never changes the PaymentIntent (it stays succeeded): re-read it with latest_charge expanded.
  async refundCharge(ctx, ref, amount) {
    const body = await ctx.mappings.evaluate('refund.request', { amount: amount ?? null, ref, chargeId: ctx.chargeId });
    const reply = await send(ctx, transport, { method: 'POST', path: '/v1/refunds', body, idempotencyKey: `${ctx.idempotencyKey}-refund` });
    const refund = await normalizeRefund(ctx, reply.json);
    const after = await readBack(ctx, ref, reply.json, refund);
    return { normalized: after.normalized, raw: reply.json, refund };
  },

  async createCustomer(ctx, customer) {
    requireCredential(ctx, 'secretKey');
    const body = await ctx.mappings.evaluate('customer.request', { customer });
    return normalizeCustomer(ctx, await send(ctx, transport, { method: 'POST', path: '/v1/customers', body, idempotencyKey: ctx.idempotencyKey }));
  },
};
