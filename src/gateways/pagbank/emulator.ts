import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  defineEmulator, declineAnswer, dropUndefined, formatBoletoLine as formatLine, randomDigits, randomUuid, wireToCents as toCents, centsToWire as toWire, isoNow as now,
  PNG_1X1, MINIMAL_PDF, type AmountUnit as Unit, type Json, type LedgerEntry, type Outcome,
} from '../../sandbox/core';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';
import {
  type StoredCharge, type StoredOrder, APPROVED, CARD_TYPES, QR_VALIDITY_MS, REFUSALS, SANDBOX_DECLINES, boletoLine, cancel, conflictStatus,
  errorBody, notFound, orderProblem, pagbankId, pixEmv, publicCard, renderCharge, requestAmount,
} from './emulator-shapes';
import { pagbankWebhooks } from './emulator-webhooks';
import { pagbankDisputes } from './emulator-disputes';
import { feesAnswer } from './emulator-installments';

// PagBank Orders API emulator (shared/gateways/pagbank.md): POST /orders with `charges[]` (card, boleto) or
// `qr_codes[]` (pix), charge capture/cancel, Bearer token, declines as HTTP 201 with a DECLINED charge.
//
// Amount unit: the real API takes integer cents (a float, or reais, is 40002 invalid_parameter). The emulator
// follows the deployment's ROUTEGATE_PAGBANK_AMOUNT_UNIT through pagbankAmountUnit(), the binding the adapter
// uses: `cents` (default, the real API) or `reais` (SPEC.md's profile). Internally everything is integer cents.

export const pagbankEmulator = defineEmulator((app, core) => {
  const unit: Unit = pagbankAmountUnit(core.wire[AMOUNT_UNIT_SETTING]);
  const { orders, charges, qrOrders, boletos } = core.state({
    orders: new Map<string, StoredOrder>(),
    charges: new Map<string, StoredCharge>(),
    qrOrders: new Map<string, string>(), // qr code id -> order id
    boletos: new Set<string>(), // boleto ids, for their PDF/PNG links
  });
  // One entry per charge, plus one per pix QR code nobody paid yet (no charge exists then). The id is what
  // RouteGate keeps as externalId: the order id for pix, the charge id otherwise.
  core.ledger(() => [...orders.values()].flatMap((order): Array<Omit<LedgerEntry, 'gateway'>> => {
    if (order.qr && order.chargeIds.length === 0) {
      return [{ id: order.id, reference: order.reference_id ?? null, paymentMethod: 'pix', status: 'WAITING', amount: order.qr.cents, paidAmount: 0, refundedAmount: 0, refunds: 0 }];
    }
    return order.chargeIds.map((id) => {
      const c = charges.get(id)!;
      const type = c.payment_method.type as string;
      return {
        id: order.qr ? order.id : c.id, reference: order.reference_id ?? null, status: c.status,
        paymentMethod: (type === 'PIX' ? 'pix' : type.toLowerCase()) as LedgerEntry['paymentMethod'],
        amount: c.total, paidAmount: c.paid, refundedAmount: c.refunded, refunds: c.refunds ?? 0,
      };
    });
  }));

  // QR code and boleto files are public links (no Authorization), like the real `links[].href`.
  core.authenticate((request) => {
    const route = request.routeOptions.url ?? '';
    if (route.includes('/qrcode/') || route.includes('/boleto/')) return undefined;
    // The legacy transactions API authenticates with email and token in the query string (its own route checks them).
    if (route.includes('/v3/transactions/')) return undefined;
    // `Bearer <token>` (a raw token is accepted too, as some clients send it); "invalid" marks a rejected token.
    const token = String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (token !== '' && !token.includes('invalid')) return undefined;
    return { status: 401, body: errorBody('UNAUTHORIZED', 'Invalid credential. Review AUTHORIZATION header.') };
  });

  /** Same x-idempotency-key (per token and URL) -> the stored answer, no second order. Only answered writes are kept, never 4xx. */
  const idempotency = core.idempotency({
    header: 'x-idempotency-key',
    slot: (request, key) => `${tokenOf(request)}:${request.url}:${key}`,
    stores: (status) => status < 400,
  });
  const withIdempotency = async (request: FastifyRequest, reply: FastifyReply, run: () => Outcome) => idempotency.run(request, reply, run);

  const webhooks = pagbankWebhooks(core, {
    order: (id) => orders.get(id), charge: (id) => charges.get(id), renderOrder, renderCharge: (charge) => renderCharge(charge, unit),
  });

  core.disputes(pagbankDisputes(app, core, { charge: (id) => charges.get(id), order: (id) => orders.get(id) }));

  app.post('/orders', (request, reply) => withIdempotency(request, reply, () => createOrder((request.body ?? {}) as Json, baseOf(request), bearerOf(request))));

  app.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
    const order = orders.get(request.params.id);
    return order ? renderOrder(order, baseOf(request)) : reply.code(404).send(notFound('order_id'));
  });

  // The plans of each brand for a value (emulator-installments.ts).
  app.get<{ Querystring: Json }>('/charges/fees/calculate', async (request, reply) => {
    const out = feesAnswer(request.query ?? {}, unit);
    return reply.code(out.status).send(out.body);
  });

  app.get<{ Params: { id: string } }>('/charges/:id', async (request, reply) => {
    const charge = charges.get(request.params.id);
    return charge ? renderCharge(charge, unit) : reply.code(404).send(notFound('charge_id'));
  });

  app.post<{ Params: { id: string } }>('/charges/:id/capture', (request, reply) => withIdempotency(request, reply, () => {
    const charge = charges.get(request.params.id);
    if (!charge) return { status: 404, body: notFound('charge_id') };
    if (charge.status !== 'AUTHORIZED') return conflictStatus(charge, 'AUTHORIZED');
    const amount = requestAmount(request.body, charge.total, unit);
    if (typeof amount === 'object') return amount;
    charge.status = 'PAID';
    charge.paid = amount;
    charge.paid_at = now();
    webhooks.changed(charge.orderId, charge.id);
    return { status: 201, body: renderCharge(charge, unit) };
  }));

  // One route voids a pre-auth, cancels a waiting boleto and refunds (fully or partly) a paid charge.
  app.post<{ Params: { id: string } }>('/charges/:id/cancel', (request, reply) => withIdempotency(request, reply, () => {
    const charge = charges.get(request.params.id);
    if (!charge) return { status: 404, body: notFound('charge_id') };
    if (charge.status === 'AUTHORIZED' || charge.status === 'WAITING') {
      const amount = requestAmount(request.body, charge.total, unit);
      if (typeof amount === 'object') return amount;
      cancel(charge);
      webhooks.changed(charge.orderId, charge.id);
      return { status: 201, body: renderCharge(charge, unit) };
    }
    if (charge.status !== 'PAID') return conflictStatus(charge, 'AUTHORIZED, WAITING or PAID');
    // POST /__control/refund-outcomes transaction_not_found: the refund side does not know the payment yet (a pix
    // refunded moments after it was paid): 40008, nothing refunded; the same refund passes later.
    if (core.control.takeRefundOutcome('pagbank', 'transaction_not_found')) {
      return { status: 400, body: { error_messages: [{ code: '40008', description: 'Transaction is not found' }] } };
    }
    const remaining = charge.paid - charge.refunded;
    const amount = requestAmount(request.body, remaining, unit);
    if (typeof amount === 'object') return amount;
    charge.refunded += amount;
    charge.refunds = (charge.refunds ?? 0) + 1;
    if (charge.refunded >= charge.paid) cancel(charge);
    webhooks.changed(charge.orderId, charge.id);
    return { status: 201, body: renderCharge(charge, unit) };
  }));

  /** The payer pays the order's pix QR code (a PIX charge appears) or its waiting boleto; false if nothing waits. */
  function payOrder(order: StoredOrder): boolean {
    const paid = settlePayer(order);
    if (paid) webhooks.changed(order.id);
    return paid;
  }

  function settlePayer(order: StoredOrder): boolean {
    const waiting = order.chargeIds.map((id) => charges.get(id)!).find((c) => c.status === 'WAITING');
    if (waiting) {
      Object.assign(waiting, { status: 'PAID', paid: waiting.total, paid_at: now() });
      return true;
    }
    if (!order.qr || order.chargeIds.length > 0) return false;
    const charge = newCharge(order, { reference_id: order.reference_id, cents: order.qr.cents, currency: 'BRL' });
    Object.assign(charge, {
      status: 'PAID', paid: order.qr.cents, paid_at: now(), payment_response: { ...APPROVED, reference: randomDigits(12) },
      payment_method: { type: 'PIX', pix: { end_to_end_id: `E${randomDigits(8)}${randomDigits(23)}`, holder: { name: order.customer?.name, tax_id: order.customer?.tax_id } } },
    });
    return true;
  }

  // Sandbox simulator link.
  app.post<{ Params: { id: string } }>('/orders/:id/pay', async (request, reply) => {
    const order = orders.get(request.params.id);
    if (!order) return reply.code(404).send(notFound('order_id'));
    if (!payOrder(order)) return reply.code(400).send(errorBody('40002', 'invalid_parameter', 'order_id'));
    return reply.code(201).send(renderOrder(order, baseOf(request)));
  });

  // A charge's externalId is the order id (pix) or the charge id (cards, boleto): both find the order.
  core.payer((id) => {
    const order = orders.get(id) ?? orders.get(charges.get(id)?.orderId ?? '');
    if (!order) return { ok: false, status: 404, message: `order or charge ${id} not found` };
    return payOrder(order) ? { ok: true } : { ok: false, status: 409, message: `${id} has nothing waiting for the payer` };
  });

  app.get<{ Params: { id: string; format: string } }>('/qrcode/:id/:format', async (request, reply) => {
    if (!qrOrders.has(request.params.id)) return reply.code(404).send(notFound('qrcode_id'));
    if (request.params.format === 'base64') return reply.type('text/plain').send(PNG_1X1.toString('base64'));
    return reply.type('image/png').send(PNG_1X1);
  });

  app.get<{ Params: { id: string; format: string } }>('/boleto/:id/:format', async (request, reply) => {
    if (!boletos.has(request.params.id)) return reply.code(404).send(notFound('boleto_id'));
    if (request.params.format === 'pdf') return reply.type('application/pdf').send(Buffer.from(MINIMAL_PDF));
    return reply.type('image/png').send(PNG_1X1);
  });

  function createOrder(body: Json, base: string, token: string): Outcome {
    const problem = orderProblem(body, unit);
    if (problem) return { status: 400, body: errorBody(problem.code, problem.code === '40001' ? 'required_parameter' : 'invalid_parameter', problem.parameter) };
    const order: StoredOrder = {
      id: pagbankId('ORDE'), reference_id: body.reference_id, created_at: now(), customer: body.customer, shipping: body.shipping,
      notification_urls: body.notification_urls, chargeIds: [],
      items: (body.items ?? []).map((item: Json) => ({ ...item, unit_cents: toCents(item.unit_amount, unit)! })),
    };
    for (const input of body.charges ?? []) {
      const charge = newCharge(order, { reference_id: input.reference_id, description: input.description, cents: toCents(input.amount.value, unit)!, currency: input.amount.currency ?? 'BRL' });
      const method = input.payment_method;
      if (CARD_TYPES.has(method.type)) chargeCard(charge, method);
      else chargeBoleto(charge, method, base);
    }
    const qr = body.qr_codes?.[0];
    if (qr) {
      const cents = toCents(qr.amount.value, unit)!;
      order.qr = {
        id: pagbankId('QRCO'), cents, text: pixEmv(cents, order.id),
        expiration_date: qr.expiration_date ?? new Date(Date.now() + QR_VALIDITY_MS).toISOString(),
      };
      qrOrders.set(order.qr.id, order.id);
    }
    orders.set(order.id, order);
    webhooks.created(order.id, { token, base });
    return { status: 201, body: renderOrder(order, base) };
  }

  function newCharge(order: StoredOrder, input: { reference_id?: string; description?: string; cents: number; currency: string }): StoredCharge {
    const id = pagbankId('CHAR');
    const charge: StoredCharge = {
      id, orderId: order.id, reference_id: input.reference_id, description: input.description, status: 'WAITING', created_at: now(),
      total: input.cents, paid: 0, refunded: 0, currency: input.currency, payment_response: {}, payment_method: {},
      links: [{ rel: 'SELF', href: `https://sandbox.api.pagseguro.com/charges/${id}`, media: 'application/json', type: 'GET' }],
    };
    charges.set(id, charge);
    order.chargeIds.push(id);
    return charge;
  }

  function chargeCard(charge: StoredCharge, method: Json): void {
    const card = method.card;
    const number = typeof card.number === 'string' ? card.number.replace(/\D+/g, '') : '';
    const refusal = declineAnswer(number, REFUSALS, SANDBOX_DECLINES);
    const capture = method.capture !== false;
    charge.payment_method = {
      type: method.type, installments: method.installments ?? 1, capture, soft_descriptor: method.soft_descriptor, card: publicCard(card, method),
    };
    const nsu = randomDigits(12);
    if (refusal) {
      charge.status = 'DECLINED';
      charge.payment_response = { code: refusal.code, message: refusal.message, reference: nsu, raw_data: { nsu, reason_code: refusal.reason } };
      return;
    }
    const authorizationCode = randomDigits(6);
    charge.payment_response = { ...APPROVED, reference: nsu, raw_data: { authorization_code: authorizationCode, nsu, reason_code: '00' } };
    if (capture) Object.assign(charge, { status: 'PAID', paid: charge.total, paid_at: now() });
    else charge.status = 'AUTHORIZED';
  }

  function chargeBoleto(charge: StoredCharge, method: Json, base: string): void {
    const boleto = method.boleto;
    const digits = boletoLine(charge.total, boleto.due_date);
    const id = randomUuid();
    boletos.add(id);
    charge.status = 'WAITING';
    charge.payment_response = { code: '20000', message: 'SUCESSO', reference: randomDigits(12) };
    charge.payment_method = {
      type: 'BOLETO',
      boleto: {
        id, barcode: digits, formatted_barcode: formatLine(digits), due_date: boleto.due_date,
        instruction_lines: boleto.instruction_lines, holder: boleto.holder,
      },
    };
    // The real API lists the PDF first and the PNG second; the mapping matches on `media`.
    charge.links.push(
      { rel: 'SELF', href: `${base}/boleto/${id}/pdf`, media: 'application/pdf', type: 'GET' },
      { rel: 'SELF', href: `${base}/boleto/${id}/png`, media: 'image/png', type: 'GET' },
    );
  }

  function renderOrder(order: StoredOrder, base: string): Json {
    const body: Json = {
      id: order.id, reference_id: order.reference_id, created_at: order.created_at, customer: order.customer,
      items: order.items.map(({ unit_cents: cents, ...item }) => ({ ...item, unit_amount: toWire(cents, unit) })),
      shipping: order.shipping, notification_urls: order.notification_urls,
    };
    if (order.qr) {
      const { id, expiration_date: expiration, cents, text } = order.qr;
      body.qr_codes = [{
        id, expiration_date: expiration, amount: { value: toWire(cents, unit) }, text, arrangements: ['PIX'],
        links: [
          { rel: 'QRCODE.PNG', href: `${base}/qrcode/${id}/png`, media: 'image/png', type: 'GET' },
          { rel: 'QRCODE.BASE64', href: `${base}/qrcode/${id}/base64`, media: 'text/plain', type: 'GET' },
        ],
      }];
    }
    if (order.chargeIds.length) body.charges = order.chargeIds.map((id) => renderCharge(charges.get(id)!, unit));
    body.links = [
      { rel: 'SELF', href: `https://sandbox.api.pagseguro.com/orders/${order.id}`, media: 'application/json', type: 'GET' },
      { rel: 'PAY', href: `https://sandbox.api.pagseguro.com/orders/${order.id}/pay`, media: 'application/json', type: 'POST' },
    ];
    return dropUndefined(body);
  }
});

function tokenOf(request: FastifyRequest): string {
  return createHash('sha256').update(String(request.headers.authorization ?? '')).digest('hex').slice(0, 16);
}

function bearerOf(request: FastifyRequest): string {
  return String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
}

function baseOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? 'localhost'}/pagbank`;
}
