import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorPlugin } from '../../sandbox/types';
import type { LedgerEntry } from '../../sandbox/control';
import { cardBrand, declineFor, luhnValid } from '../../sandbox/cards';
import { randomDigits, randomId, randomUuid } from '../../sandbox/ids';
import { pixBrCode } from '../../sandbox/br-code';

// Mercado Pago Payments API v1 emulator (shared/gateways/mercadopago.md): Bearer access token, amounts in
// reais (JSON floats), numeric payment ids, X-Idempotency-Key required on payment and refund creation,
// card tokens from POST /v1/card_tokens, declines as HTTP 201 `rejected` with a `cc_rejected_*` status_detail.

type Json = Record<string, any>;
interface Outcome { status: number; body: unknown }
interface StoredCard { number: string; expMonth: number; expYear: number; holderName: string; identification?: Json }

/** status_detail per normalized decline of the shared decline cards (the charge.response mapping reverses it). */
const DECLINE_DETAILS: Record<string, string> = {
  card_declined: 'cc_rejected_other_reason',
  insufficient_funds: 'cc_rejected_insufficient_amount',
  expired_card: 'cc_rejected_bad_filled_date',
  incorrect_cvc: 'cc_rejected_bad_filled_security_code',
  processing_error: 'cc_rejected_time_out',
};

/** Mercado Pago's own sandbox convention: the outcome is chosen by the cardholder name on the token. */
const HOLDER_OUTCOMES: Record<string, [string, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CONT: ['in_process', 'pending_contingency'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
  CARD: ['rejected', 'cc_rejected_bad_filled_card_number'],
  INST: ['rejected', 'cc_rejected_invalid_installments'],
  DUPL: ['rejected', 'cc_rejected_duplicated_payment'],
  LOCK: ['rejected', 'cc_rejected_card_disabled'],
  CTNA: ['rejected', 'cc_rejected_card_type_not_allowed'],
  ATTE: ['rejected', 'cc_rejected_max_attempts'],
  BLAC: ['rejected', 'cc_rejected_blacklist'],
};

const CARD_METHODS = new Set(['visa', 'master', 'amex', 'elo', 'hipercard', 'debvisa', 'debmaster', 'debelo']);
const TICKET_METHODS = new Set(['bolbradesco', 'pec']);
const BOLETO_ADDRESS = ['zip_code', 'street_name', 'street_number', 'neighborhood', 'city', 'federal_unit'];
const BRAND_METHOD: Record<string, string> = { visa: 'visa', mastercard: 'master', amex: 'amex', elo: 'elo', hipercard: 'hipercard' };
const FEE_RATE = 0.0498;
const SORTABLE = new Set(['date_approved', 'date_created', 'date_last_updated', 'id', 'money_release_date']);
const DAY_MS = 86_400_000;

// A 1x1 PNG stands in for the QR code image; the copy-and-paste EMV text is the real content.
const QR_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const cents = (reais: number) => Math.round(reais * 100);
const reais = (c: number) => Math.round(c) / 100;
/** MP dates: ISO with milliseconds in Brasília time, e.g. 2026-01-01T10:00:00.000-03:00. */
const mpDate = (ms = Date.now()) => new Date(ms - 3 * 3_600_000).toISOString().replace('Z', '-03:00');

function mpError(status: number, error: string, message: string, cause: Array<[number | string, string]> = []): Outcome {
  return { status, body: { message, error, status, cause: cause.map(([code, description]) => ({ code, description, data: null })) } };
}
const badRequest = (code: number | string, description: string) => mpError(400, 'bad_request', description, [[code, description]]);
const stateError = () => badRequest(2063, 'The action requested is not valid for the current payment state');
function notFound(what: 'Payment' | 'Customer'): Outcome {
  const o = mpError(404, 'not_found', `${what} not found`);
  (o.body as Json).cause = [{ code: what === 'Payment' ? 2000 : 2002, description: `${what} not found`, data: `${mpDate()};${randomUuid()}` }];
  return o;
}

export const mercadopagoEmulator: EmulatorPlugin = async (app, opts) => {
  const payments = new Map<string, Json>();
  const customers = new Map<string, Json>();
  const tokens = new Map<string, StoredCard>();
  const usedTokens = new Set<string>();
  const idempotent = new Map<string, Outcome>();
  let nextPaymentId = 1_325_350_000 + Math.floor(Math.random() * 10_000);
  let nextRefundId = 3_328_707_000 + Math.floor(Math.random() * 10_000);
  opts.control.onReset(() => {
    for (const m of [payments, customers, tokens, usedTokens, idempotent]) m.clear();
  });
  opts.control.onLedger('mercadopago', () => [...payments.values()].map((p): Omit<LedgerEntry, 'gateway'> => ({
    id: String(p.id), reference: p.external_reference, status: p.status,
    paymentMethod: p.payment_method_id === 'pix' ? 'pix' : p.payment_type_id === 'ticket' ? 'boleto' : p.payment_type_id as LedgerEntry['paymentMethod'],
    amount: cents(p.transaction_amount), paidAmount: ['approved', 'refunded', 'charged_back', 'in_mediation'].includes(p.status) ? cents(p.transaction_amount) : 0,
    refundedAmount: cents(p.transaction_amount_refunded), refunds: p.refunds.length,
  })));

  // Every route wants `Authorization: Bearer <access token>`; card tokenization also takes ?public_key=.
  app.addHook('preHandler', async (request, reply) => {
    const publicKey = (request.query as Json)?.public_key;
    if (request.routeOptions.url?.endsWith('/v1/card_tokens') && typeof publicKey === 'string' && publicKey !== '') {
      if (!publicKey.includes('invalid')) return;
      return send(reply, mpError(401, 'unauthorized', 'invalid public key', []));
    }
    const auth = request.headers.authorization;
    const token = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : '';
    if (!token) return send(reply, mpError(401, 'unauthorized', 'Must provide your access_token to proceed', [[5, 'Must provide your access_token to proceed']]));
    if (token.includes('invalid')) return send(reply, mpError(401, 'unauthorized', 'invalid access token'));
  });

  /**
   * X-Idempotency-Key: required on payment and refund creation (4292 before any validation); the first
   * result is replayed for the same key whatever the body. Refund replays answer 200 with an empty body.
   * Validation failures are not kept, so a corrected request may reuse the key.
   */
  const withIdempotency = (request: FastifyRequest, reply: FastifyReply, opts: { required: boolean; emptyReplay?: boolean }, run: () => Outcome) => {
    const key = request.headers['x-idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      return send(reply, opts.required ? badRequest(4292, "Header X-Idempotency-Key can't be null") : run());
    }
    const slot = `${request.method} ${request.url.split('?')[0]} ${key}`; // per key and endpoint
    const seen = idempotent.get(slot);
    if (seen) return opts.emptyReplay ? reply.code(200).send('') : send(reply, seen);
    const out = run();
    if (out.status < 400) idempotent.set(slot, { status: out.status, body: JSON.parse(JSON.stringify(out.body)) });
    return send(reply, out);
  };

  app.post('/v1/card_tokens', async (request, reply) => send(reply, createCardToken((request.body ?? {}) as Json)));

  app.post('/v1/payments', (request, reply) => withIdempotency(request, reply, { required: true }, () => createPayment((request.body ?? {}) as Json)));

  // Search (mercadopago.md section 3): filters external_reference and status; sort by date_created, id, ...
  // with criteria asc|desc (newest first when no sort is given); limit (default 30) and offset.
  app.get<{ Querystring: Json }>('/v1/payments/search', async (request, reply) => {
    const q = request.query;
    const limit = q.limit === undefined ? 30 : Number(q.limit);
    const offset = q.offset === undefined ? 0 : Number(q.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return send(reply, badRequest(1, 'Params Error: invalid limit'));
    if (!Number.isInteger(offset) || offset < 0) return send(reply, badRequest(1, 'Params Error: invalid offset'));
    if (q.criteria !== undefined && !['asc', 'desc'].includes(q.criteria)) return send(reply, badRequest(1, 'Params Error: criteria must be asc or desc'));
    const matches = [...payments.values()].filter((p) => (q.external_reference === undefined || p.external_reference === q.external_reference)
      && (q.status === undefined || p.status === q.status));
    const sort = q.sort === undefined ? undefined : String(q.sort);
    if (sort !== undefined && !SORTABLE.has(sort)) return send(reply, badRequest(1, `Params Error: cannot sort by ${sort}`));
    const key = (p: Json) => (sort === undefined || sort === 'id' ? p.id : Date.parse(p[sort] ?? '') || 0);
    const desc = q.criteria ? q.criteria === 'desc' : sort === undefined;
    matches.sort((a, b) => (key(a) - key(b) || a.id - b.id) * (desc ? -1 : 1));
    return { paging: { total: matches.length, limit, offset }, results: matches.slice(offset, offset + limit) };
  });

  app.get<{ Params: { id: string } }>('/v1/payments/:id', async (request, reply) => {
    const payment = payments.get(request.params.id);
    return payment ?? send(reply, notFound('Payment'));
  });

  // One route for capture ({capture: true[, transaction_amount]}) and cancel ({status: "cancelled"}).
  app.put<{ Params: { id: string } }>('/v1/payments/:id', (request, reply) => withIdempotency(request, reply, { required: false }, () => {
    const payment = payments.get(request.params.id);
    if (!payment) return notFound('Payment');
    const body = (request.body ?? {}) as Json;
    if (body.status === 'cancelled') return cancelPayment(payment);
    if (body.capture === true) return capturePayment(payment, body.transaction_amount);
    if (body.status !== undefined || body.capture !== undefined) return badRequest(1, 'Params Error: only capture=true or status=cancelled can be updated');
    return { status: 200, body: payment };
  }));

  app.post<{ Params: { id: string } }>('/v1/payments/:id/refunds', (request, reply) =>
    withIdempotency(request, reply, { required: true, emptyReplay: true }, () => {
      const payment = payments.get(request.params.id);
      return payment ? refundPayment(payment, (request.body ?? {}) as Json) : notFound('Payment');
    }));

  app.get<{ Params: { id: string } }>('/v1/payments/:id/refunds', async (request, reply) => {
    const payment = payments.get(request.params.id);
    return payment ? payment.refunds : send(reply, notFound('Payment'));
  });

  app.post('/v1/customers', (request, reply) => withIdempotency(request, reply, { required: false }, () => createCustomer((request.body ?? {}) as Json)));

  app.get<{ Querystring: { email?: string } }>('/v1/customers/search', async (request) => {
    const email = request.query.email?.toLowerCase();
    const results = [...customers.values()].filter((c) => email === undefined || c.email === email);
    return { paging: { total: results.length, limit: 10, offset: 0 }, results };
  });

  app.get<{ Params: { id: string } }>('/v1/customers/:id', async (request, reply) => {
    return customers.get(request.params.id) ?? send(reply, notFound('Customer'));
  });

  opts.control.onPay('mercadopago', (id) => {
    const payment = payments.get(id);
    if (!payment) return { ok: false, status: 404, message: `Payment ${id} not found` };
    if (payment.status !== 'pending') return { ok: false, status: 409, message: `payment ${id} is ${payment.status}, not awaiting the payer` };
    approve(payment);
    return { ok: true };
  });

  // Emulator-only hooks (the real sandbox has none: test pix/boleto stay pending forever): pay or expire a
  // pending pix/boleto so approval and refunds of those methods can be exercised.
  app.post<{ Params: { id: string; action: string } }>('/__sandbox/payments/:id/:action', async (request, reply) => {
    const payment = payments.get(request.params.id);
    if (!payment) return send(reply, notFound('Payment'));
    if (payment.status !== 'pending' || !['pay', 'expire'].includes(request.params.action)) return send(reply, stateError());
    if (request.params.action === 'pay') approve(payment);
    else setStatus(payment, 'cancelled', 'expired');
    return payment;
  });

  function createCardToken(body: Json): Outcome {
    const number = typeof body.card_number === 'string' ? body.card_number.replace(/\D+/g, '') : '';
    if (!number || !luhnValid(number)) return badRequest(3034, 'Invalid card_number_validation');
    const expMonth = Number(body.expiration_month);
    const expYear = Number(body.expiration_year);
    if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) return badRequest(3029, 'Invalid expiration_month');
    if (!Number.isInteger(expYear) || expYear < 2000) return badRequest(3030, 'Invalid expiration_year');
    if (body.security_code !== undefined && !/^\d{3,4}$/.test(String(body.security_code))) return badRequest(3032, 'Invalid security_code_length');
    const holderName = String(body.cardholder?.name ?? '').trim();
    if (!holderName) return badRequest(316, 'Invalid card holder name');
    const id = randomId('', 32, '0123456789abcdef');
    tokens.set(id, { number, expMonth, expYear, holderName, identification: body.cardholder?.identification });
    const created = Date.now();
    return {
      status: 201,
      body: {
        id, public_key: null, first_six_digits: number.slice(0, 6), last_four_digits: number.slice(-4), expiration_month: expMonth,
        expiration_year: expYear, card_number_length: number.length, security_code_length: String(body.security_code ?? '').length,
        cardholder: { name: holderName, identification: body.cardholder?.identification ?? {} }, status: 'active', luhn_validation: true,
        live_mode: false, require_esc: false, date_created: mpDate(created), date_last_updated: mpDate(created), date_due: mpDate(created + 7 * DAY_MS),
      },
    };
  }

  function createPayment(body: Json): Outcome {
    const amount = body.transaction_amount;
    if (amount === undefined || amount === null) return badRequest(4002, "transaction_amount attribute can't be null");
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0 || cents(amount) !== Math.round(amount * 100 * 1e6) / 1e6) {
      return badRequest(4037, 'Invalid transaction_amount');
    }
    if (body.notification_url !== undefined && !/^https:\/\/[^\s/]+\.[^\s]+$/.test(String(body.notification_url))) {
      return badRequest(4020, 'notificaction_url attribute must be url valid');
    }
    if (body.date_of_expiration !== undefined && !validMpDate(body.date_of_expiration)) {
      return badRequest(23, "The following parameters must be valid date and format (yyyy-MM-dd'T'HH:mm:ssz) date_of_expiration");
    }
    const payer = resolvePayer(body.payer);
    if ('error' in payer) return payer.error;
    let card: StoredCard | undefined;
    let methodId: string | undefined = body.payment_method_id;
    if (methodId === undefined || CARD_METHODS.has(methodId) || body.token !== undefined) {
      if (typeof body.token !== 'string' || body.token === '') return methodId === undefined ? badRequest(4001, "payment_method_id attribute can't be null") : badRequest(2006, 'Card Token not found');
      if (usedTokens.has(body.token)) return badRequest(2062, 'Invalid card token');
      card = tokens.get(body.token);
      methodId ??= card ? cardMethodOf(card.number) : undefined;
      if (!methodId) return badRequest(2131, 'Cannot infer Payment Method');
      if (!CARD_METHODS.has(methodId)) return badRequest(1, `Params Error: payment_method_id ${methodId} does not take a card token`);
      if (body.installments === undefined || body.installments === null) return badRequest(4004, "installments attribute can't be null");
      if (!Number.isInteger(body.installments) || body.installments < 1 || body.installments > 12) return badRequest(4033, 'Invalid installments');
      if (card) {
        tokens.delete(body.token); // single use
        usedTokens.add(body.token);
      }
    } else if (methodId === 'pix' || TICKET_METHODS.has(methodId)) {
      if (!payer.email) return badRequest(4050, 'payer.email must be a valid email');
      if (methodId !== 'pix' && !payer.identification?.number) return badRequest(2067, 'Invalid user identification number');
      // mercadopago.md section 2: a boleto needs all six payer.address fields (the cause code is not documented).
      if (methodId !== 'pix') {
        const missingField = BOLETO_ADDRESS.find((f) => !payer.address?.[f]);
        if (missingField) return badRequest(1, `Params Error: payer.address.${missingField} is required`);
      }
    } else {
      return badRequest(1, `Params Error: unknown payment_method_id ${methodId}`);
    }
    const payment = basePayment(body, methodId, payer);
    if (methodId === 'pix') pixDetails(payment, body);
    else if (TICKET_METHODS.has(methodId)) boletoDetails(payment, body);
    else cardOutcome(payment, body, card);
    payments.set(String(payment.id), payment);
    return { status: 201, body: payment };
  }

  /** payer inline, or {type: "customer", id} pointing at a stored customer (its e-mail and document fill in). */
  function resolvePayer(input: unknown): Json | { error: Outcome } {
    const payer: Json = input && typeof input === 'object' ? { ...(input as Json) } : {};
    if (payer.id !== undefined && payer.type === 'customer') {
      const customer = customers.get(String(payer.id));
      if (!customer) return { error: badRequest(2002, 'Customer not found') };
      payer.email ??= customer.email;
      payer.identification ??= customer.identification;
      payer.first_name ??= customer.first_name;
      payer.last_name ??= customer.last_name;
    }
    if (payer.email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(payer.email))) return { error: badRequest(4050, 'payer.email must be a valid email') };
    const ident = payer.identification;
    if (ident?.number !== undefined) {
      const digits = String(ident.number).replace(/\D+/g, '');
      const type = String(ident.type ?? '').toUpperCase();
      if (!((type === 'CPF' && digits.length === 11) || (type === 'CNPJ' && digits.length === 14))) {
        return { error: badRequest(2067, 'Invalid user identification number') };
      }
    }
    return payer;
  }

  function basePayment(body: Json, methodId: string, payer: Json): Json {
    const created = mpDate();
    const amount = reais(cents(body.transaction_amount));
    return {
      id: nextPaymentId++, date_created: created, date_approved: null, date_last_updated: created, date_of_expiration: null, money_release_date: null,
      operation_type: 'regular_payment', issuer_id: null, payment_method_id: methodId,
      payment_type_id: methodId === 'pix' ? 'bank_transfer' : TICKET_METHODS.has(methodId) ? 'ticket' : methodId.startsWith('deb') ? 'debit_card' : 'credit_card',
      status: 'pending', status_detail: 'pending_waiting_payment', currency_id: 'BRL', description: body.description ?? null, live_mode: false,
      collector_id: 1234567890, captured: true, binary_mode: body.binary_mode === true,
      payer: {
        id: payer.type === 'customer' ? String(payer.id) : randomDigits(9), email: payer.email ?? null, identification: payer.identification ?? null,
        first_name: payer.first_name ?? null, last_name: payer.last_name ?? null, type: payer.type ?? null,
      },
      metadata: body.metadata ?? {}, external_reference: body.external_reference ?? null, statement_descriptor: body.statement_descriptor ?? null,
      transaction_amount: amount, transaction_amount_refunded: 0, installments: body.installments ?? 1,
      transaction_details: { net_received_amount: 0, total_paid_amount: amount, overpaid_amount: 0, installment_amount: amount, external_resource_url: null, financial_institution: null },
      fee_details: [], refunds: [], notification_url: body.notification_url ?? null, processing_mode: 'aggregator', point_of_interaction: { type: 'UNSPECIFIED' },
    };
  }

  /** Decline cards first, then the holder-name convention; anything else approves (or reserves with capture:false). */
  function cardOutcome(payment: Json, body: Json, card: StoredCard | undefined): void {
    const decline = card ? declineFor(card.number) : undefined;
    let [status, detail] = decline ? ['rejected', DECLINE_DETAILS[decline.code]] : HOLDER_OUTCOMES[card?.holderName.toUpperCase() ?? 'APRO'] ?? ['approved', 'accredited'];
    if (status === 'in_process' && payment.binary_mode) [status, detail] = ['rejected', 'cc_rejected_other_reason'];
    payment.installments = body.installments;
    payment.transaction_details.installment_amount = reais(cents(payment.transaction_amount) / body.installments);
    if (card) {
      payment.card = {
        first_six_digits: card.number.slice(0, 6), last_four_digits: card.number.slice(-4), expiration_month: card.expMonth, expiration_year: card.expYear,
        cardholder: { name: card.holderName, identification: card.identification ?? {} },
      };
    }
    if (status === 'approved' && body.capture === false) {
      setStatus(payment, 'authorized', 'pending_capture');
      payment.captured = false;
    } else if (status === 'approved') approve(payment);
    else setStatus(payment, status, detail);
  }

  function pixDetails(payment: Json, body: Json): void {
    const id = payment.id;
    payment.status_detail = 'pending_waiting_transfer';
    payment.date_of_expiration = body.date_of_expiration ?? mpDate(Date.now() + DAY_MS);
    payment.transaction_details.installment_amount = 0;
    payment.point_of_interaction = {
      type: 'PIX', sub_type: null, application_data: { name: null, version: null },
      transaction_data: {
        qr_code: pixEmv(payment.transaction_amount, randomUuid()), qr_code_base64: QR_PNG_BASE64,
        ticket_url: `https://www.mercadopago.com.br/payments/${id}/ticket?caller_id=1234567890&hash=${randomUuid()}`,
        transaction_id: null, bank_transfer_id: null, financial_institution: null, bank_info: { payer: {}, collector: {} },
      },
    };
  }

  function boletoDetails(payment: Json, body: Json): void {
    const id = payment.id;
    const due = body.date_of_expiration ?? mpDate(Date.now() + 3 * DAY_MS);
    const reference = randomDigits(10);
    const { barcode, line } = boletoNumbers(Date.parse(due), cents(payment.transaction_amount));
    payment.date_of_expiration = due;
    payment.barcode = { content: barcode };
    payment.transaction_details = {
      ...payment.transaction_details, installment_amount: 0, payment_method_reference_id: reference, verification_code: reference,
      external_resource_url: `https://www.mercadopago.com.br/payments/${id}/ticket?caller_id=1234567890&payment_method_id=${payment.payment_method_id}&payment_id=${id}&payment_method_reference_id=${reference}&hash=${randomUuid()}`,
      barcode: { content: barcode }, digitable_line: line,
    };
  }

  function setStatus(payment: Json, status: string, detail: string): void {
    payment.status = status;
    payment.status_detail = detail;
    payment.date_last_updated = mpDate();
  }

  function approve(payment: Json): void {
    setStatus(payment, 'approved', 'accredited');
    payment.captured = true;
    payment.date_approved = mpDate();
    payment.money_release_date = mpDate(Date.now() + 14 * DAY_MS);
    const fee = reais(cents(payment.transaction_amount) * FEE_RATE);
    payment.fee_details = [{ type: 'mercadopago_fee', amount: fee, fee_payer: 'collector' }];
    payment.transaction_details.net_received_amount = reais(cents(payment.transaction_amount) - cents(fee));
  }

  function capturePayment(payment: Json, amount: unknown): Outcome {
    if (payment.status !== 'authorized') return stateError();
    if (amount !== undefined) {
      if (typeof amount !== 'number' || amount <= 0 || cents(amount) > cents(payment.transaction_amount)) return badRequest(2017, 'Invalid transaction_amount for update');
      payment.transaction_amount = reais(cents(amount)); // a partial capture releases the rest of the reserve
      payment.transaction_details.total_paid_amount = payment.transaction_amount;
    }
    approve(payment);
    return { status: 200, body: payment };
  }

  function cancelPayment(payment: Json): Outcome {
    if (!['pending', 'in_process', 'authorized'].includes(payment.status)) return stateError();
    setStatus(payment, 'cancelled', 'by_collector');
    payment.captured = false;
    return { status: 200, body: payment };
  }

  /** Partial refunds keep `approved` (status_detail partially_refunded); reaching the total turns `refunded`. */
  function refundPayment(payment: Json, body: Json): Outcome {
    const total = cents(payment.transaction_amount);
    const remaining = total - cents(payment.transaction_amount_refunded);
    if (payment.status !== 'approved' || remaining <= 0) return stateError();
    let amount = remaining;
    if (body.amount !== undefined && body.amount !== null) {
      if (typeof body.amount !== 'number' || cents(body.amount) <= 0 || cents(body.amount) > remaining) return badRequest(2017, 'Invalid transaction_amount for update');
      amount = cents(body.amount);
    }
    const refund = {
      id: nextRefundId++, payment_id: payment.id, amount: reais(amount), metadata: body.metadata ?? {},
      source: { id: '1234567890', name: 'Loja Sandbox', type: 'collector' }, date_created: mpDate(), unique_sequence_number: null,
      refund_mode: 'standard', adjustment_amount: 0, status: 'approved', reason: null, amount_refunded_to_payer: reais(amount),
    };
    payment.refunds.push(refund);
    payment.transaction_amount_refunded = reais(total - remaining + amount);
    if (amount === remaining) setStatus(payment, 'refunded', 'refunded');
    else setStatus(payment, 'approved', 'partially_refunded');
    return { status: 201, body: refund };
  }

  function createCustomer(body: Json): Outcome {
    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return badRequest(130, 'Invalid customer data: email');
    const ident = body.identification;
    if (ident !== undefined && !/^(\d{11}|\d{14})$/.test(String(ident?.number ?? '').replace(/\D+/g, ''))) return badRequest(130, 'Invalid customer data: identification');
    // One customer per e-mail per integrator account.
    if ([...customers.values()].some((c) => c.email === email)) return badRequest(101, 'the customer already exist');
    const created = mpDate();
    const customer = {
      id: `${randomDigits(10)}-${randomId('', 14)}`, email, first_name: body.first_name ?? null, last_name: body.last_name ?? null,
      phone: body.phone ?? { area_code: null, number: null }, identification: ident ?? { type: null, number: null },
      address: body.address ?? { id: null, zip_code: null, street_name: null, street_number: null }, date_registered: null,
      description: body.description ?? null, date_created: created, date_last_updated: created, metadata: { source_sync: 'source_ws' },
      default_card: null, default_address: null, cards: [], addresses: [], live_mode: false,
    };
    customers.set(customer.id, customer);
    return { status: 201, body: customer };
  }
};

/** payment_method_id MP infers from a tokenized card; 5031 43.. is MP's own test Mastercard. */
function cardMethodOf(number: string): string {
  return number.startsWith('503143') ? 'master' : BRAND_METHOD[cardBrand(number)] ?? 'visa';
}

function send(reply: FastifyReply, out: Outcome) {
  return reply.code(out.status).send(out.body);
}

function validMpDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

// ---- pix EMV (BR Code) with a real CRC16, so the copy-and-paste text is well formed ----

function pixEmv(amountReais: number, key: string): string {
  return pixBrCode({ key, amountReais, merchantName: 'MERCADO PAGO SANDBOX', city: 'SAO PAULO', txid: `mpqrinter${randomDigits(8)}` });
}


// ---- boleto (FEBRABAN): 44-digit barcode and its 47-digit digitable line, check digits included ----

function boletoNumbers(dueMs: number, amountCents: number): { barcode: string; line: string } {
  const days = Math.floor((dueMs - Date.UTC(1997, 9, 7)) / DAY_MS);
  const factor = String(days < 10_000 ? days : ((days - 10_000) % 9_000) + 1_000).padStart(4, '0'); // rolled over 2025-02-22
  const free = randomDigits(25);
  const body = `2379${factor}${String(amountCents).padStart(10, '0')}${free}`;
  const dv = mod11(body);
  const barcode = `${body.slice(0, 4)}${dv}${body.slice(4)}`;
  const field = (s: string) => s + mod10(s);
  const line = field(`2379${free.slice(0, 5)}`) + field(free.slice(5, 15)) + field(free.slice(15, 25)) + dv + factor + String(amountCents).padStart(10, '0');
  return { barcode, line };
}

function mod10(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const p = Number(s[s.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += p > 9 ? p - 9 : p;
  }
  return (10 - (sum % 10)) % 10;
}

function mod11(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += Number(s[s.length - 1 - i]) * (2 + (i % 8));
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}
