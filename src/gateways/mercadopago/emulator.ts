import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  defineEmulator, send, bearerToken, luhnValid, randomDigits, randomId, toCents as cents, toReais as reais, brasiliaIso as mpDate,
  type Json, type LedgerEntry, type Outcome,
} from '../../sandbox/core';
import {
  type StoredCard, BOLETO_ADDRESS, CARD_METHODS, SORTABLE, TICKET_METHODS, approve, badRequest, boletoDetails, cardOutcome, cardMethodOf, mpError,
  newPayment, notFound, pixDetails, setStatus, stateError, tokenBody, validMpDate,
} from './emulator-shapes';
import { mercadopagoWebhooks } from './emulator-webhooks';
import { mercadopagoRefunds, rendersInProcess } from './emulator-refunds';
import { applicationFeeRefusal } from './emulator-split';
import { mercadopagoDisputes } from './emulator-disputes';
import { installmentsAnswer } from './emulator-installments';

// Mercado Pago Payments API v1 emulator (shared/gateways/mercadopago.md): Bearer access token, amounts in
// reais (JSON floats), numeric payment ids, X-Idempotency-Key required on payment and refund creation,
// card tokens from POST /v1/card_tokens, declines as HTTP 201 `rejected` with a `cc_rejected_*` status_detail.
export const mercadopagoEmulator = defineEmulator((app, core) => {
  const { payments, customers, tokens, usedTokens } = core.state({
    payments: new Map<string, Json>(),
    customers: new Map<string, Json>(),
    tokens: new Map<string, StoredCard>(),
    usedTokens: new Set<string>(),
  });
  let nextPaymentId = 1_325_350_000 + Math.floor(Math.random() * 10_000);
  core.ledger(() => [...payments.values()].map((p): Omit<LedgerEntry, 'gateway'> => ({
    id: String(p.id), reference: p.external_reference, status: p.status,
    paymentMethod: p.payment_method_id === 'pix' ? 'pix' : p.payment_type_id === 'ticket' ? 'boleto' : p.payment_type_id as LedgerEntry['paymentMethod'],
    amount: cents(p.transaction_amount), paidAmount: ['approved', 'refunded', 'charged_back', 'in_mediation'].includes(p.status) ? cents(p.transaction_amount) : 0,
    refundedAmount: cents(p.transaction_amount_refunded), refunds: p.refunds.filter((r: Json) => r.status !== 'rejected').length,
    ...(p.issuer_id ? { buyerTotal: cents(p.transaction_details.total_paid_amount) } : {}),
  })));
  const webhooks = mercadopagoWebhooks(core, payments);
  const refunds = mercadopagoRefunds(core, payments, (id) => webhooks.changed(id));
  // Capture, cancel, refunds and the sandbox hooks all act on /…/payments/:id: after any of them, notify the change.
  app.addHook('onResponse', async (request) => {
    const id = (request.params as { id?: string } | undefined)?.id;
    if (id && request.method !== 'GET') webhooks.changed(id);
  });

  // Every route wants `Authorization: Bearer <access token>`; card tokenization also takes ?public_key=.
  core.authenticate((request) => {
    const publicKey = (request.query as Json)?.public_key;
    if (request.routeOptions.url?.endsWith('/v1/card_tokens') && typeof publicKey === 'string' && publicKey !== '') {
      return publicKey.includes('invalid') ? mpError(401, 'unauthorized', 'invalid public key', []) : undefined;
    }
    const token = bearerToken(request.headers.authorization);
    if (!token) return mpError(401, 'unauthorized', 'Must provide your access_token to proceed', [[5, 'Must provide your access_token to proceed']]);
    return token.includes('invalid') ? mpError(401, 'unauthorized', 'invalid access token') : undefined;
  });

  /**
   * X-Idempotency-Key: required on payment and refund creation (4292 before any validation); the first
   * result is replayed for the same key whatever the body. Refund replays answer 200 with an empty body.
   * Validation failures are not kept, so a corrected request may reuse the key.
   */
  const idempotency = core.idempotency({
    header: 'x-idempotency-key',
    slot: (request, key) => `${request.method} ${request.url.split('?')[0]} ${key}`, // per key and endpoint
    stores: (status) => status < 400,
    snapshot: true,
  });
  const withIdempotency = (request: FastifyRequest, reply: FastifyReply, opts: { required: boolean; emptyReplay?: boolean }, run: () => Outcome) =>
    idempotency.run(request, reply, run, {
      required: opts.required ? badRequest(4292, "Header X-Idempotency-Key can't be null") : undefined,
      replay: opts.emptyReplay ? () => ({ status: 200, body: '' }) : undefined,
    });

  app.post('/v1/card_tokens', async (request, reply) => send(reply, createCardToken((request.body ?? {}) as Json)));
  app.post('/v1/payments', (request, reply) => withIdempotency(request, reply, { required: true }, () => createPayment((request.body ?? {}) as Json)));

  // The issuer's plans for an amount and a card's bin (emulator-installments.ts).
  app.get<{ Querystring: Json }>('/v1/payment_methods/installments', async (request, reply) => send(reply, installmentsAnswer(request.query ?? {})));

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

  app.get<{ Params: { id: string } }>('/v1/payments/:id', async (request, reply) => payments.get(request.params.id) ?? send(reply, notFound('Payment')));

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
      return payment ? refunds.refundPayment(payment, (request.body ?? {}) as Json, rendersInProcess(request)) : notFound('Payment');
    }));

  app.get<{ Params: { id: string } }>('/v1/payments/:id/refunds', async (request, reply) => {
    const payment = payments.get(request.params.id);
    return payment ? payment.refunds : send(reply, notFound('Payment'));
  });
  app.get<{ Params: { id: string; refundId: string } }>('/v1/payments/:id/refunds/:refundId', async (request, reply) => {
    const refund = payments.get(request.params.id)?.refunds.find((r: Json) => String(r.id) === request.params.refundId);
    return refund ?? send(reply, notFound('Refund'));
  });


  app.post('/v1/customers', (request, reply) => withIdempotency(request, reply, { required: false }, () => createCustomer((request.body ?? {}) as Json)));

  app.get<{ Querystring: { email?: string } }>('/v1/customers/search', async (request) => {
    const email = request.query.email?.toLowerCase();
    const results = [...customers.values()].filter((c) => email === undefined || c.email === email);
    return { paging: { total: results.length, limit: 10, offset: 0 }, results };
  });

  app.get<{ Params: { id: string } }>('/v1/customers/:id', async (request, reply) => customers.get(request.params.id) ?? send(reply, notFound('Customer')));

  core.disputes(mercadopagoDisputes(payments, (id) => webhooks.changed(id)));

  core.payer((id) => {
    const payment = payments.get(id);
    if (!payment) return { ok: false, status: 404, message: `Payment ${id} not found` };
    if (payment.status !== 'pending') return { ok: false, status: 409, message: `payment ${id} is ${payment.status}, not awaiting the payer` };
    approve(payment);
    webhooks.changed(id);
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
    return { status: 201, body: tokenBody(id, tokens.get(id)!, body) };
  }

  function createPayment(body: Json): Outcome {
    const amount = body.transaction_amount;
    if (amount === undefined || amount === null) return badRequest(4002, "transaction_amount attribute can't be null");
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0 || cents(amount) !== Math.round(amount * 100 * 1e6) / 1e6) {
      return badRequest(4037, 'Invalid transaction_amount');
    }
    const feeRefusal = applicationFeeRefusal(body.application_fee, amount);
    if (feeRefusal) return feeRefusal;
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
    const payment = newPayment(nextPaymentId++, body, methodId, payer);
    if (methodId === 'pix') pixDetails(payment, body);
    else if (TICKET_METHODS.has(methodId)) boletoDetails(payment, body);
    else cardOutcome(payment, body, card);
    payments.set(String(payment.id), payment);
    webhooks.changed(String(payment.id));
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
});
