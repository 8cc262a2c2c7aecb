import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineEmulator, dropUndefined, randomDigits, randomId, requestFingerprint, basicCredentials, isoSeconds as now, type Json, type LedgerEntry, type Outcome } from '../../sandbox/core';
import {
  type StoredCharge, boletoTransaction, cardErrors, cardTransaction, customerErrors, id16, invalid, noPhoneTransaction, optionalAmount,
  orderErrors, pixTransaction, publicCard, redactCard, hasPhone,
} from './emulator-shapes';
import { pagarmeJwks, pagarmeWebhooks } from './emulator-webhooks';

// Pagar.me Core API v5 emulator (shared/gateways/pagarme.md): orders with one charge each, integer cents,
// HTTP Basic with the secret key as user, declines as HTTP 200 with a failed charge.

export const pagarmeEmulator = defineEmulator((app, core) => {
  const { orders, charges, customers, tokens, refundCounts } = core.state({
    orders: new Map<string, Json>(),
    charges: new Map<string, StoredCharge>(),
    customers: new Map<string, Json>(),
    tokens: new Map<string, Json>(),
    refundCounts: new Map<string, number>(), // charge id -> refunds (a DELETE on a paid charge)
  });
  core.ledger(() => [...orders.values()].map((order): Omit<LedgerEntry, 'gateway'> => {
    const charge = charges.get((order.charge_ids as string[])[0])!;
    return {
      id: order.id, reference: order.code ?? null, paymentMethod: charge.payment_method as LedgerEntry['paymentMethod'], status: order.status,
      amount: charge.amount, paidAmount: charge.paid_amount,
      // canceled_amount counts voids too; only what was cancelled after payment went back to the payer.
      refundedAmount: charge.paid_amount > 0 ? charge.canceled_amount : 0, refunds: refundCounts.get(charge.id) ?? 0,
    };
  }));

  // Token creation authenticates with the public key in ?appId=; everything else with Basic auth.
  core.authenticate((request) => {
    if (request.routeOptions.url?.endsWith('/core/v5/tokens') || request.routeOptions.url?.endsWith('/jwks.json')) return undefined;
    const basic = basicCredentials(request.headers.authorization);
    if (basic && basic.user.startsWith('sk_') && !basic.user.includes('invalid') && basic.password === '') return undefined;
    return { status: 401, headers: { 'x-payments-auth': 'Unauthorized' }, body: { message: 'Authorization has been denied for this request.' } };
  });

  // Idempotency-Key (pagarme.md section 1): the key alone names the stored result; reusing it with another
  // request is refused. Validation failures and errors are not stored, only results.
  const idempotency = core.idempotency<string>({
    header: 'idempotency-key',
    slot: (_request, key) => key,
    fingerprint: requestFingerprint,
    conflict: (first, now) => first === now ? undefined
      : { status: 422, body: { message: 'The request is invalid.', errors: { 'Idempotency-Key': ['The key was already used with another request.'] } } },
    stores: (status) => status < 400,
  });
  const withIdempotency = async (request: FastifyRequest, reply: FastifyReply, run: () => Outcome) => idempotency.run(request, reply, run);

  app.post<{ Querystring: { appId?: string } }>('/core/v5/tokens', async (request, reply) => {
    if (!request.query.appId?.startsWith('pk_') || request.query.appId.includes('invalid')) {
      return reply.code(401).send({ message: 'Authorization has been denied for this request.' });
    }
    const card = (request.body as Json)?.card;
    const errors = cardErrors(card, 'request.card');
    if (errors) return reply.code(422).send({ message: 'The request is invalid.', errors });
    const token = { id: id16('token_'), type: 'card', created_at: now(), expires_at: new Date(Date.now() + 60_000).toISOString(), card: publicCard(card) };
    tokens.set(token.id, { ...card });
    return reply.code(200).send(token);
  });

  const webhooks = pagarmeWebhooks(core, {
    charge: (orderId) => charges.get((orders.get(orderId)?.charge_ids as string[] | undefined)?.[0] ?? ''),
    order: (orderId) => renderOrder(orders.get(orderId)!),
    chargeView: (charge) => renderCharge(charge),
  });
  // Public, like Pagar.me's own JWKS: receivers fetch it to check X-Webhook-Asymmetric-Signature.
  app.get('/.well-known/jwks.json', async () => pagarmeJwks());

  app.post('/core/v5/orders', (request, reply) => withIdempotency(request, reply, () => createOrder((request.body ?? {}) as Json)));

  // List (pagarme.md section 3): filters code, status, customer_id; page from 1, size; newest first.
  app.get<{ Querystring: Json }>('/core/v5/orders', async (request, reply) => {
    const q = request.query;
    const page = q.page === undefined ? 1 : Number(q.page);
    const size = q.size === undefined ? 10 : Number(q.size);
    const errors: Json = {};
    if (!Number.isInteger(page) || page < 1) errors.page = ['The field page must be a positive integer.'];
    if (!Number.isInteger(size) || size < 1) errors.size = ['The field size must be a positive integer.'];
    if (Object.keys(errors).length) return reply.code(422).send({ message: 'The request is invalid.', errors });
    const found = [...orders.values()].filter((o) => (q.code === undefined || o.code === q.code) && (q.status === undefined || o.status === q.status)
      && (q.customer_id === undefined || o.customer?.id === q.customer_id)).reverse();
    const link = (n: number) => `https://api.pagar.me/core/v5/orders?page=${n}&size=${size}`;
    const paging: Json = { total: found.length };
    if (page > 1) paging.previous = link(page - 1);
    if (page * size < found.length) paging.next = link(page + 1);
    return { data: found.slice((page - 1) * size, page * size).map((o) => renderOrder(o)), paging };
  });

  app.get<{ Params: { id: string } }>('/core/v5/orders/:id', async (request, reply) => {
    const order = orders.get(request.params.id);
    return order ? renderOrder(order) : reply.code(404).send({ message: 'Order not found.' });
  });

  app.get<{ Params: { id: string } }>('/core/v5/charges/:id', async (request, reply) => {
    const charge = charges.get(request.params.id);
    return charge ? renderCharge(charge) : reply.code(404).send({ message: 'Charge not found.' });
  });

  app.post<{ Params: { id: string } }>('/core/v5/charges/:id/capture', (request, reply) => withIdempotency(request, reply, () => {
    const charge = charges.get(request.params.id);
    if (!charge) return { status: 404, body: { message: 'Charge not found.' } };
    if (charge.last_transaction.status !== 'authorized_pending_capture') {
      return { status: 412, body: { message: `Charge can not be captured. Status: ${charge.status}.` } };
    }
    const amount = optionalAmount(request.body, charge.amount);
    if (typeof amount === 'string') return { status: 422, body: invalid('amount', amount) };
    charge.status = 'paid';
    charge.paid_amount = amount;
    charge.paid_at = now();
    charge.last_transaction = { ...charge.last_transaction, id: id16('tran_'), status: amount < charge.amount ? 'partial_capture' : 'captured', amount, success: true };
    settleOrder(charge);
    return { status: 200, body: renderCharge(charge) };
  }));

  // Cancel and refund are one route: before capture it voids, after capture it refunds (full or partial).
  app.delete<{ Params: { id: string } }>('/core/v5/charges/:id', (request, reply) => withIdempotency(request, reply, () => {
    const charge = charges.get(request.params.id);
    if (!charge) return { status: 404, body: { message: 'Charge not found.' } };
    if (charge.status === 'canceled' || charge.status === 'failed') {
      return { status: 412, body: { message: `Charge can not be canceled. Status: ${charge.status}.` } };
    }
    const paid = charge.status === 'paid';
    const remaining = (paid ? charge.paid_amount : charge.amount) - charge.canceled_amount;
    const amount = optionalAmount(request.body, remaining);
    if (typeof amount === 'string') return { status: 422, body: invalid('amount', amount) };
    if (amount > remaining) return { status: 412, body: { message: `The amount to cancel (${amount}) is greater than the available amount (${remaining}).` } };
    charge.canceled_amount += amount;
    if (paid) refundCounts.set(charge.id, (refundCounts.get(charge.id) ?? 0) + 1);
    const full = charge.canceled_amount >= (paid ? charge.paid_amount : charge.amount);
    if (full) {
      charge.status = 'canceled';
      charge.canceled_at = now();
    }
    const txStatus = paid ? (full ? 'refunded' : 'partial_refunded') : full ? 'voided' : 'partial_void';
    charge.last_transaction = { ...charge.last_transaction, id: id16('tran_'), status: txStatus, amount, success: true };
    settleOrder(charge);
    return { status: 200, body: renderCharge(charge) };
  }));

  // A chargeback on a paid card charge: the charge turns chargedback (charge.chargedback). Pagar.me documents no
  // notification of a dispute's outcome, so the emulator has none to send: closing one is refused (docs/emulators.md).
  core.disputes({
    open(id) {
      const order = orders.get(id);
      const charge = order ? charges.get((order.charge_ids as string[])[0]) : charges.get(id);
      if (!charge) return { ok: false, status: 404, body: { message: 'Charge not found.' } };
      if (charge.status !== 'paid' || !['credit_card', 'debit_card'].includes(charge.payment_method)) {
        return { ok: false, status: 412, body: { message: `Charge ${charge.id} with status ${charge.status} cannot be charged back.` } };
      }
      charge.status = 'chargedback';
      settleOrder(charge);
      return { ok: true, dispute: renderCharge(charge) };
    },
    close() {
      return { ok: false, status: 409, body: { message: 'Pagar.me documents no notification of a chargeback\'s outcome: the charge stays chargedback.' } };
    },
  });

  // The payer pays a pending pix or boleto: the charge is paid in full, as the simulators do after a delay.
  core.payer((id) => {
    const order = orders.get(id);
    const charge = order ? charges.get((order.charge_ids as string[])[0]) : charges.get(id);
    if (!charge) return { ok: false, status: 404, message: `order or charge ${id} not found` };
    const tx = charge.last_transaction;
    if (charge.status !== 'pending' || !['waiting_payment', 'generated'].includes(tx.status)) {
      return { ok: false, status: 409, message: `${id} is ${charge.status}, not a pix or boleto awaiting the payer` };
    }
    Object.assign(charge, { status: 'paid', paid_amount: charge.amount, paid_at: now() });
    charge.last_transaction = { ...tx, status: 'paid', paid_at: now() };
    settleOrder(charge);
    return { ok: true };
  });

  app.post('/core/v5/customers', (request, reply) => withIdempotency(request, reply, () => {
    const body = (request.body ?? {}) as Json;
    const errors = customerErrors(body, 'customer');
    if (errors) return { status: 422, body: { message: 'The request is invalid.', errors, request: body } };
    const customer = dropUndefined({
      id: id16('cus_'), name: body.name, email: body.email, document: body.document, document_type: body.document_type ?? (String(body.document).length === 14 ? 'CNPJ' : 'CPF'),
      type: body.type ?? (String(body.document).length === 14 ? 'company' : 'individual'), delinquent: false, phones: body.phones ?? {},
      metadata: body.metadata ?? {}, created_at: now(), updated_at: now(),
    });
    customers.set(customer.id, customer);
    return { status: 200, body: customer };
  }));

  app.get<{ Params: { id: string } }>('/core/v5/customers/:id', async (request, reply) => {
    const customer = customers.get(request.params.id);
    return customer ?? reply.code(404).send({ message: 'Customer not found.' });
  });

  function createOrder(body: Json): { status: number; body: unknown } {
    const errors = orderErrors(body);
    if (errors) return { status: 422, body: { message: 'The request is invalid.', errors, request: redactCard(body) } };
    let customer: Json;
    if (body.customer_id) {
      const found = customers.get(body.customer_id);
      if (!found) return { status: 404, body: { message: 'Customer not found.' } };
      customer = found;
    } else {
      customer = { id: id16('cus_'), ...body.customer, delinquent: false };
      customers.set(customer.id, customer);
    }
    const payment = body.payments[0];
    let card: Json | undefined;
    if (payment.payment_method === 'credit_card' || payment.payment_method === 'debit_card') {
      const cardInput = payment[payment.payment_method];
      card = cardInput.card_token ? tokens.get(cardInput.card_token) : cardInput.card;
      if (!card) return { status: 404, body: { message: 'Token not found.' } };
      tokens.delete(cardInput.card_token); // single use
    }
    const amount = body.items.reduce((sum: number, item: Json) => sum + item.amount * (item.quantity ?? 1), 0);
    const order: Json = {
      id: id16('or_'), code: body.code ?? randomId('', 10), amount, currency: body.currency ?? 'BRL', closed: body.closed ?? true,
      items: body.items.map((item: Json) => ({ id: id16('oi_'), ...item, quantity: item.quantity ?? 1, status: 'active' })),
      customer, status: 'pending', metadata: body.metadata ?? {}, created_at: now(), updated_at: now(), closed_at: now(),
    };
    const charge: StoredCharge = {
      id: id16('ch_'), code: order.code, gateway_id: randomDigits(10), amount, paid_amount: 0, canceled_amount: 0, status: 'pending',
      currency: order.currency, payment_method: payment.payment_method, order_id: order.id, customer, metadata: body.metadata ?? {},
      created_at: now(), updated_at: now(),
    };
    charge.last_transaction = card ? cardTransaction(charge, payment, card)
      : payment.payment_method === 'pix' ? (hasPhone(customer) ? pixTransaction(charge, payment) : noPhoneTransaction(charge))
        : boletoTransaction(charge, payment);
    order.charge_ids = [charge.id];
    orders.set(order.id, order);
    charges.set(charge.id, charge);
    settleOrder(charge);
    return { status: 200, body: renderOrder(order) };
  }

  /** The order's status follows its only charge. */
  function settleOrder(charge: StoredCharge): void {
    const order = orders.get(charge.order_id);
    if (!order) return;
    // A chargeback leaves the order paid: it is the charge that was charged back.
    order.status = charge.status === 'paid' || charge.status === 'chargedback' ? 'paid' : charge.status === 'canceled' ? 'canceled' : charge.status === 'failed' ? 'failed' : 'pending';
    order.updated_at = charge.updated_at = now();
    webhooks.changed(order.id);
  }

  function renderOrder(order: Json): Json {
    const { charge_ids: ids, ...rest } = order;
    return { ...rest, charges: (ids as string[]).map((id) => renderCharge(charges.get(id)!, false)) };
  }

  function renderCharge(charge: StoredCharge, withOrder = true): Json {
    const { order_id: orderId, ...rest } = charge;
    const body: Json = { ...rest };
    if (!body.canceled_amount) delete body.canceled_amount;
    if (withOrder) {
      const order = orders.get(orderId)!;
      body.order = { id: order.id, code: order.code, amount: order.amount, status: order.status, closed: order.closed, created_at: order.created_at, updated_at: order.updated_at };
    }
    return body;
  }
});
