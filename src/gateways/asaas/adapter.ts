import { capabilityTable } from '../capabilities';
import { classifyHttpError, newestListed, normalizeCharge, normalizeCustomer, normalizeRefund, requireCredential, send, today, type Transport } from '../common';
import type { GatewayReply } from '../http-client';
import { GatewayFailure, type CallContext, type ChargeOutcome, type ChargeRef, type DeclineCode, type GatewayAdapter, type GatewayErrorFacts } from '../types';

// Asaas API v3 (shared/gateways/asaas.md, docs/gateways/asaas.md). Amounts are reais; every payment needs a
// customer; no idempotency header exists (the charge id goes in externalReference instead). Extra calls:
// the pix QR code (GET .../pixQrCode, for pix and for the hybrid boleto) and the boleto digitable line (GET .../identificationField).

const API = '/v3';

/** Asaas declines are HTTP 400 invalid_creditCard; the issuer's reason is only in the description text. */
const DECLINE_REASONS: Array<[RegExp, DeclineCode]> = [
  [/saldo insuficiente|limite (insuficiente|excedido|indispon[íi]vel)|sem saldo/i, 'insufficient_funds'],
  [/vencid|expirad|validade/i, 'expired_card'],
  [/c[óo]digo de seguran[çc]a|\b(cvv|ccv|cvc)\b/i, 'incorrect_cvc'],
  [/n[ãa]o foi poss[íi]vel processar|erro de comunica|indispon[íi]vel|tempo esgotado/i, 'processing_error'],
];
// invalid_creditCard worded as "Informe ..." / "O campo ... deve ser informado" is a bad request, not a decline.
const VALIDATION_WORDING = /^(informe|o campo)|deve ser informad/i;

export function declineCodeOf(description: string): DeclineCode {
  return DECLINE_REASONS.find(([re]) => re.test(description))?.[1] ?? 'card_declined';
}

/** The facts come from mappings/asaas/error.response: code invalid_creditCard when any item has it, its text first. */
function classifyError(reply: GatewayReply, gateway: CallContext['gateway'], facts: GatewayErrorFacts): GatewayFailure {
  if (reply.status === 400 && facts.code === 'invalid_creditCard' && !VALIDATION_WORDING.test(facts.message ?? '')) {
    const description = facts.message || 'Transação não autorizada.';
    return new GatewayFailure('decline', gateway, description, { status: 400, body: reply.json, error: facts, declineCode: declineCodeOf(description) });
  }
  return classifyHttpError(reply, gateway, facts);
}

const transport: Transport = {
  // The key travels in `access_token`, not Authorization; `$aact_...` keys keep their leading dollar sign.
  authHeaders: (credentials) => ({ access_token: credentials.apiKey ?? '', 'user-agent': 'RouteGate' }),
  classifyError,
};

const paymentPath = (id: string) => `${API}/payments/${encodeURIComponent(id)}`;

/** The payment already exists: a failed follow-up read leaves its fields out (a refresh fills them) instead of failing it. */
async function optionalGet(ctx: CallContext, path: string): Promise<unknown> {
  try {
    return (await send(ctx, transport, { method: 'GET', path })).json;
  } catch {
    return undefined;
  }
}

/** Normalize a payment body, first fetching what an open pix / boleto shows the payer. */
async function normalizePayment(ctx: CallContext, reply: GatewayReply): Promise<ChargeOutcome> {
  const p = reply.json as { id?: string; billingType?: string; status?: string; deleted?: boolean } | undefined;
  const extra: Record<string, unknown> = {};
  const open = !!p?.id && !p.deleted && (p.status === 'PENDING' || p.status === 'OVERDUE');
  // A boleto is hybrid at Asaas: its pix QR code is offered to the payer beside the typeable line.
  if (open && (p!.billingType === 'PIX' || p!.billingType === 'BOLETO')) extra.pixQrCode = await optionalGet(ctx, `${paymentPath(p!.id!)}/pixQrCode`);
  if (open && p!.billingType === 'BOLETO') extra.identificationField = await optionalGet(ctx, `${paymentPath(p!.id!)}/identificationField`);
  return normalizeCharge(ctx, reply, extra);
}

async function retrieveCharge(ctx: CallContext, ref: ChargeRef): Promise<ChargeOutcome> {
  return normalizePayment(ctx, await send(ctx, transport, { method: 'GET', path: paymentPath(ref.externalId) }));
}

/**
 * GET /v3/payments?externalReference= (asaas.md section 1: how a timed-out create is found again, there being
 * no idempotency header). A declined card leaves nothing at Asaas, so its lookup is null.
 */
async function lookupCharge(ctx: CallContext, reference: string): Promise<ChargeOutcome | null> {
  requireCredential(ctx, 'apiKey');
  const reply = await send(ctx, transport, { method: 'GET', path: `${API}/payments?externalReference=${encodeURIComponent(reference)}&limit=100` });
  const payment = newestListed(ctx, reply, 'data', (p) => Date.parse(p.dateCreated));
  return payment ? normalizePayment(ctx, { ...reply, json: payment }) : null;
}

/** POST .../refund: a refund (refund.request) or the release of a card pre-authorization (cancel.request). */
async function refund(ctx: CallContext, ref: ChargeRef, amount: number | undefined, suffix: 'refund' | 'cancel'): Promise<ChargeOutcome> {
  // The refund's description carries its operation key: Asaas keeps no idempotency keys, and refunds[] entries have
  // no id of their own, so this is how findRefund knows this refund again (docs/charges.md, "Follow-up idempotency").
  const body = await ctx.mappings.evaluate(`${suffix}.request`, { amount: amount ?? null, ref, chargeId: ctx.chargeId, operationKey: ctx.idempotencyKey });
  const path = `${paymentPath(ref.externalId)}/refund`;
  const reply = await send(ctx, transport, { method: 'POST', path, body, idempotencyKey: `${ctx.idempotencyKey}-${suffix}` });
  const outcome = await normalizePayment(ctx, reply);
  return suffix === 'refund' ? { ...outcome, refund: await normalizeRefund(ctx, reply.json) } : outcome;
}

/**
 * GET /v3/payments/{id}: the refunds[] entry whose description carries `operationKey` (refund.request writes it), as
 * refund.response reads the last entry of a refund's answer. Never matched by value or by totals.
 */
async function findRefund(ctx: CallContext, ref: ChargeRef, operationKey: string): Promise<ChargeOutcome | null> {
  requireCredential(ctx, 'apiKey');
  const reply = await send(ctx, transport, { method: 'GET', path: paymentPath(ref.externalId) });
  const payment = reply.json as { refunds?: Array<{ description?: string | null }> | null } | undefined;
  const refunds = payment?.refunds ?? [];
  const at = refunds.findIndex((r) => typeof r?.description === 'string' && r.description.includes(`(${operationKey})`));
  if (at < 0) return null;
  const outcome = await normalizePayment(ctx, reply);
  return { ...outcome, refund: await normalizeRefund(ctx, { ...payment, refunds: refunds.slice(0, at + 1) }) };
}

const unsupported = (message: string) => new GatewayFailure('unsupported', 'asaas', message);
const isCard = (ref: ChargeRef) => ref.paymentMethod === 'credit_card' || ref.paymentMethod === 'debit_card';
const needsCustomer = { charge: { needs: 'customerId' } as const };

export const asaasAdapter: GatewayAdapter = {
  id: 'asaas',
  amountUnit: 'major',
  currencies: ['BRL'],
  installments: { currencies: ['BRL'], maxCount: 21, why: 'takes installmentCount up to 21 on credit cards' },
  keepsIdempotencyKeys: false,
  lookupProvesAbsence: true,
  defaultBaseUrl: 'https://api.asaas.com',
  // Every payment belongs to a customer. Pix and boleto have no pre-authorization. A paid boleto is refunded
  // through /bankSlip/refund, which asks the payer for a bank account out of band: not offered.
  // Debit cards: the API refuses billingType DEBIT_CARD (debit exists only on the hosted invoiceUrl).
  // What is not split stays with the issuing account (asaas.md section 9); Asaas charges its fee to it.
  split: { options: [], describe: '`split[]` with `walletId` and `fixedValue` in reais' },
  capabilities: capabilityTable({
    credit_card: { ...needsCustomer },
    debit_card: { charge: 'unsupported', capture: 'unsupported', cancel: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
    pix: { ...needsCustomer, capture: 'unsupported' },
    boleto: { ...needsCustomer, capture: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
  }),
  requirements: [
    {
      methods: ['credit_card'], when: 'charge.creditCard.number', reason: 'MISSING_PAYER_DATA',
      why: 'needs the card holder postal code, address number and phone (creditCardHolderInfo)',
      needs: ['payer.address.postalCode', 'payer.address.number', 'payer.phone'],
    },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'apiKey');
    if (!charge.customerId) throw unsupported('asaas needs a customer on every charge: create one and send its externalId as customerId');
    if (charge.currency && charge.currency !== 'BRL') throw unsupported(`asaas charges in BRL only, not ${charge.currency}`);
    const body = await ctx.mappings.evaluate('charge.request', { charge, chargeId: ctx.chargeId, today: today() });
    // No idempotency header at Asaas: externalReference (the charge id) is how a timed-out create is found again.
    return normalizePayment(ctx, await send(ctx, transport, { method: 'POST', path: `${API}/payments`, body, idempotencyKey: ctx.idempotencyKey }));
  },

  retrieveCharge,
  lookupCharge,
  findRefund,

  async captureCharge(ctx, ref, amount) {
    if (amount !== undefined && amount !== ref.amount) throw unsupported('asaas captures the whole pre-authorized amount only');
    const path = `${paymentPath(ref.externalId)}/captureAuthorizedPayment`;
    // No body: captureAuthorizedPayment takes none and always captures the whole authorization (asaas.md section 3).
    return normalizePayment(ctx, await send(ctx, transport, { method: 'POST', path, idempotencyKey: `${ctx.idempotencyKey}-capture` }));
  },

  async cancelCharge(ctx, ref) {
    // Asaas releases a card pre-authorization through the refund endpoint; an open pix/boleto is deleted,
    // and DELETE answers {deleted, id} only, so the payment (kept with deleted:true) is read back.
    if (isCard(ref)) return refund(ctx, ref, undefined, 'cancel');
    // No body: DELETE /v3/payments/{id} takes none.
    await send(ctx, transport, { method: 'DELETE', path: paymentPath(ref.externalId), idempotencyKey: `${ctx.idempotencyKey}-cancel` });
    return retrieveCharge(ctx, ref);
  },

  async refundCharge(ctx, ref, amount) {
    if (ref.paymentMethod === 'boleto') throw unsupported('asaas refunds a paid boleto only through /bankSlip/refund (payer bank details)');
    return refund(ctx, ref, amount, 'refund');
  },

  // A 400 about the balance ("saldo"): Asaas refunds from the account's balance, and fees are not returned, so a pix
  // refunded in full right after it was received is refused until the balance covers it (asaas.md section 3; Asaas'
  // refund reference). Nothing was refunded; the same refund passes once the balance is there. The code Asaas puts
  // on it is not documented, so the description is what is read; a card decline's "Saldo insuficiente" is
  // invalid_creditCard, which no refund answers.
  refundNotYet: (err) => err.info.status === 400 && err.info.error?.code !== 'invalid_creditCard' && /\bsaldo\b/i.test(err.info.error?.message ?? ''),

  async createCustomer(ctx, customer) {
    requireCredential(ctx, 'apiKey');
    const body = await ctx.mappings.evaluate('customer.request', { customer });
    return normalizeCustomer(ctx, await send(ctx, transport, { method: 'POST', path: `${API}/customers`, body, idempotencyKey: ctx.idempotencyKey }));
  },
};
