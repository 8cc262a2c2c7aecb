import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorPlugin } from '../../sandbox/types';
import type { LedgerEntry } from '../../sandbox/control';
import { cardBrand, declineFor, luhnValid } from '../../sandbox/cards';
import { randomDigits, randomUuid } from '../../sandbox/ids';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';
import { pixBrCode } from '../../sandbox/br-code';

// PagBank Orders API emulator (shared/gateways/pagbank.md): POST /orders with `charges[]` (card, boleto) or
// `qr_codes[]` (pix), charge capture/cancel, Bearer token, declines as HTTP 201 with a DECLINED charge.
//
// Amount unit: the real API takes integer cents (a float, or reais, is 40002 invalid_parameter). The emulator
// follows the deployment's ROUTEGATE_PAGBANK_AMOUNT_UNIT through pagbankAmountUnit(), the binding the adapter
// uses: `cents` (default, the real API) or `reais` (SPEC.md's profile). Internally everything is integer cents.

type Json = Record<string, any>;

interface StoredCharge {
  id: string;
  orderId: string;
  reference_id?: string;
  description?: string;
  status: 'AUTHORIZED' | 'PAID' | 'IN_ANALYSIS' | 'DECLINED' | 'CANCELED' | 'WAITING';
  created_at: string;
  paid_at?: string;
  canceled_at?: string;
  total: number; // cents
  paid: number; // cents
  refunded: number; // cents
  refunds?: number; // cancels of a paid charge
  currency: string;
  payment_response: Json;
  payment_method: Json;
  links: Json[];
}

interface StoredOrder {
  id: string;
  reference_id?: string;
  created_at: string;
  customer?: Json;
  items: Array<Json & { unit_cents: number }>;
  shipping?: Json;
  notification_urls?: string[];
  chargeIds: string[];
  qr?: { id: string; expiration_date: string; cents: number; text: string };
}

interface Outcome { status: number; body: unknown }

/** PagBank-style refusal codes (ABECS reason mapped to 5 digits) per normalized decline; the mapping reverses them. */
const REFUSALS: Record<string, { code: string; message: string; reason: string }> = {
  card_declined: { code: '20005', message: 'NAO AUTORIZADA', reason: '05' },
  insufficient_funds: { code: '20051', message: 'SALDO/LIMITE INSUFICIENTE', reason: '51' },
  expired_card: { code: '20054', message: 'CARTAO VENCIDO', reason: '54' },
  incorrect_cvc: { code: '20082', message: 'CODIGO DE SEGURANCA INVALIDO', reason: '82' },
  processing_error: { code: '10002', message: 'MOTIVO INESPERADO - TENTE NOVAMENTE', reason: '96' },
};
/** PagBank's own sandbox decline cards (docs/cartoes-de-teste): refused by PagBank risk. */
const SANDBOX_DECLINES = new Set(['4929291898380766', '5530062640663264', '5200489065784203']);
const PAGBANK_RISK = { code: '10000', message: 'NAO AUTORIZADO PELO PAGSEGURO', reason: '' };
const APPROVED = { code: '20000', message: 'SUCESSO' };

const CARD_TYPES = new Set(['CREDIT_CARD', 'DEBIT_CARD']);
const PAYMENT_TYPES = new Set(['CREDIT_CARD', 'DEBIT_CARD', 'BOLETO']);
const QR_VALIDITY_MS = 24 * 3600 * 1000; // PagBank's default pix validity

// A 1x1 PNG stands in for the QR code image; the copy-paste text is the real content.
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

const MINIMAL_PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

const now = () => new Date().toISOString();
const pagbankId = (prefix: string) => `${prefix}_${randomUuid().toUpperCase()}`;

type Unit = 'minor' | 'major';

export const pagbankEmulator: EmulatorPlugin = async (app, opts) => {
  const unit: Unit = pagbankAmountUnit(opts.wire[AMOUNT_UNIT_SETTING]);
  const orders = new Map<string, StoredOrder>();
  const charges = new Map<string, StoredCharge>();
  const qrOrders = new Map<string, string>(); // qr code id -> order id
  const boletos = new Set<string>(); // boleto ids, for their PDF/PNG links
  const idempotent = new Map<string, Outcome>();
  opts.control.onReset(() => {
    for (const m of [orders, charges, qrOrders, boletos, idempotent]) m.clear();
  });
  // One entry per charge, plus one per pix QR code nobody paid yet (no charge exists then). The id is what
  // RouteGate keeps as externalId: the order id for pix, the charge id otherwise.
  opts.control.onLedger('pagbank', () => [...orders.values()].flatMap((order): Array<Omit<LedgerEntry, 'gateway'>> => {
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
  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (route.includes('/qrcode/') || route.includes('/boleto/')) return;
    if (!authorized(request.headers.authorization)) {
      return reply.code(401).send(errorBody('UNAUTHORIZED', 'Invalid credential. Review AUTHORIZATION header.'));
    }
  });

  /** Same x-idempotency-key -> the stored answer, no second order. Only answered writes are kept, never 4xx. */
  const withIdempotency = async (request: FastifyRequest, reply: FastifyReply, run: () => Outcome) => {
    const header = request.headers['x-idempotency-key'];
    const key = typeof header === 'string' && header !== '' ? `${tokenOf(request)}:${request.url}:${header}` : undefined;
    const seen = key ? idempotent.get(key) : undefined;
    const out = seen ?? run();
    if (key && !seen && out.status < 400) idempotent.set(key, out);
    return reply.code(out.status).send(out.body);
  };

  app.post('/orders', (request, reply) => withIdempotency(request, reply, () => createOrder((request.body ?? {}) as Json, baseOf(request))));

  app.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
    const order = orders.get(request.params.id);
    return order ? renderOrder(order, baseOf(request)) : reply.code(404).send(notFound('order_id'));
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
      return { status: 201, body: renderCharge(charge, unit) };
    }
    if (charge.status !== 'PAID') return conflictStatus(charge, 'AUTHORIZED, WAITING or PAID');
    const remaining = charge.paid - charge.refunded;
    const amount = requestAmount(request.body, remaining, unit);
    if (typeof amount === 'object') return amount;
    charge.refunded += amount;
    charge.refunds = (charge.refunds ?? 0) + 1;
    if (charge.refunded >= charge.paid) cancel(charge);
    return { status: 201, body: renderCharge(charge, unit) };
  }));

  /** The payer pays the order's pix QR code (a PIX charge appears) or its waiting boleto; false if nothing waits. */
  function payOrder(order: StoredOrder): boolean {
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
  opts.control.onPay('pagbank', (id) => {
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

  function createOrder(body: Json, base: string): Outcome {
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
    const decline = declineFor(number);
    const refusal = decline ? REFUSALS[decline.code] : SANDBOX_DECLINES.has(number) ? PAGBANK_RISK : undefined;
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
};

function renderCharge(c: StoredCharge, unit: Unit): Json {
  return dropUndefined({
    id: c.id, reference_id: c.reference_id, status: c.status, created_at: c.created_at, paid_at: c.paid_at, canceled_at: c.canceled_at,
    description: c.description,
    amount: { value: toWire(c.total, unit), currency: c.currency, summary: { total: toWire(c.total, unit), paid: toWire(c.paid, unit), refunded: toWire(c.refunded, unit) } },
    payment_response: c.payment_response, payment_method: dropUndefined(c.payment_method), links: c.links,
  });
}

function cancel(charge: StoredCharge): void {
  charge.status = 'CANCELED';
  charge.canceled_at = now();
}

// ---- amounts in the wire unit --------------------------------------------------------------------

/** Wire amount -> cents, or undefined when it is not a valid amount in the wire unit. */
function toCents(value: unknown, unit: Unit): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  if (unit === 'minor') return Number.isInteger(value) ? value : undefined;
  const cents = Math.round(value * 100);
  return Math.abs(cents - value * 100) < 1e-6 ? cents : undefined; // at most two decimals
}

function toWire(cents: number, unit: Unit): number {
  return unit === 'minor' ? cents : cents / 100;
}

/** `{amount: {value}}` of capture/cancel: required (an empty body is 40002 on the real API) and <= `limit`. */
function requestAmount(body: unknown, limit: number, unit: Unit): number | Outcome {
  const value = (body as Json | undefined)?.amount?.value;
  if (value === undefined) return { status: 400, body: errorBody('40001', 'required_parameter', 'amount.value') };
  const cents = toCents(value, unit);
  if (cents === undefined || cents > limit) return { status: 400, body: errorBody('40002', 'invalid_parameter', 'amount.value') };
  return cents;
}

// ---- validation ------------------------------------------------------------------------------------

interface Problem { code: '40001' | '40002'; parameter: string }

function orderProblem(body: Json, unit: Unit): Problem | undefined {
  const missing = (parameter: string): Problem => ({ code: '40001', parameter });
  const invalid = (parameter: string): Problem => ({ code: '40002', parameter });
  const c = body.customer;
  if (!c || typeof c !== 'object') return missing('customer');
  if (!c.name) return missing('customer.name');
  if (!c.email) return missing('customer.email');
  if (!/^[^@\s]+@[^@\s]+$/.test(String(c.email))) return invalid('customer.email');
  if (!c.tax_id) return missing('customer.tax_id');
  if (!/^(\d{11}|\d{14})$/.test(String(c.tax_id))) return invalid('customer.tax_id');
  for (const [i, p] of (Array.isArray(c.phones) ? c.phones : []).entries()) {
    if (!/^\d{2}$/.test(String(p?.area))) return invalid(`customer.phones[${i}].area`);
    if (!/^\d{8,9}$/.test(String(p?.number))) return invalid(`customer.phones[${i}].number`);
  }
  if (body.notification_urls !== undefined) {
    const urls = body.notification_urls;
    if (!Array.isArray(urls) || urls.some((u: unknown) => typeof u !== 'string' || !/^https?:\/\/\S+$/.test(u))) return invalid('notification_urls');
  }
  for (const [i, item] of (Array.isArray(body.items) ? body.items : []).entries()) {
    if (!item?.name) return missing(`items[${i}].name`);
    if (!Number.isInteger(item.quantity) || item.quantity < 1) return invalid(`items[${i}].quantity`);
    if (toCents(item.unit_amount, unit) === undefined) return invalid(`items[${i}].unit_amount`);
  }
  for (const [i, charge] of (Array.isArray(body.charges) ? body.charges : []).entries()) {
    const problem = chargeProblem(charge ?? {}, `charges[${i}]`, unit);
    if (problem) return problem;
  }
  for (const [i, qr] of (Array.isArray(body.qr_codes) ? body.qr_codes : []).entries()) {
    if (qr?.amount?.value === undefined) return missing(`qr_codes[${i}].amount.value`);
    if (toCents(qr.amount.value, unit) === undefined) return invalid(`qr_codes[${i}].amount.value`);
    if (qr.expiration_date !== undefined && Number.isNaN(Date.parse(qr.expiration_date))) return invalid(`qr_codes[${i}].expiration_date`);
  }
  return undefined;
}

function chargeProblem(charge: Json, path: string, unit: Unit): Problem | undefined {
  const missing = (p: string): Problem => ({ code: '40001', parameter: `${path}.${p}` });
  const invalid = (p: string): Problem => ({ code: '40002', parameter: `${path}.${p}` });
  if (charge.amount?.value === undefined) return missing('amount.value');
  if (toCents(charge.amount.value, unit) === undefined) return invalid('amount.value');
  if (charge.amount.currency !== undefined && charge.amount.currency !== 'BRL') return invalid('amount.currency');
  const method = charge.payment_method;
  if (!method?.type) return missing('payment_method.type');
  if (!PAYMENT_TYPES.has(method.type)) return invalid('payment_method.type');
  if (method.type === 'BOLETO') {
    const b = method.boleto;
    if (!b) return missing('payment_method.boleto');
    if (!b.due_date) return missing('payment_method.boleto.due_date');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(b.due_date) || b.due_date < new Date().toISOString().slice(0, 10)) return invalid('payment_method.boleto.due_date');
    if (!b.holder?.name) return missing('payment_method.boleto.holder.name');
    if (!b.holder?.tax_id) return missing('payment_method.boleto.holder.tax_id');
    // The boleto is registered with the payer's address (pagbank.md section 2): the real API refuses it without.
    const a = b.holder.address;
    if (!a || typeof a !== 'object') return missing('payment_method.boleto.holder.address');
    for (const field of ['street', 'number', 'locality', 'city', 'region_code', 'postal_code']) {
      if (!a[field]) return missing(`payment_method.boleto.holder.address.${field}`);
    }
    if (!/^\d{8}$/.test(String(a.postal_code))) return invalid('payment_method.boleto.holder.address.postal_code');
    if (!/^[A-Z]{2}$/.test(String(a.region_code))) return invalid('payment_method.boleto.holder.address.region_code');
    return undefined;
  }
  if (method.installments !== undefined && (!Number.isInteger(method.installments) || method.installments < 1 || method.installments > 18)) return invalid('payment_method.installments');
  const card = method.card;
  if (!card) return missing('payment_method.card');
  if (card.encrypted !== undefined || card.id !== undefined) return undefined; // opaque: the emulator approves them
  if (!card.number) return missing('payment_method.card.number');
  if (typeof card.number !== 'string' || !luhnValid(card.number)) return invalid('payment_method.card.number');
  const month = Number(card.exp_month);
  if (!Number.isInteger(month) || month < 1 || month > 12) return invalid('payment_method.card.exp_month');
  if (!Number.isInteger(Number(card.exp_year)) || String(card.exp_year).length !== 4) return invalid('payment_method.card.exp_year');
  if (card.security_code !== undefined && !/^\d{3,4}$/.test(String(card.security_code))) return invalid('payment_method.card.security_code');
  if (!card.holder?.name && !method.holder?.name) return missing('payment_method.card.holder.name');
  return undefined;
}

// ---- bodies and helpers ----------------------------------------------------------------------------

function errorBody(code: string, description: string, parameter?: string): Json {
  return { error_messages: [dropUndefined({ code, description, parameter_name: parameter })] };
}

// The real 404 body is not documented beyond the error_messages envelope; this follows it.
function notFound(parameter: string): Json {
  return errorBody('NOT_FOUND', 'resource not found', parameter);
}

function conflictStatus(charge: StoredCharge, expected: string): Outcome {
  return { status: 400, body: { error_messages: [{ code: '40002', description: `invalid_status: charge is ${charge.status}, expected ${expected}`, parameter_name: 'charge_id' }] } };
}

/** `Bearer <token>` (a raw token is accepted too, as some clients send it); "invalid" marks a rejected token. */
function authorized(header: string | undefined): boolean {
  const token = (header ?? '').replace(/^Bearer\s+/i, '').trim();
  return token !== '' && !token.includes('invalid');
}

function tokenOf(request: FastifyRequest): string {
  return createHash('sha256').update(String(request.headers.authorization ?? '')).digest('hex').slice(0, 16);
}

function baseOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? 'localhost'}/pagbank`;
}

function publicCard(card: Json, method: Json): Json {
  const number = typeof card.number === 'string' ? card.number.replace(/\D+/g, '') : '';
  return dropUndefined({
    id: card.id, brand: number ? cardBrand(number) : undefined, first_digits: number ? number.slice(0, 6) : undefined,
    last_digits: number ? number.slice(-4) : undefined, exp_month: card.exp_month === undefined ? undefined : String(card.exp_month),
    exp_year: card.exp_year === undefined ? undefined : String(card.exp_year),
    holder: { name: card.holder?.name ?? method.holder?.name }, store: card.store ?? false,
  });
}

/** A BR Code (EMV) copy-paste text carrying the amount in reais and a valid CRC16. */
function pixEmv(cents: number, orderId: string): string {
  return pixBrCode({ location: `api.pagseguro.com/pix/v2/${orderId.slice(5).toLowerCase()}`, amountReais: cents / 100, merchantName: 'ROUTEGATE SANDBOX', city: 'SAO PAULO' });
}


/** 47-digit linha digitavel: bank 033, random fields, due-date factor and the amount in the last 14 digits. */
function boletoLine(cents: number, dueDate: string): string {
  const days = Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse('1997-10-07T00:00:00Z')) / 86_400_000);
  const factor = String(((days - 1000) % 9000) + 1000).padStart(4, '0');
  return `0339${randomDigits(28)}${randomDigits(1)}${factor}${String(cents).padStart(10, '0')}`;
}

function formatLine(d: string): string {
  return `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ${d.slice(21, 26)}.${d.slice(26, 32)} ${d.slice(32, 33)} ${d.slice(33)}`;
}

function dropUndefined<T extends Json>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
