import type { FastifyReply } from 'fastify';
import {
  defineEmulator, send, declineAnswer, cardBrand, randomDigits, randomUuid, headerValue,
  toCents, roundReais, dateOnly, dateTime, PNG_1X1_BASE64, type Json, type LedgerEntry, type Outcome,
} from '../../sandbox/core';
import { renderSplit, splitErrors } from './emulator-split';
import {
  type ErrorItem, ASAAS_DECLINE_CARDS, CARD_TYPES, DECLINE_DESCRIPTIONS, DELETABLE, REFUNDABLE, SANDBOX_HOST, authError, cardDataErrors, defineHidden, fail, fee,
  list, markPaid, newCustomer, notFound, paymentErrors, pixPayload,
} from './emulator-shapes';
import { asaasWebhooks } from './emulator-webhooks';
import { asaasDisputes } from './emulator-disputes';

// Asaas API v3 emulator (shared/gateways/asaas.md): `access_token` header, amounts in reais (floats),
// every payment belongs to a customer, declines are HTTP 400 invalid_creditCard and persist nothing,
// the pix QR code is a second GET, deleted payments stay readable with `deleted: true`.

export const asaasEmulator = defineEmulator((app, core) => {
  const { customers, payments, cardTokens } = core.state({
    customers: new Map<string, Json>(),
    payments: new Map<string, Json>(),
    cardTokens: new Map<string, Json>(), // creditCardToken -> card, reusable like Asaas' tokens
  });
  // Declines persist nothing at Asaas, so they never appear here. A released pre-authorization keeps its
  // refunds[] entry but returned no money: only refunds of a paid payment count.
  core.ledger(() => [...payments.values()].map((p): Omit<LedgerEntry, 'gateway'> => {
    const paid = !!(p.confirmedDate || p.paymentDate);
    const refunds = paid ? (p.refunds ?? []).filter((r: Json) => r.status !== 'CANCELLED') : [];
    return {
      id: p.id, reference: p.externalReference, paymentMethod: p.billingType.toLowerCase() as LedgerEntry['paymentMethod'], status: p.status,
      amount: toCents(p.value), paidAmount: paid ? toCents(p.value) : 0,
      refundedAmount: refunds.reduce((sum: number, r: Json) => sum + toCents(r.value), 0), refunds: refunds.length,
    };
  }));

  const webhooks = asaasWebhooks(core, payments);

  core.authenticate((request) => {
    const error = authError(headerValue(request.headers.access_token));
    return error && fail(401, error);
  });

  const answer = send;

  app.post('/v3/customers', async (request, reply) => answer(reply, createCustomer((request.body ?? {}) as Json)));
  app.get<{ Params: { id: string } }>('/v3/customers/:id', async (request, reply) => {
    const customer = customers.get(request.params.id);
    return customer ?? answer(reply, notFound('Cliente'));
  });

  app.post('/v3/payments', async (request, reply) => answer(reply, createPayment((request.body ?? {}) as Json)));
  app.get<{ Querystring: Json }>('/v3/payments', async (request) => listPayments(request.query));
  app.get<{ Params: { id: string } }>('/v3/payments/:id', async (request, reply) => withPayment(reply, request.params.id, (p) => ({ status: 200, body: p })));
  app.get<{ Params: { id: string } }>('/v3/payments/:id/status', async (request, reply) => withPayment(reply, request.params.id, (p) => ({ status: 200, body: { status: p.status } })));

  app.get<{ Params: { id: string } }>('/v3/payments/:id/pixQrCode', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    // Pix and boleto alike: an Asaas boleto is hybrid, payable by its pix QR code as well.
    if (p.billingType !== 'PIX' && p.billingType !== 'BOLETO') return fail(400, { code: 'invalid_action', description: 'Esta cobrança não é do tipo Pix.' });
    return { status: 200, body: { encodedImage: PNG_1X1_BASE64, payload: p._pixPayload, expirationDate: `${p.dueDate} 23:59:59`, description: p.description ?? null } };
  }));

  app.get<{ Params: { id: string } }>('/v3/payments/:id/identificationField', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.billingType !== 'BOLETO') return fail(400, { code: 'invalid_action', description: 'Esta cobrança não é do tipo boleto.' });
    return { status: 200, body: { identificationField: p._line, nossoNumero: p.nossoNumero, barCode: p._barCode } };
  }));

  app.post<{ Params: { id: string } }>('/v3/payments/:id/captureAuthorizedPayment', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.status !== 'AUTHORIZED' || p.deleted) {
      return fail(400, { code: 'invalid_action', description: 'Somente cobranças pré-autorizadas podem ser capturadas.' });
    }
    markPaid(p, 'CONFIRMED');
    return { status: 200, body: p };
  }));

  app.post<{ Params: { id: string } }>('/v3/payments/:id/refund', async (request, reply) => withPayment(reply, request.params.id, (p) => refund(p, (request.body ?? {}) as Json)));
  app.get<{ Params: { id: string } }>('/v3/payments/:id/refunds', async (request, reply) => withPayment(reply, request.params.id, (p) => ({
    status: 200, body: list(p.refunds ?? [], 0, 100),
  })));

  // Removes an unpaid charge; Asaas keeps it readable with deleted:true (POST /restore undoes it).
  app.delete<{ Params: { id: string } }>('/v3/payments/:id', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.deleted) return fail(400, { code: 'invalid_action', description: 'Esta cobrança já foi removida.' });
    if (!DELETABLE.includes(p.status)) {
      return fail(400, { code: 'invalid_action', description: `Não é possível remover uma cobrança com situação ${p.status}. Utilize o estorno.` });
    }
    p.deleted = true;
    return { status: 200, body: { deleted: true, id: p.id } };
  }));

  core.disputes(asaasDisputes(payments, (id) => webhooks.changed(id)));

  core.payer((id) => {
    const p = payments.get(id);
    if (!p) return { ok: false, status: 404, message: `payment ${id} not found` };
    if (!['PENDING', 'OVERDUE'].includes(p.status) || p.deleted || CARD_TYPES.includes(p.billingType)) {
      return { ok: false, status: 409, message: `payment ${id} is ${p.status}, not a pending pix or boleto` };
    }
    markPaid(p, 'RECEIVED');
    webhooks.changed(id);
    return { ok: true };
  });

  // Sandbox actions (doc §8): settle a pix/boleto, or make it overdue, without a payer.
  app.post<{ Params: { id: string } }>('/v3/sandbox/payment/:id/confirm', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (!['PENDING', 'OVERDUE'].includes(p.status) || p.deleted || CARD_TYPES.includes(p.billingType)) {
      return fail(400, { code: 'invalid_action', description: 'Somente cobranças pendentes de Pix ou boleto podem ser confirmadas.' });
    }
    markPaid(p, 'RECEIVED');
    return { status: 200, body: p };
  }));
  app.post<{ Params: { id: string } }>('/v3/sandbox/payment/:id/overdue', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.status !== 'PENDING' || p.deleted) return fail(400, { code: 'invalid_action', description: 'Somente cobranças pendentes podem vencer.' });
    p.status = 'OVERDUE';
    return { status: 200, body: p };
  }));

  function withPayment(reply: FastifyReply, id: string, run: (p: Json) => Outcome) {
    const payment = payments.get(id);
    const outcome = payment ? run(payment) : notFound();
    if (payment) webhooks.changed(id); // any route on a payment may have changed it
    return answer(reply, outcome);
  }


  function createCustomer(body: Json): Outcome {
    const customer = newCustomer(body);
    if ('errors' in customer) return fail(400, ...customer.errors);
    customers.set(customer.id, customer);
    return { status: 200, body: customer };
  }

  function createPayment(body: Json) {
    const errors = paymentErrors(body, (id) => customers.has(id));
    if (errors.length) return fail(400, ...errors);
    const card = CARD_TYPES.includes(body.billingType) ? resolveCard(body) : undefined;
    if (card && 'errors' in card) return fail(400, ...card.errors);
    const value = roundReais(Number(body.value));
    const netValue = roundReais(value - fee(body.billingType, value));
    const splitProblems = splitErrors(body.split, netValue);
    if (splitProblems.length) return fail(400, ...splitProblems);
    const id = `pay_${randomDigits(12)}`;
    const invoice = id.slice(4);
    const payment: Json = {
      object: 'payment', id, dateCreated: dateOnly(), customer: body.customer, paymentLink: null, value,
      netValue, originalValue: null, interestValue: null, description: body.description ?? null,
      billingType: body.billingType, status: 'PENDING', dueDate: body.dueDate, originalDueDate: body.dueDate, paymentDate: null,
      clientPaymentDate: null, confirmedDate: null, creditDate: null, estimatedCreditDate: null, installmentNumber: null,
      invoiceUrl: `${SANDBOX_HOST}/i/${invoice}`, invoiceNumber: randomDigits(8), bankSlipUrl: null, nossoNumero: null,
      transactionReceiptUrl: null, externalReference: body.externalReference ?? null, deleted: false, anticipated: false,
      anticipable: false, postalService: false, discount: { value: 0, dueDateLimitDays: 0, type: 'FIXED' }, fine: { value: 0, type: 'FIXED' },
      interest: { value: 0, type: 'PERCENTAGE' }, refunds: null,
      ...(Array.isArray(body.split) ? { split: renderSplit(body.split, netValue, randomUuid) } : {}),
    };
    if (Number(body.installmentCount) > 1) {
      // One payment for the whole plan here; the real API answers with the first installment (see docs/gateways/asaas.md).
      Object.assign(payment, { installment: randomUuid(), installmentNumber: 1, installmentCount: Number(body.installmentCount) });
    }
    if (card) {
      payment.creditCard = { creditCardNumber: card.number.slice(-4), creditCardBrand: cardBrand(card.number).toUpperCase(), creditCardToken: card.token };
      if (body.authorizeOnly === true) payment.status = 'AUTHORIZED';
      else markPaid(payment, 'CONFIRMED');
    } else if (body.billingType === 'BOLETO') {
      Object.assign(payment, {
        nossoNumero: randomDigits(8), bankSlipUrl: `${SANDBOX_HOST}/b/pdf/${invoice}`,
        _barCode: `4619${randomDigits(40)}`, _line: `46191${randomDigits(42)}`, _pixPayload: pixPayload(value, id),
      });
    } else {
      payment._pixPayload = pixPayload(value, id);
    }
    defineHidden(payment);
    payments.set(id, payment);
    webhooks.changed(id);
    return { status: 200, body: payment };
  }

  /** The card to charge (raw data or a stored token), or the 400 Asaas answers: validation or decline. */
  function resolveCard(body: Json): { number: string; token: string } | { errors: ErrorItem[] } {
    if (body.creditCardToken) {
      const stored = cardTokens.get(String(body.creditCardToken));
      if (!stored) return { errors: [{ code: 'invalid_creditCard', description: 'Informe um token de cartão de crédito válido.' }] };
      return decline(stored.number, stored.expiryMonth, stored.expiryYear, String(body.creditCardToken));
    }
    const cc = body.creditCard as Json | undefined;
    const holder = body.creditCardHolderInfo as Json | undefined;
    const errors = cardDataErrors(cc, holder);
    if (!cc || errors.length) return { errors };
    const number = cc.number.replace(/\D+/g, '');
    const token = randomUuid();
    const outcome = decline(number, cc.expiryMonth, cc.expiryYear, token);
    if (!('errors' in outcome)) cardTokens.set(token, { number, expiryMonth: cc.expiryMonth, expiryYear: cc.expiryYear });
    return outcome;
  }

  function decline(number: string, month: unknown, year: unknown, token: string): { number: string; token: string } | { errors: ErrorItem[] } {
    const expired = Number(year) * 12 + Number(month) < new Date().getUTCFullYear() * 12 + new Date().getUTCMonth() + 1;
    const description = declineAnswer(number, DECLINE_DESCRIPTIONS, ASAAS_DECLINE_CARDS) ?? (expired ? DECLINE_DESCRIPTIONS.expired_card : undefined);
    if (description) return { errors: [{ code: 'invalid_creditCard', description }] };
    return { number, token };
  }

  function refund(p: Json, body: Json) {
    if (p.billingType === 'BOLETO') {
      return fail(400, { code: 'invalid_action', description: 'Boletos são estornados por POST /v3/payments/{id}/bankSlip/refund.' });
    }
    if (!REFUNDABLE.includes(p.status) || p.deleted) {
      return fail(400, { code: 'invalid_action', description: `Não é possível estornar uma cobrança com situação ${p.status}.` });
    }
    // POST /__control/refund-outcomes insufficient_balance: the account's balance does not cover the refund yet (fees
    // are not returned, so a pix refunded in full right after it was received): 400, nothing refunded.
    if (core.control.takeRefundOutcome('asaas', 'insufficient_balance')) {
      return fail(400, { code: 'invalid_action', description: 'Saldo insuficiente para realizar o estorno. Adicione saldo à sua conta para estornar esta cobrança.' });
    }
    const refunded = (p.refunds ?? []).reduce((sum: number, r: Json) => sum + toCents(r.value), 0);
    const remaining = toCents(p.value) - refunded;
    const wanted = body.value === undefined || body.value === null ? remaining : toCents(Number(body.value));
    if (!Number.isFinite(wanted) || wanted <= 0) return fail(400, { code: 'invalid_value', description: 'O valor do estorno deve ser maior que zero.' });
    if (wanted > remaining) {
      return fail(400, { code: 'invalid_value', description: `O valor do estorno não pode ser maior que o valor disponível para estorno (R$ ${(remaining / 100).toFixed(2)}).` });
    }
    if (p.status === 'AUTHORIZED' && wanted !== remaining) {
      return fail(400, { code: 'invalid_value', description: 'Uma pré-autorização só pode ser estornada integralmente.' });
    }
    p.refunds = [...(p.refunds ?? []), {
      dateCreated: dateTime(), status: 'DONE', value: wanted / 100,
      description: body.description ?? null, endToEndIdentifier: p.billingType === 'PIX' ? `D${randomDigits(31)}` : null,
      effectiveDate: dateOnly(), transactionReceiptUrl: `${SANDBOX_HOST}/comprovantes/${randomDigits(12)}`, refundedSplits: null,
    }];
    if (wanted === remaining) p.status = 'REFUNDED';
    return { status: 200, body: p };
  }

  /** Newest first: dateCreated is a bare date, so same-day payments keep their creation order, latest first [?]. */
  function listPayments(query: Json) {
    const all = [...payments.values()].reverse().filter((p) =>
      (!query.externalReference || p.externalReference === query.externalReference) && (!query.customer || p.customer === query.customer)
      && (!query.status || p.status === query.status) && (!query.billingType || p.billingType === query.billingType));
    return list(all, Number(query.offset ?? 0), Math.min(Number(query.limit ?? 10), 100));
  }
});
