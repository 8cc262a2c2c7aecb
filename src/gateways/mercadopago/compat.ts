import QRCode from 'qrcode';
import type { CompatCharge, CompatCustomer, CompatSurface, NativeRequest, RefundFacts } from '../../compat/types';
import { digits, toUnit } from '../../mapping/functions';
import { rgError } from '../../errors';
import { PASSTHROUGH } from './passthrough';

// Mercado Pago's own API served by RouteGate (compatibility mode; docs/compatibility.md): the payments, refunds and
// customers paths of mercadopago.md sections 2 to 4, JSON as the official SDK sends it (amounts in reais), with
// X-Idempotency-Key kept per endpoint as Mercado Pago does. Everything else under /v1 is passed through to
// Mercado Pago with the account's own access token.

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const reais = (cents: unknown) => toUnit(cents ?? 0, 'major');

/** An ISO instant in Mercado Pago's own form, Brasília time: 2026-01-01T10:00:00.000-03:00. */
function mpDate(iso: unknown): string {
  const ms = typeof iso === 'string' && !Number.isNaN(Date.parse(iso)) ? Date.parse(iso) : Date.now();
  return new Date(ms - 3 * 3_600_000).toISOString().replace('Z', '-03:00');
}

/** MP's refund statuses for RouteGate's refund vocabulary (refund.response reads them the other way). */
const REFUND_STATUS = { succeeded: 'approved', pending: 'in_process', failed: 'rejected' } as const;

/** The refunds MP listed on a payment it holds (its raw body's refunds[]), when RouteGate has that body. */
function mpRefunds(charge: CompatCharge): Array<Record<string, unknown>> | undefined {
  const listed = obj(charge.native).refunds;
  return charge.processedHere && Array.isArray(listed) ? listed.map(obj) : undefined;
}

/**
 * mercadopago.md section 3: the refund object (POST /v1/payments/{id}/refunds answers 201 with it). Mercado Pago's own
 * object when it made the refund; else built from what RouteGate recorded, amount in reais, on the id RouteGate answers.
 */
function refund(charge: CompatCharge, facts: RefundFacts) {
  const own = mpRefunds({ ...charge, native: facts.raw ?? charge.native })?.find((r) => String(r.id) === facts.refundId);
  if (own) return { status: 201, body: own };
  const amount = reais(facts.amount);
  return {
    status: 201,
    body: {
      id: facts.refundId ?? `${String(charge.view.id)}-refund-${facts.seq}`,
      payment_id: obj(charge.native).id ?? charge.view.id,
      amount,
      metadata: {},
      source: { id: null, name: null, type: 'collector' },
      date_created: mpDate(facts.createdAt),
      unique_sequence_number: null,
      refund_mode: 'standard',
      adjustment_amount: 0,
      status: REFUND_STATUS[facts.status ?? 'succeeded'],
      reason: null,
      amount_refunded_to_payer: amount,
    },
  };
}

/** GET /v1/payments/{id}/refunds: a bare array; Mercado Pago's own list for a payment it holds. */
function refundList(charge: CompatCharge, facts: RefundFacts[]) {
  return { body: mpRefunds(charge) ?? facts.map((f) => refund(charge, f).body) };
}

/** mercadopago.md section 4: the customer object; Mercado Pago's own when it created the customer in this call. */
function customer(c: CompatCustomer, _request: NativeRequest, operation: string) {
  const status = operation === 'customerCreate' ? 201 : 200;
  if (c.processedHere && c.raw && typeof c.raw === 'object') return { status, body: c.raw };
  const v = c.view;
  const name = String(v.name ?? '').trim();
  const space = name.indexOf(' ');
  const phone = str(v.phone)?.replace(/^\+?55(?=\d{10,11}$)/, '');
  const document = String(v.document ?? '');
  const a = obj(v.address);
  return {
    status,
    body: {
      id: c.processedHere ? v.externalId : v.id,
      email: v.email ?? null,
      first_name: space > 0 ? name.slice(0, space) : name || null,
      last_name: space > 0 ? name.slice(space + 1) : null,
      phone: phone ? { area_code: phone.slice(0, 2), number: phone.slice(2) } : { area_code: null, number: null },
      identification: document ? { type: document.length === 14 ? 'CNPJ' : 'CPF', number: document } : { type: null, number: null },
      address: { id: null, zip_code: a.postalCode ?? null, street_name: a.street ?? null, street_number: a.number ?? null },
      date_registered: null,
      description: null,
      date_created: mpDate(v.createdAt),
      date_last_updated: mpDate(v.createdAt),
      metadata: v.metadata ?? {},
      default_card: null,
      default_address: null,
      cards: [],
      addresses: [],
      live_mode: false,
    },
  };
}

/** POST /v1/customers body -> RouteGate's customer input: first + last name, identification.number as the CPF/CNPJ. */
function customerInput(request: NativeRequest): Record<string, unknown> {
  const b = request.body;
  const a = obj(b.address);
  const phone = obj(b.phone);
  const name = [str(b.first_name), str(b.last_name)].filter(Boolean).join(' ');
  const phoneDigits = `${digits(phone.area_code) ?? ''}${digits(phone.number) ?? ''}`;
  const address = str(a.street_name) || str(a.zip_code) ? {
    street: str(a.street_name), number: a.street_number === undefined || a.street_number === null ? undefined : String(a.street_number),
    postalCode: digits(a.zip_code), city: str(obj(a.city).name) ?? str(a.city),
  } : undefined;
  const metadata = Object.keys(obj(b.metadata)).length
    ? Object.fromEntries(Object.entries(obj(b.metadata)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) : undefined;
  return { name: name || undefined, email: str(b.email), document: digits(obj(b.identification).number), phone: phoneDigits || undefined, address, metadata };
}

/**
 * Mercado Pago's own payment body, with the client's external_reference where RouteGate keeps its charge id (its
 * reconciliation key at Mercado Pago, charge.request): native.request kept the client's in metadata.external_reference.
 */
function raw(body: unknown, view: Record<string, unknown>) {
  return { ...obj(body), external_reference: str(obj(view.metadata).external_reference) ?? null };
}

/**
 * point_of_interaction.transaction_data.qr_code_base64 (mercadopago.md section 2: the PNG, bare base64) for a pix another
 * gateway processed and showed only as an image URL: drawn here from the EMV text (qr_code), which is what the payer scans,
 * so a client that renders qr_code_base64 always has an image.
 */
async function complete(native: unknown, _view: Record<string, unknown>): Promise<unknown> {
  const data = obj(obj(obj(native).point_of_interaction).transaction_data);
  const emv = str(data.qr_code);
  if (!emv || str(data.qr_code_base64)) return native;
  const png = (await QRCode.toDataURL(emv, { errorCorrectionLevel: 'M' })).split(',')[1];
  const body = obj(native);
  const poi = obj(body.point_of_interaction);
  return { ...body, point_of_interaction: { ...poi, transaction_data: { ...data, qr_code_base64: png } } };
}

/** Search filters RouteGate cannot apply are refused, never ignored: an unfiltered page would look like matches. */
const SEARCH_PARAMS = new Set(['limit', 'offset', 'sort', 'criteria']);

function listQuery(request: NativeRequest) {
  const q = request.query;
  const unknown = Object.keys(q).find((k) => !SEARCH_PARAMS.has(k));
  if (unknown) throw rgError('BAD_REQUEST', { reason: `RouteGate's payment search pages by limit and offset, newest first; it cannot filter by ${unknown}` });
  if ((q.sort !== undefined && q.sort !== 'date_created' && q.sort !== 'id') || (q.criteria !== undefined && q.criteria !== 'desc')) {
    throw rgError('BAD_REQUEST', { reason: 'RouteGate\'s payment search is sorted by date_created, criteria desc only' });
  }
  const int = (v: unknown) => (/^\d+$/.test(String(v ?? '')) ? Number(v) : undefined);
  return { limit: int(q.limit) ?? 30, offset: int(q.offset) };
}

/** GET /v1/payments/search: {paging, results}; `total` counts what this page proves exists (one more while pages remain). */
function list(items: CompatCharge[], hasMore: boolean, request: NativeRequest) {
  const { limit, offset = 0 } = listQuery(request);
  return { body: { paging: { total: offset + items.length + (hasMore ? 1 : 0), limit, offset }, results: items.map((i) => i.native) } };
}

export const mercadopagoCompat: CompatSurface = {
  routes: [
    { method: 'POST', path: '/v1/payments', operation: 'create' },
    { method: 'GET', path: '/v1/payments/search', operation: 'list' },
    { method: 'GET', path: '/v1/payments/:id', operation: 'retrieve', id: ['param:id'] },
    // mercadopago.md section 3: one update route, capture or cancel by the body; any other update is passed through.
    { method: 'PUT', path: '/v1/payments/:id', operation: 'capture', id: ['param:id'], amount: ['body:transaction_amount'], when: (r) => r.body.capture === true },
    { method: 'PUT', path: '/v1/payments/:id', operation: 'cancel', id: ['param:id'], when: (r) => r.body.status === 'cancelled' },
    { method: 'POST', path: '/v1/payments/:id/refunds', operation: 'refund', id: ['param:id'], amount: ['body:amount'] },
    { method: 'GET', path: '/v1/payments/:id/refunds', operation: 'refundList', id: ['param:id'] },
    { method: 'GET', path: '/v1/payments/:id/refunds/:refund', operation: 'refundRetrieve', id: ['param:id'], refund: ['param:refund'] },
    { method: 'POST', path: '/v1/customers', operation: 'customerCreate' },
    // GET /v1/customers/search is Mercado Pago's own customer search: passed through.
    { method: 'GET', path: '/v1/customers/:customer', operation: 'customerRetrieve', id: ['param:customer'], when: (r) => r.params.customer !== 'search' },
  ],
  prefixes: ['/v1'],
  // mercadopago.md section 2 and the SDK's PaymentResponse: `id` is a number.
  numericIds: true,
  createStatus: 201,
  // The SDK sends X-Idempotency-Key on every POST and PUT, and keeps a key given once for later calls made through the
  // same config (docs/sdk-notes.md): per endpoint, as Mercado Pago keeps them, a refund after a create is a new request.
  idempotency: { headers: ['x-idempotency-key', 'idempotency-key'], perEndpoint: true },
  passthrough: PASSTHROUGH,
  passthroughHeaders: (credentials) => ({ authorization: `Bearer ${credentials.accessToken ?? ''}` }),
  recognizes: (headers) => headers['x-product-id'] !== undefined || /MercadoPago/i.test(String(headers['user-agent'] ?? '')),
  answers: { raw, complete, refund, refundList, list, customerInput, customer },
  listQuery,
};
