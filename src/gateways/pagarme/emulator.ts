import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorPlugin } from '../../sandbox/types';
import type { LedgerEntry } from '../../sandbox/control';
import { cardBrand, declineFor, luhnValid } from '../../sandbox/cards';
import { randomDigits, randomId } from '../../sandbox/ids';
import { pixBrCode } from '../../sandbox/br-code';

// Pagar.me Core API v5 emulator (shared/gateways/pagarme.md): orders with one charge each, integer cents,
// HTTP Basic with the secret key as user, declines as HTTP 200 with a failed charge.

type Json = Record<string, any>;

interface StoredCharge extends Json {
  id: string;
  status: string;
  amount: number;
  paid_amount: number;
  canceled_amount: number;
  payment_method: string;
  order_id: string;
}

/** ABECS-style return codes per normalized decline (the mapping turns them back). */
const RETURN_CODES: Record<string, { code: string; message: string }> = {
  card_declined: { code: '1000', message: 'Transação não autorizada' },
  insufficient_funds: { code: '1016', message: 'Saldo insuficiente' },
  expired_card: { code: '1001', message: 'Cartão vencido' },
  incorrect_cvc: { code: '1045', message: 'Código de segurança inválido' },
  processing_error: { code: '9111', message: 'Erro no processamento: tente novamente' },
};

const PAYMENT_METHODS = ['credit_card', 'debit_card', 'boleto', 'pix'];
const PIX_SIMULATOR_LIMIT = 50_000; // the simulator fails pix above R$ 500,00

const id16 = (prefix: string) => randomId(prefix, 16);
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const pagarmeEmulator: EmulatorPlugin = async (app, opts) => {
  const orders = new Map<string, Json>();
  const charges = new Map<string, StoredCharge>();
  const customers = new Map<string, Json>();
  const tokens = new Map<string, Json>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const refundCounts = new Map<string, number>(); // charge id -> refunds (a DELETE on a paid charge)
  opts.control.onReset(() => {
    for (const m of [orders, charges, customers, tokens, idempotent, refundCounts]) m.clear();
  });
  opts.control.onLedger('pagarme', () => [...orders.values()].map((order): Omit<LedgerEntry, 'gateway'> => {
    const charge = charges.get((order.charge_ids as string[])[0])!;
    return {
      id: order.id, reference: order.code ?? null, paymentMethod: charge.payment_method as LedgerEntry['paymentMethod'], status: order.status,
      amount: charge.amount, paidAmount: charge.paid_amount,
      // canceled_amount counts voids too; only what was cancelled after payment went back to the payer.
      refundedAmount: charge.paid_amount > 0 ? charge.canceled_amount : 0, refunds: refundCounts.get(charge.id) ?? 0,
    };
  }));

  // Token creation authenticates with the public key in ?appId=; everything else with Basic auth.
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url?.endsWith('/core/v5/tokens')) return;
    if (!authorized(request.headers.authorization)) {
      return reply.code(401).header('x-payments-auth', 'Unauthorized').send({ message: 'Authorization has been denied for this request.' });
    }
  });

  const withIdempotency = async (request: FastifyRequest, reply: FastifyReply, run: () => { status: number; body: unknown }) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      const out = run();
      return reply.code(out.status).send(out.body);
    }
    const fingerprint = createHash('sha256').update(`${request.method} ${request.url} ${request.rawBody ?? ''}`).digest('hex');
    const seen = idempotent.get(key);
    if (seen) {
      if (seen.fingerprint !== fingerprint) {
        return reply.code(422).send({ message: 'The request is invalid.', errors: { 'Idempotency-Key': ['The key was already used with another request.'] } });
      }
      return reply.code(seen.status).send(seen.body);
    }
    const out = run();
    // Pagar.me does not store validation failures or errors under the key, only results.
    if (out.status < 400) idempotent.set(key, { fingerprint, ...out });
    return reply.code(out.status).send(out.body);
  };

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

  // The payer pays a pending pix or boleto: the charge is paid in full, as the simulators do after a delay.
  opts.control.onPay('pagarme', (id) => {
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
    const customer = stripUndefined({
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

  function cardTransaction(charge: StoredCharge, payment: Json, card: Json): Json {
    const input = payment[payment.payment_method];
    const number = String(card.number);
    const decline = declineFor(number)?.code ?? simulatorDecline(number, String(card.cvv ?? ''));
    const authOnly = input.operation_type === 'auth_only' || input.operation_type === 'pre_auth' || input.capture === false;
    const base = {
      id: id16('tran_'), transaction_type: payment.payment_method, gateway_id: randomDigits(10), amount: charge.amount,
      installments: input.installments ?? 1, statement_descriptor: input.statement_descriptor, operation_type: authOnly ? 'auth_only' : 'auth_and_capture',
      acquirer_name: 'simulator', acquirer_tid: randomDigits(12), acquirer_nsu: randomDigits(6), card: publicCard(card), created_at: now(),
    };
    if (decline) {
      const rc = RETURN_CODES[decline];
      charge.status = 'failed';
      return { ...base, status: 'not_authorized', success: false, acquirer_message: rc.message, acquirer_return_code: rc.code, gateway_response: { code: '200', errors: [] } };
    }
    if (authOnly) {
      return { ...base, status: 'authorized_pending_capture', success: true, acquirer_auth_code: randomDigits(6), acquirer_message: 'Transação autorizada com sucesso', acquirer_return_code: '0000', gateway_response: { code: '200', errors: [] } };
    }
    charge.status = 'paid';
    charge.paid_amount = charge.amount;
    charge.paid_at = now();
    return { ...base, status: 'captured', success: true, acquirer_auth_code: randomDigits(6), acquirer_message: 'Transação capturada com sucesso', acquirer_return_code: '0000', gateway_response: { code: '200', errors: [] } };
  }

  /** pagarme.md sections 2 and 5: without a customer phone the order is 200 with a failed charge (gateway_response 412). */
  function noPhoneTransaction(charge: StoredCharge): Json {
    charge.status = 'failed';
    return {
      id: id16('tran_'), transaction_type: 'pix', gateway_id: randomDigits(10), amount: charge.amount, created_at: now(), status: 'failed', success: false,
      gateway_response: { code: '412', errors: [{ message: 'At least one customer phone is required.' }] },
    };
  }

  function pixTransaction(charge: StoredCharge, payment: Json): Json {
    const expiresIn = Number(payment.pix?.expires_in ?? 86_400);
    const base = { id: id16('tran_'), transaction_type: 'pix', gateway_id: randomDigits(10), amount: charge.amount, created_at: now() };
    if (charge.amount > PIX_SIMULATOR_LIMIT) {
      charge.status = 'failed';
      return { ...base, status: 'failed', success: false, gateway_response: { code: '412', errors: [{ message: 'Pix simulator: amount above R$ 500,00 fails.' }] } };
    }
    const emv = pixBrCode({ location: `pix.stone.com.br/pix/v2/${randomId('', 32)}`, amountReais: charge.amount / 100, merchantName: 'PAGARME SANDBOX', city: 'SAO PAULO' });
    return {
      ...base, status: 'waiting_payment', success: true, qr_code: emv,
      qr_code_url: `https://api.pagar.me/core/v5/transactions/${base.id}/qrcode?payment_method=pix`,
      expires_at: new Date(Date.now() + expiresIn * 1000).toISOString(),
    };
  }

  function boletoTransaction(charge: StoredCharge, payment: Json): Json {
    const id = id16('tran_');
    const line = `23793.38128 ${randomDigits(5)}.${randomDigits(6)} ${randomDigits(5)}.${randomDigits(6)} 1 ${randomDigits(14)}`;
    return {
      id, transaction_type: 'boleto', gateway_id: randomDigits(10), amount: charge.amount, status: 'generated', success: true,
      url: `https://api.pagar.me/core/v5/transactions/${id}/pdf`, pdf: `https://api.pagar.me/core/v5/transactions/${id}/pdf`, line,
      barcode: `https://api.pagar.me/core/v5/transactions/${id}/barcode`, nosso_numero: randomDigits(11), bank: '237', document_number: randomDigits(10),
      instructions: payment.boleto?.instructions, due_at: payment.boleto?.due_at ?? new Date(Date.now() + 3 * 86_400_000).toISOString(), type: 'DM', created_at: now(),
    };
  }

  /** The order's status follows its only charge. */
  function settleOrder(charge: StoredCharge): void {
    const order = orders.get(charge.order_id);
    if (!order) return;
    order.status = charge.status === 'paid' ? 'paid' : charge.status === 'canceled' ? 'canceled' : charge.status === 'failed' ? 'failed' : 'pending';
    order.updated_at = charge.updated_at = now();
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
};

function authorized(header: string | undefined): boolean {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return false;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const [user, password] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
  return decoded.includes(':') && user.startsWith('sk_') && !user.includes('invalid') && password === '';
}

/** The simulator's own cards: 4000000000000028 is refused; a CVV starting with 6 is an issuer decline (PSP). */
function simulatorDecline(number: string, cvv: string): string | undefined {
  if (number === '4000000000000028' || number === '4000000000000044') return 'card_declined';
  if (cvv.startsWith('6')) return 'card_declined';
  return undefined;
}

function publicCard(card: Json): Json {
  const number = String(card.number ?? '');
  return {
    id: id16('card_'), first_six_digits: number.slice(0, 6), last_four_digits: number.slice(-4), brand: capitalize(cardBrand(number)),
    holder_name: card.holder_name, exp_month: Number(card.exp_month), exp_year: Number(card.exp_year), status: 'active', type: 'credit',
  };
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function invalid(field: string, message: string): Json {
  return { message: 'The request is invalid.', errors: { [field]: [message] } };
}

function optionalAmount(body: unknown, fallback: number): number | string {
  const amount = (body as Json | undefined)?.amount;
  if (amount === undefined || amount === null) return fallback;
  return Number.isInteger(amount) && amount > 0 ? amount : 'The field amount must be a positive integer (cents).';
}

function orderErrors(body: Json): Json | undefined {
  const errors: Json = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!Array.isArray(body.items) || body.items.length === 0) add('order.items', 'The items field is required.');
  else {
    body.items.forEach((item: Json, i: number) => {
      if (!Number.isInteger(item?.amount) || item.amount < 0) add(`order.items[${i}].amount`, 'The field amount must be an integer (cents).');
      if (typeof item?.description !== 'string' || item.description === '') add(`order.items[${i}].description`, 'The description field is required.');
    });
  }
  if (!body.customer && !body.customer_id) add('order.customer', 'The customer or customer_id field is required.');
  if (body.customer) Object.assign(errors, customerErrors(body.customer, 'order.customer') ?? {});
  const payment = Array.isArray(body.payments) ? body.payments[0] : undefined;
  if (!payment) add('order.payments', 'The payments field is required.');
  else if (!PAYMENT_METHODS.includes(payment.payment_method)) add('order.payments[0].payment_method', `The payment_method ${JSON.stringify(payment.payment_method)} is invalid.`);
  else if (payment.payment_method === 'credit_card' || payment.payment_method === 'debit_card') {
    const input = payment[payment.payment_method];
    const path = `order.payments[0].${payment.payment_method}`;
    if (!input) add(path, `The ${payment.payment_method} field is required.`);
    else if (!input.card_token) Object.assign(errors, cardErrors(input.card, `${path}.card`) ?? {});
    // Debit cards need 3-D Secure authentication data (pagarme.md section 2); the real message is not documented.
    if (input && payment.payment_method === 'debit_card' && !input.authentication) add(`${path}.authentication`, 'The authentication field is required for debit_card.');
  } else if (payment.payment_method === 'boleto' && body.customer) {
    if (!body.customer.document) add('order.customer.document', 'The document field is required for boleto.');
    // "customer address is required for boleto" (pagarme.md section 2).
    const a = body.customer.address;
    if (!a) add('order.customer.address', 'The address field is required for boleto.');
    else for (const f of ['line_1', 'zip_code', 'city', 'state', 'country']) if (!a[f]) add(`order.customer.address.${f}`, `The ${f} field is required.`);
  }
  return Object.keys(errors).length ? errors : undefined;
}

function cardErrors(card: Json | undefined, path: string): Json | undefined {
  const errors: Json = {};
  const add = (field: string, message: string) => (errors[`${path}.${field}`] ??= []).push(message);
  if (!card) return { [path]: ['The card field is required.'] };
  if (typeof card.number !== 'string' || !luhnValid(card.number)) add('number', 'The number field is not a valid credit card number.');
  if (typeof card.holder_name !== 'string' || card.holder_name === '') add('holder_name', 'The holder_name field is required.');
  if (!Number.isInteger(Number(card.exp_month)) || Number(card.exp_month) < 1 || Number(card.exp_month) > 12) add('exp_month', 'The field exp_month must be between 1 and 12.');
  if (!Number.isInteger(Number(card.exp_year))) add('exp_year', 'The exp_year field is required.');
  if (card.cvv !== undefined && !/^\d{3,4}$/.test(String(card.cvv))) add('cvv', 'The cvv field is invalid.');
  return Object.keys(errors).length ? errors : undefined;
}

function customerErrors(customer: Json, path: string): Json | undefined {
  const errors: Json = {};
  if (typeof customer.name !== 'string' || customer.name === '') errors[`${path}.name`] = ['The name field is required.'];
  if (customer.email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(String(customer.email))) errors[`${path}.email`] = ['The email field is not a valid e-mail address.'];
  if (customer.document !== undefined && !/^(\d{11}|\d{14})$/.test(String(customer.document))) errors[`${path}.document`] = ['The document field must have 11 or 14 digits.'];
  return Object.keys(errors).length ? errors : undefined;
}

function hasPhone(customer: Json): boolean {
  const phones = customer?.phones ?? {};
  return Object.values(phones).some((p) => !!(p as Json)?.number);
}

function redactCard(body: Json): Json {
  return JSON.parse(JSON.stringify(body, (key, value) => (key === 'number' || key === 'cvv' ? '****' : value)));
}

function stripUndefined<T extends Json>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
