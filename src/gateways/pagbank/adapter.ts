import { capabilityTable } from '../capabilities';
import { normalizeCharge, normalizeRefund, queryOf, requireCredential, send, today, type Transport } from '../common';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';
import { GatewayFailure, type CallContext, type ChargeOutcome, type ChargeRef, type GatewayAdapter, type GatewayQuotedPlan, type InstallmentQuoteRequest } from '../types';

// PagBank Orders API (shared/gateways/pagbank.md). An order holds one charge (card, boleto) or one pix QR
// code (qr_codes[], no charge until paid). Capture and cancel/refund act on the charge (CHAR_...); a pix
// charge's externalId is the order id, and refs.orderId is always kept because retrieve is GET /orders/{id}.

const bindingsOf = (ctx: CallContext) => ({ amountUnit: pagbankAmountUnit(ctx.wire?.[AMOUNT_UNIT_SETTING]) });

const transport: Transport = {
  authHeaders: (credentials) => ({ authorization: `Bearer ${credentials.token ?? ''}` }),
  idempotencyHeader: 'x-idempotency-key',
  // Declines are HTTP 201 with a DECLINED charge (normalizeCharge handles them), so errors are classified by
  // HTTP status; mappings/pagbank/error.response reads {error_messages: [{code, description, parameter_name}]}.
};

const orderIdOf = (ref: ChargeRef): string | undefined => ref.refs?.orderId ?? (ref.externalId.startsWith('ORDE_') ? ref.externalId : undefined);

/** The CHAR_ id that capture/cancel act on; a pix has one only once paid (then in refs.chargeId after a retrieve). */
function chargeIdOf(ctx: CallContext, ref: ChargeRef): string {
  const id = ref.externalId.startsWith('CHAR_') ? ref.externalId : ref.refs?.chargeId;
  if (!id) throw new GatewayFailure('invalid_request', ctx.gateway, `pagbank ${ref.paymentMethod} ${ref.externalId} has no charge yet (not paid)`);
  return id;
}

/** Follow-ups answer with the bare charge; extra keeps the method and order id the charge body lacks. */
const extraOf = (ref: ChargeRef) => ({ paymentMethod: ref.paymentMethod, orderId: orderIdOf(ref) });

async function retrieveCharge(ctx: CallContext, ref: ChargeRef): Promise<ChargeOutcome> {
  requireCredential(ctx, 'token');
  const orderId = orderIdOf(ref);
  const path = orderId ? `/orders/${encodeURIComponent(orderId)}` : `/charges/${encodeURIComponent(chargeIdOf(ctx, ref))}`;
  return normalizeCharge(ctx, await send(ctx, transport, { method: 'GET', path }), extraOf(ref), bindingsOf(ctx));
}

/**
 * POST /charges/{id}/{capture|cancel} with {amount: {value}}, built by the operation's mapping (capture.request,
 * cancel.request, or refund.request: a refund is a cancel of part or all of a paid charge); the unit lives there.
 */
async function chargeAction(
  ctx: CallContext, ref: ChargeRef, mapping: 'capture' | 'cancel' | 'refund', amount: number | undefined, remaining?: number, chargeId = chargeIdOf(ctx, ref),
): Promise<ChargeOutcome> {
  requireCredential(ctx, 'token');
  const action = mapping === 'capture' ? 'capture' : 'cancel';
  const body = await ctx.mappings.evaluate(`${mapping}.request`, { amount: amount ?? null, ref, chargeId: ctx.chargeId, remaining }, bindingsOf(ctx));
  const path = `/charges/${encodeURIComponent(chargeId)}/${action}`;
  const reply = await send(ctx, transport, { method: 'POST', path, body, idempotencyKey: `${ctx.idempotencyKey}-${action}` });
  return normalizeCharge(ctx, reply, extraOf(ref), bindingsOf(ctx));
}

const TRANSACTION_NOT_FOUND_YET = '40008';

/** The most installments PagBank takes (the charge rule below; max_installments above it is refused). */
const MAX_INSTALLMENTS = 18;

/**
 * GET /charges/fees/calculate?payment_methods=CREDIT_CARD&value=&max_installments=&max_installments_no_interest=
 * &credit_card_bin=: the plans of the card's brand, with the buyer's interest beyond the interest-free counts.
 */
async function quoteInstallments(ctx: CallContext, request: InstallmentQuoteRequest): Promise<GatewayQuotedPlan[]> {
  requireCredential(ctx, 'token');
  const maxCount = Math.min(request.maxCount, MAX_INSTALLMENTS);
  const input = { ...request, maxCount, interestFreeCount: Math.min(request.interestFreeCount, maxCount) };
  const params = await ctx.mappings.evaluate<Record<string, unknown>>('installments.request', input, bindingsOf(ctx));
  const reply = await send(ctx, transport, { method: 'GET', path: `/charges/fees/calculate?${queryOf(params)}` });
  return (await ctx.mappings.evaluate<GatewayQuotedPlan[] | undefined>('installments.response', { response: reply.json }, bindingsOf(ctx))) ?? [];
}

export const pagbankAdapter: GatewayAdapter = {
  id: 'pagbank',
  amountUnit: pagbankAmountUnit(), // the default; ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais switches every call
  currencies: ['BRL'],
  installments: { currencies: ['BRL'], maxCount: 18, minInstallmentAmount: 500, why: 'takes installments from 1 to 18, each of at least R$ 5,00', quotedPlan: 'total' },
  keepsIdempotencyKeys: true,
  // The order's reference_id is RouteGate's charge id (charge.request).
  referenceOf: (raw) => {
    const ref = (raw as { reference_id?: unknown } | null)?.reference_id;
    return typeof ref === 'string' ? ref : undefined;
  },
  defaultBaseUrl: 'https://api.pagseguro.com',
  // Boleto: cancel while WAITING; a paid boleto cannot be refunded through the API. Pix: a QR code has no
  // cancel (it expires); once paid its PIX charge refunds like a card. The Orders API has no customer
  // resource (customers exist only in the separate recurring-payments API): the buyer goes inline.
  // Every order needs the buyer inline (customer.tax_id): without it the router skips PagBank before any call.
  split: {
    options: [], ownRecipientCredential: 'accountId',
    describe: '`splits` (method `FIXED`, `receivers[].account.id`, `amount.value`), the account\'s own (credentials `accountId`) taking the rest',
  },
  capabilities: capabilityTable({
    credit_card: { charge: { needs: 'customer' } },
    debit_card: { charge: { needs: 'customer' } },
    boleto: { charge: { needs: 'customer' }, capture: 'unsupported', refund: 'unsupported', partial_refund: 'unsupported' },
    pix: { charge: { needs: 'customer' }, capture: 'unsupported', cancel: 'unsupported' },
  }, 'unsupported'),
  requirements: [
    {
      methods: ['boleto'], reason: 'MISSING_PAYER_DATA', why: 'registers a boleto with the holder address (street, number, locality, city, region_code, postal_code)',
      needs: ['payer.address.street', 'payer.address.number', 'payer.address.district', 'payer.address.city', 'payer.address.state', 'payer.address.postalCode'],
    },
  ],

  async createCharge(ctx, charge) {
    requireCredential(ctx, 'token');
    const input = { charge, chargeId: ctx.chargeId, today: today(), now: new Date().toISOString(), webhookUrl: ctx.webhookUrl };
    const body = await ctx.mappings.evaluate('charge.request', input, bindingsOf(ctx));
    const reply = await send(ctx, transport, { method: 'POST', path: '/orders', body, idempotencyKey: ctx.idempotencyKey });
    return normalizeCharge(ctx, reply, { paymentMethod: charge.paymentMethod }, bindingsOf(ctx));
  },

  retrieveCharge,
  quoteInstallments,

  captureCharge: (ctx, ref, amount) => chargeAction(ctx, ref, 'capture', amount),

  // Voids a pre-authorization or cancels a WAITING boleto: the full amount, which PagBank wants in the body.
  cancelCharge: (ctx, ref) => chargeAction(ctx, ref, 'cancel', undefined),

  // Same route as cancel. Read the charge first: a full refund must name what is left, and a pix's
  // charge id is only known once paid. The cancel answer is the charge as it stands after the refund.
  async refundCharge(ctx, ref, amount) {
    const current = (await retrieveCharge(ctx, ref)).normalized;
    const chargeId = current.refs?.chargeId ?? chargeIdOf(ctx, ref);
    const outcome = await chargeAction(ctx, ref, 'refund', amount, current.paidAmount - current.refundedAmount, chargeId);
    return { ...outcome, refund: await normalizeRefund(ctx, outcome.raw, bindingsOf(ctx)) };
  },

  // 40008 "Transaction is not found" from the cancel route of a charge just read as PAID: a pix paid moments ago
  // that the refund side does not know yet; the same refund passes later (PagBank's community answers on refunding
  // a pix right after payment). The charge was read first, so it is no wrong id. Nothing was refunded.
  refundNotYet: (err) => err.info.error?.codes?.includes(TRANSACTION_NOT_FOUND_YET) ?? false,

  async createCustomer(ctx) {
    throw new GatewayFailure('unsupported', ctx.gateway, 'PagBank orders have no customer resource; send the customer inline on each charge');
  },
};
