import type { CompatCharge, CompatCustomer, CompatSurface, NativeRequest, RefundFacts } from '../../compat/types';
import { PASSTHROUGH } from './passthrough';

// Stripe's own API served by RouteGate (compatibility mode; docs/compatibility.md): the PaymentIntents, Refunds and
// Customers paths of stripe.md sections 2 to 4, form-encoded as the Stripe SDKs send them. Everything else under
// /v1 is passed through to Stripe with the account's own secret key.

const unix = (iso: unknown) => (typeof iso === 'string' ? Math.floor(Date.parse(iso) / 1000) : Math.floor(Date.now() / 1000));
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The PaymentIntent's charge id: latest_charge as an id or expanded. */
function latestCharge(intent: unknown): string | null {
  const latest = obj(intent).latest_charge;
  return typeof latest === 'string' ? latest : str(obj(latest).id) ?? null;
}

/** The id of an expandable field (`customer`, `payment_method`): as sent, or the expanded object's id. */
function idOf(value: unknown): string | null {
  return typeof value === 'string' ? value : str(obj(value).id) ?? null;
}

/** Refund.destination_details: the payment method type, with no acquirer reference RouteGate could know. */
function destinationDetails(type: unknown): Record<string, unknown> {
  const kind = typeof type === 'string' && type !== '' ? type : 'card';
  return kind === 'card' ? { type: kind, card: { type: 'refund' } } : { type: kind, [kind]: {} };
}

/**
 * stripe.md section 3: the refund object POST /v1/refunds answers, with every field Stripe always sends (Stripe's
 * description, test/conformance/stripe-wire.test.ts); Connect reversals RouteGate never makes are null.
 */
function refund(charge: CompatCharge, facts: RefundFacts, request: NativeRequest) {
  const intent = obj(charge.native);
  const types = Array.isArray(intent.payment_method_types) ? intent.payment_method_types : [];
  return {
    body: {
      id: facts.refundId ?? `re_${String(charge.view.id)}_${facts.seq}`,
      object: 'refund',
      amount: facts.amount,
      balance_transaction: null,
      charge: latestCharge(intent),
      created: Math.floor(Date.now() / 1000),
      currency: String(charge.view.currency).toLowerCase(),
      customer: idOf(intent.customer),
      customer_account: null,
      destination_details: destinationDetails(types[0]),
      metadata: obj(request.body.metadata),
      payment_intent: intent.id ?? charge.view.id,
      payment_method: idOf(intent.payment_method),
      reason: str(request.body.reason) ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: facts.status ?? 'succeeded',
      transfer_reversal: null,
    },
  };
}

/**
 * stripe.md section 4: the customer object, Stripe's own when it holds the customer; otherwise built with every
 * field Stripe always sends (Stripe's description), nulls where RouteGate keeps nothing.
 */
function customer(c: CompatCustomer) {
  if (c.processedHere && c.raw && typeof c.raw === 'object') return { body: c.raw };
  const v = c.view;
  const a = obj(v.address);
  const line1 = [a.street, a.number].filter(Boolean).join(', ');
  return {
    body: {
      id: c.processedHere ? v.externalId : v.id,
      object: 'customer',
      address: Object.keys(a).length
        ? { line1: line1 || null, line2: a.complement ?? null, city: a.city ?? null, state: a.state ?? null, postal_code: a.postalCode ?? null, country: a.country ?? null }
        : null,
      balance: 0,
      created: unix(v.createdAt),
      currency: null,
      default_source: null,
      delinquent: false,
      description: null,
      email: v.email ?? null,
      invoice_prefix: null,
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: c.livemode ?? false,
      metadata: v.metadata ?? {},
      name: v.name ?? null,
      next_invoice_sequence: 1,
      phone: v.phone ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    },
  };
}

/** POST /v1/customers params -> RouteGate's customer input; the CPF/CNPJ is Stripe's tax_id_data[0][value]. */
function customerInput(request: NativeRequest): Record<string, unknown> {
  const b = request.body;
  const a = obj(b.address);
  const taxIds = Array.isArray(b.tax_id_data) ? b.tax_id_data : Object.values(obj(b.tax_id_data));
  const document = str(obj(taxIds[0]).value)?.replace(/\D+/g, '');
  const address = Object.keys(a).length ? {
    street: str(a.line1), complement: str(a.line2), city: str(a.city), state: str(a.state)?.toUpperCase(),
    postalCode: str(a.postal_code)?.replace(/\D+/g, ''), country: str(a.country)?.toUpperCase(),
  } : undefined;
  const metadata = Object.keys(obj(b.metadata)).length ? obj(b.metadata) : undefined;
  return { name: str(b.name), email: str(b.email), document, phone: str(b.phone)?.replace(/[^\d+]+/g, ''), address, metadata };
}

export const stripeCompat: CompatSurface = {
  routes: [
    { method: 'POST', path: '/v1/payment_intents', operation: 'create' },
    { method: 'GET', path: '/v1/payment_intents', operation: 'list' },
    { method: 'GET', path: '/v1/payment_intents/:intent', operation: 'retrieve', id: ['param:intent'] },
    { method: 'POST', path: '/v1/payment_intents/:intent/capture', operation: 'capture', id: ['param:intent'], amount: ['body:amount_to_capture'] },
    { method: 'POST', path: '/v1/payment_intents/:intent/cancel', operation: 'cancel', id: ['param:intent'] },
    { method: 'POST', path: '/v1/refunds', operation: 'refund', id: ['body:payment_intent', 'body:charge'], amount: ['body:amount'] },
    { method: 'POST', path: '/v1/customers', operation: 'customerCreate' },
    { method: 'GET', path: '/v1/customers/:customer', operation: 'customerRetrieve', id: ['param:customer'] },
  ],
  prefixes: ['/v1'],
  // stripe.md section 1: the SDKs send indexed arrays (a[0]=x), curl empty brackets (a[]=x), nested hashes by brackets.
  form: { depth: 10, arrayLimit: 100, parameterLimit: 2000 },
  createStatus: 200,
  passthrough: PASSTHROUGH,
  passthroughHeaders: (credentials) => ({ authorization: `Bearer ${credentials.secretKey ?? ''}` }),
  // A live secret key means live objects; a test key (or none) test ones, as Stripe's livemode says.
  livemode: (credentials) => /^(sk|rk)_live_/.test(credentials?.secretKey ?? ''),
  recognizes: (headers) => headers['stripe-version'] !== undefined || /^Stripe\//.test(String(headers['user-agent'] ?? '')),
  answers: {
    refund,
    list: (items, hasMore) => ({ body: { object: 'list', data: items.map((i) => i.native), has_more: hasMore, url: '/v1/payment_intents' } }),
    customerInput,
    customer,
  },
  listQuery: (request) => ({
    limit: /^\d+$/.test(String(request.query.limit ?? '')) ? Number(request.query.limit) : undefined,
    after: str(request.query.starting_after),
  }),
};
