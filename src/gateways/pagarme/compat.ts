import { rgError } from '../../errors';
import type { CompatCharge, CompatCustomer, CompatSurface, NativeRequest, RefundFacts } from '../../compat/types';
import { PASSTHROUGH } from './passthrough';

// Pagar.me's own core v5 API served by RouteGate (compatibility mode; docs/compatibility.md): orders, charges and
// customers as pagarme.md sections 2 to 4 describe them, JSON bodies, HTTP Basic with the key as user. Everything
// else under /core/v5 is passed through to Pagar.me with the account's own secret key.
//
// Answers keep to what the official SDK deserializes strictly (docs/sdk-notes.md): an order on order paths, a charge
// on charge paths (capture, cancel and refund answer the charge, never an empty body), string metadata values.

type Obj = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const digits = (v: unknown) => str(v)?.replace(/\D+/g, '') || undefined;
const stamp = (iso: unknown) => (typeof iso === 'string' ? new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined);

/** The SDK's GetOrderResponse/GetChargeResponse take only string metadata values. */
function stringValues(v: unknown): Record<string, string> | undefined {
  const entries = Object.entries(obj(v)).filter(([, x]) => x !== undefined && x !== null).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The native answer is an order (it has `charges`) or already a charge (Pagar.me's own capture/cancel answer). */
const isOrder = (native: unknown) => Array.isArray(obj(native).charges);

/** Pagar.me's charge object from the order it belongs to: its charge, with the order summarized, as GET /charges answers. */
function chargeOf(native: unknown): Obj {
  if (!isOrder(native)) return obj(native);
  const order = obj(native);
  const charge = obj((order.charges as unknown[])[0]);
  return {
    ...charge,
    ...(order.customer ? { customer: order.customer } : {}),
    order: { id: order.id, code: order.code, amount: order.amount, status: order.status, closed: order.closed, created_at: order.created_at, updated_at: order.updated_at },
  };
}

/** DELETE /charges/{id} that refunded: the charge as it stands, its last transaction being this refund. */
function refund(charge: CompatCharge, facts: RefundFacts): { body: unknown } {
  const body = chargeOf(charge.native);
  const tx = obj(body.last_transaction);
  return { body: { ...body, last_transaction: { ...tx, amount: facts.amount, success: facts.status !== 'failed' } } };
}

/** pagarme.md section 3: GET /orders answers {data, paging}; pages are numbered from 1 with `size` per page. */
function pageOf(request: NativeRequest): { page: number; size: number } {
  const read = (name: string, fallback: number) => {
    const raw = request.query[name];
    if (raw === undefined) return fallback;
    if (!/^[1-9]\d*$/.test(String(raw))) throw invalidQuery(name, 'must be a positive integer');
    return Number(raw);
  };
  return { page: read('page', 1), size: read('size', 10) };
}

const invalidQuery = (field: string, message: string) => rgError('INVALID_REQUEST', { fields: `${field} ${message}` }, { details: { errors: [{ field, message }] } });

// RouteGate lists its own charges newest first by cursor; Pagar.me's filters have no home there, so they are refused
// rather than ignored (an unfiltered page read as a filtered one would be wrong data), and a page must lie within
// the newest 100 charges (the list's window).
const LIST_FILTERS = ['code', 'status', 'customer_id', 'created_since', 'created_until'];
const LIST_WINDOW = 100;

function listQuery(request: NativeRequest): { limit: number } {
  const filter = LIST_FILTERS.find((f) => request.query[f] !== undefined);
  if (filter) throw invalidQuery(filter, 'is not supported by RouteGate: list without filters and read each order by its id');
  const { page, size } = pageOf(request);
  if (page * size > LIST_WINDOW) throw invalidQuery('page', `times size must be at most ${LIST_WINDOW}`);
  return { limit: page * size };
}

function list(items: CompatCharge[], hasMore: boolean, request: NativeRequest): { body: unknown } {
  const { page, size } = pageOf(request);
  const link = (n: number) => `/core/v5/orders?page=${n}&size=${size}`;
  const data = items.slice((page - 1) * size).map((i) => i.native);
  // No `total`: RouteGate's cursor list does not count the account's charges, and a guessed total would mislead.
  const paging: Obj = {};
  if (page > 1) paging.previous = link(page - 1);
  if (hasMore) paging.next = link(page + 1);
  return { body: { data, paging } };
}

/** The customer's address from Pagar.me's shape: line_1 "number, street, district" (or the older street/number/neighborhood). */
function addressInput(a: Obj): Obj | undefined {
  if (!Object.keys(a).length) return undefined;
  const parts = (str(a.line_1) ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const numbered = parts.length >= 2 && /^(\d|s\/?n$)/i.test(parts[0]);
  const address = {
    street: str(a.street) ?? (numbered ? parts[1] : str(a.line_1)),
    number: str(a.number) ?? (numbered ? parts[0] : undefined),
    complement: str(a.complement) ?? str(a.line_2),
    district: str(a.neighborhood) ?? (numbered && parts.length > 2 ? parts.slice(2).join(', ') : undefined),
    city: str(a.city),
    state: str(a.state)?.toUpperCase(),
    postalCode: digits(a.zip_code),
    country: str(a.country)?.toUpperCase(),
  };
  return Object.values(address).some((v) => v !== undefined) ? address : undefined;
}

/** POST /core/v5/customers body -> RouteGate's customer input. Phones: mobile, else home; area code + number, no country code. */
function customerInput(request: NativeRequest): Obj {
  const b = request.body;
  const phones = obj(b.phones);
  const phone = [obj(phones.mobile_phone), obj(phones.home_phone)].find((p) => digits(p.number));
  return {
    name: str(b.name),
    email: str(b.email),
    document: digits(b.document),
    phone: phone ? `${digits(phone.area_code) ?? ''}${digits(phone.number)}` : undefined,
    address: addressInput(obj(b.address)),
    metadata: stringValues(b.metadata),
  };
}

/** pagarme.md section 4: the customer object, Pagar.me's own when it created it in this call. */
function customer(c: CompatCustomer): { body: unknown } {
  if (c.processedHere && c.raw && typeof c.raw === 'object') return { body: c.raw };
  const v = c.view;
  const document = String(v.document ?? '');
  const phone = String(v.phone ?? '').replace(/^\+?55(?=\d{10,11}$)/, '').replace(/\D+/g, '');
  const a = obj(v.address);
  return {
    body: {
      // Pagar.me's cus_ when Pagar.me holds the customer, else RouteGate's cus_rg_ (both work on every native path).
      id: c.processedHere ? v.externalId : v.id,
      name: v.name,
      email: v.email,
      document,
      document_type: document.length === 14 ? 'CNPJ' : 'CPF',
      type: document.length === 14 ? 'company' : 'individual',
      delinquent: false,
      ...(Object.keys(a).length ? {
        address: {
          line_1: [a.number, a.street, a.district].filter(Boolean).join(', '), line_2: a.complement ?? '',
          zip_code: String(a.postalCode ?? '').replace(/\D+/g, ''), city: a.city, state: a.state, country: a.country ?? 'BR',
        },
      } : {}),
      phones: phone.length >= 10 ? { mobile_phone: { country_code: '55', area_code: phone.slice(0, 2), number: phone.slice(2) } } : {},
      metadata: stringValues(v.metadata) ?? {},
      created_at: stamp(v.createdAt),
      updated_at: stamp(v.createdAt),
    },
  };
}

export const pagarmeCompat: CompatSurface = {
  routes: [
    { method: 'POST', path: '/core/v5/orders', operation: 'create' },
    { method: 'GET', path: '/core/v5/orders', operation: 'list' },
    { method: 'GET', path: '/core/v5/orders/:order_id', operation: 'retrieve', id: ['param:order_id'] },
    { method: 'GET', path: '/core/v5/charges/:charge_id', operation: 'retrieve', id: ['param:charge_id'] },
    { method: 'POST', path: '/core/v5/charges/:charge_id/capture', operation: 'capture', id: ['param:charge_id'], amount: ['body:amount'] },
    // pagarme.md section 3: one route voids before capture and refunds after it, the whole charge or {amount} cents.
    { method: 'DELETE', path: '/core/v5/charges/:charge_id', operation: 'cancelOrRefund', id: ['param:charge_id'], amount: ['body:amount'] },
    { method: 'POST', path: '/core/v5/customers', operation: 'customerCreate' },
    { method: 'GET', path: '/core/v5/customers/:customer_id', operation: 'customerRetrieve', id: ['param:customer_id'] },
  ],
  prefixes: ['/core/v5'],
  createStatus: 200,
  passthrough: PASSTHROUGH,
  passthroughHeaders: (credentials) => ({ authorization: `Basic ${Buffer.from(`${credentials.secretKey ?? ''}:`).toString('base64')}` }),
  recognizes: (headers) => /^PagarmeApiSDK/.test(String(headers['user-agent'] ?? '')),
  answers: {
    // Order paths answer the order, charge paths the charge (GetOrderResponse vs GetChargeResponse in the SDK).
    charge: (charge, request) => ({ body: /\/orders(\/|$)/.test(request.path) ? charge.native : chargeOf(charge.native) }),
    refund,
    list,
    customerInput,
    customer,
  },
  listQuery,
};
