import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseForm } from 'qs';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { loadDescription } from '../helpers/api-descriptions';

// Issue 42: Stripe's own description of its API (test/conformance/descriptions/stripe, SOURCES.md there) judges
// (a) what the Stripe emulator answers RouteGate on the normal flows, (b) what RouteGate answers in Stripe
// compatibility mode for charges any gateway processed, and (c) the names of the parameters RouteGate sends
// Stripe. Everything goes over real HTTP: RouteGate -> a recording proxy -> the Stripe emulator.

const stripe = loadDescription('stripe/stripe-subset.json', {
  author: 'Stripe (types of the official stripe npm package, generated from stripe/openapi)',
  origin: 'npm stripe@22.4.0 cjs/resources/*.d.ts, cut by test/conformance/descriptions/stripe/cut-from-sdk-types.js',
  version: '2026-07-29.dahlia (stripe/openapi v2349)',
});

/**
 * Where the description is stricter than the live API at the pinned version, with the evidence. Each entry is
 * `<schema or operation> <path>` as problems() / unknownParams() word it; nothing is listed today.
 */
export const STRIPE_DESCRIPTION_EXCEPTIONS: ReadonlyArray<{ problem: RegExp; evidence: string }> = [];

/**
 * What RouteGate cannot know about a charge another gateway processed, where Stripe's description requires a
 * value (docs/compatibility.md, "Stripe conformance"): checked only on reads of such a charge.
 */
const ROUTEGATE_GAPS: Record<string, RegExp[]> = {
  // Asaas reports no card expiry: a create answers the request's, a later retrieve has none.
  asaas: [/\/latest_charge\/payment_method_details\/card must have required property 'exp_(month|year)'/],
};

const OBJECT_SCHEMAS: Record<string, string> = {
  payment_intent: 'payment_intent', charge: 'charge', refund: 'refund', customer: 'customer', payment_method: 'payment_method',
};

/** Problems of one Stripe answer (a list's or search result's items each), exceptions removed. */
function answerProblems(body: unknown): string[] {
  const b = body as Record<string, unknown>;
  if (b && (b.object === 'list' || b.object === 'search_result') && Array.isArray(b.data)) return b.data.flatMap(answerProblems);
  const schema = OBJECT_SCHEMAS[String(b?.object)];
  assert.ok(schema, `an answer of a kind the description subset holds: ${JSON.stringify(body).slice(0, 200)}`);
  return stripe.problems(schema, body).map((p) => `${schema} ${p}`).filter((p) => !STRIPE_DESCRIPTION_EXCEPTIONS.some((e) => e.problem.test(p)));
}

/**
 * `problems` less the known gaps, and less what Ajv reports about the anyOf alternatives (`string | Charge | null`)
 * above a gap only because of it.
 */
function withoutGaps(problems: string[], gaps: RegExp[]): string[] {
  const pathOf = (p: string) => p.split(' ')[1] ?? '';
  const gapPaths = problems.filter((p) => gaps.some((g) => g.test(p))).map(pathOf);
  const alternative = / must (be (null|string)|match a schema in anyOf) /;
  return problems.filter((p) => !gaps.some((g) => g.test(p)))
    .filter((p) => !(alternative.test(p) && gapPaths.some((gp) => gp === pathOf(p) || gp.startsWith(`${pathOf(p)}/`))));
}

type Schema = { properties?: Record<string, Schema>; additionalProperties?: boolean | Schema; anyOf?: Schema[]; items?: Schema; type?: string };

/** The request body schema of `POST <path>` (a path template such as /v1/payment_intents/{intent}/capture). */
function operationSchema(path: string): Schema | undefined {
  return OPERATION_BODIES[path.replace(/^\/v1\/payment_intents\/[^/]+\//, '/v1/payment_intents/{intent}/')];
}
let OPERATION_BODIES: Record<string, Schema> = {};

/** Every parameter name in `value` the schema does not name, in Stripe's bracket notation. */
function unknownParams(schema: Schema, value: unknown, where: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const alternatives = schema.anyOf ?? [schema];
  if (Array.isArray(value)) {
    const items = alternatives.find((a) => a.items)?.items;
    return items ? value.flatMap((v, i) => unknownParams(items, v, `${where}[${i}]`)) : [];
  }
  const objects = alternatives.filter((a) => a.properties || a.additionalProperties);
  if (objects.length === 0) return [`${where} (an object where Stripe takes a scalar)`];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const name = where === '' ? key : `${where}[${key}]`;
    const owner = objects.find((o) => o.properties?.[key]);
    if (owner) out.push(...unknownParams(owner.properties![key], v, name));
    else if (!objects.some((o) => Boolean(o.additionalProperties))) out.push(name);
  }
  return out;
}

interface Exchange { method: string; path: string; params: Record<string, unknown>; status: number; body: unknown }

/** A proxy in front of the Stripe emulator that keeps every request RouteGate sends and every answer it gets. */
async function recordingProxy(target: string): Promise<{ url: string; log: Exchange[]; close(): Promise<void> }> {
  const log: Exchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const [path, query = ''] = String(req.url).split('?');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      fetch(`${target}${req.url}`, { method: req.method, headers, body: ['GET', 'HEAD'].includes(String(req.method)) ? undefined : raw })
        .then(async (answer) => {
          const text = await answer.text();
          let body: unknown = text;
          try { body = JSON.parse(text); } catch { /* kept as text */ }
          log.push({ method: String(req.method), path, params: parseForm(req.method === 'GET' ? query : raw, { depth: 10, arrayLimit: 100 }) as Record<string, unknown>, status: answer.status, body });
          const out: Record<string, string> = {};
          answer.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v; });
          res.writeHead(answer.status, out).end(text);
        })
        .catch((err: Error) => res.writeHead(502).end(err.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, log, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Stripe's form encoding, as the SDKs write it (nested hashes by brackets, arrays indexed). */
function formEncode(value: unknown, prefix = ''): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => formEncode(v, `${prefix}[${i}]`));
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => formEncode(v, prefix ? `${prefix}[${k}]` : k));
  return [`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`];
}

let e2e: E2E;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let restore: () => void;
before(async () => {
  e2e = await startE2E();
  const urls = e2e.sandbox.app.config.gatewayUrls;
  const saved = urls.stripe;
  proxy = await recordingProxy(saved);
  urls.stripe = proxy.url;
  restore = () => { urls.stripe = saved; };
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { DESCRIPTIONS_DIR } = await import('../helpers/api-descriptions');
  const paths = JSON.parse(readFileSync(join(DESCRIPTIONS_DIR, 'stripe', 'stripe-subset.json'), 'utf8')).paths as Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
  OPERATION_BODIES = Object.fromEntries(Object.entries(paths).map(([p, op]) => [p, op.post.requestBody.content['application/x-www-form-urlencoded'].schema]));
});
after(async () => {
  restore();
  await proxy.close();
  await e2e.close();
});

/** A Stripe-native client's call to RouteGate in compatibility mode (form-encoded, as the SDKs send). */
async function native(key: string, method: string, path: string, params?: Record<string, unknown>) {
  const body = params ? formEncode(params).join('&') : undefined;
  const url = `${e2e.sandbox.url}${path}${method === 'GET' && body ? `?${body}` : ''}`;
  const res = await fetch(url, {
    method, body: method === 'GET' ? undefined : body,
    headers: { authorization: `Bearer ${key}`, 'stripe-version': '2026-07-29.dahlia', ...(method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
  });
  const text = await res.text();
  return { status: res.status, gateway: res.headers.get('x-rg-gateway'), body: JSON.parse(text) as Record<string, any>, text };
}

const BILLING = {
  name: CUSTOMER.name, email: CUSTOMER.email, phone: `+55${CUSTOMER.phone}`, tax_id: CUSTOMER.document,
  address: { line1: `${CUSTOMER.address.street}, ${CUSTOMER.address.number}`, line2: CUSTOMER.address.complement, city: CUSTOMER.address.city, state: CUSTOMER.address.state, postal_code: CUSTOMER.address.postalCode, country: 'BR' },
};
const RAW_CARD = { number: CARD.number, exp_month: CARD.expMonth, exp_year: CARD.expYear, cvc: CARD.cvv };

/** The PaymentIntent create params a Stripe-native integration sends for `type`. */
function intentParams(type: 'card' | 'pix' | 'boleto', extra: Record<string, unknown> = {}) {
  return {
    amount: 1999, currency: 'brl', confirm: true, payment_method_types: [type], description: 'Pedido 42', metadata: { order_id: '42' },
    payment_method_data: { type, billing_details: { ...BILLING } as Partial<typeof BILLING>, ...(type === 'card' ? { card: RAW_CARD } : type === 'boleto' ? { boleto: { tax_id: CUSTOMER.document } } : {}) },
    ...extra,
  };
}

describe('(a, c) RouteGate -> Stripe: the emulator answers and RouteGate sends what Stripe describes', () => {
  test('card, capture, cancel, refund, pix, boleto and customer flows', async () => {
    const key = await e2e.account({ primaryGateway: 'stripe' });
    const charge = (body: Record<string, unknown>) => e2e.call('POST', '/api/v1/charges', { key, body });
    const card = await charge({ paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD });
    assert.equal(card.body.data.status, 'approved', card.text);
    const refund = await e2e.call('POST', `/api/v1/charges/${card.body.data.id}/refunds`, { key, body: { amount: 500 } });
    assert.equal(refund.status, 201, refund.text);
    const auth = await charge({ paymentMethod: 'credit_card', amount: 2999, capture: false, customer: CUSTOMER, creditCard: CARD });
    assert.equal((await e2e.call('POST', `/api/v1/charges/${auth.body.data.id}/capture`, { key, body: {} })).status, 200);
    const auth2 = await charge({ paymentMethod: 'credit_card', amount: 3999, capture: false, customer: CUSTOMER, creditCard: CARD });
    assert.equal((await e2e.call('POST', `/api/v1/charges/${auth2.body.data.id}/cancel`, { key })).status, 200);
    const pix = await charge({ paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } });
    assert.equal(pix.body.data.status, 'pending', pix.text);
    const boleto = await charge({ paymentMethod: 'boleto', amount: 1999, customer: CUSTOMER, boleto: { dueDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10) } });
    assert.equal(boleto.body.data.status, 'pending', boleto.text);
    const customer = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER } });
    assert.equal(customer.status, 201, customer.text);
    // Read back expanded, as a Stripe-native client and RouteGate's reconciliation read it.
    const nativeKey = await e2e.account({ primaryGateway: 'stripe', compatibilityMode: 'stripe' });
    const created = await native(nativeKey, 'POST', '/v1/payment_intents', intentParams('card', { expand: ['latest_charge'] }));
    assert.equal(created.status, 200, created.text);

    const answered = proxy.log.filter((x) => x.status === 200);
    const kinds = new Set(answered.map((x) => `${x.method} ${x.path.replace(/(pi|ch|re|cus|pm)_\w+/g, '{id}')}`));
    for (const expected of ['POST /v1/payment_methods', 'POST /v1/payment_intents', 'POST /v1/payment_intents/{id}/capture', 'POST /v1/payment_intents/{id}/cancel', 'POST /v1/refunds', 'POST /v1/customers']) {
      assert.ok(kinds.has(expected), `RouteGate called ${expected} (called: ${[...kinds].join(', ')})`);
    }
    const expandedCharges = answered.flatMap((x) => {
      const latest = (x.body as Record<string, unknown>).latest_charge;
      return latest && typeof latest === 'object' ? [latest] : [];
    });
    assert.ok(expandedCharges.length > 0, 'a charge was read expanded');
    const problems = answered.flatMap((x) => answerProblems(x.body).map((p) => `${x.method} ${x.path}: ${p}`));
    assert.deepEqual(problems, []);

    const sent = proxy.log.filter((x) => x.method === 'POST').flatMap((x) => {
      const schema = operationSchema(x.path);
      assert.ok(schema, `the description names POST ${x.path}`);
      return unknownParams(schema, x.params, '').map((p) => `POST ${x.path}: ${p}`);
    });
    assert.deepEqual(sent.filter((p) => !STRIPE_DESCRIPTION_EXCEPTIONS.some((e) => e.problem.test(p))), []);
  });

  test('the payment method and refund Stripe keeps, read back, conform too', async () => {
    const pm = proxy.log.find((x) => x.method === 'POST' && x.path === '/v1/payment_methods' && x.status === 200);
    assert.ok(pm, 'a payment method was created');
    assert.deepEqual(answerProblems(pm.body), []);
    assert.equal(typeof (pm.body as any).billing_details.tax_id === 'string' || (pm.body as any).billing_details.tax_id === null, true);
    const re = proxy.log.find((x) => x.path === '/v1/refunds' && x.status === 200);
    assert.ok(re);
    assert.equal(typeof (re.body as any).destination_details, 'object', 'Refund.destination_details is always sent');
  });
});

/** Every gateway a Stripe-native integration's charge may go to: Stripe itself (its own objects, RouteGate's refund) and the four others. */
const GATEWAYS = ['stripe', 'pagarme', 'asaas', 'mercadopago', 'pagbank'] as const;
const TYPES = ['card', 'pix', 'boleto'] as const;
const NEEDS_DISTRICT = new Set<string>(['mercadopago', 'pagbank']);

describe('(b) Stripe compatibility mode: the objects RouteGate builds conform', () => {
  for (const gateway of GATEWAYS) {
    for (const type of TYPES) {
      test(`a ${type} PaymentIntent processed by ${gateway}: created, retrieved expanded, listed, refunded`, async () => {
        const key = await e2e.account({ primaryGateway: gateway, compatibilityMode: 'stripe' });
        // Stripe's address has no district (bairro): a boleto on a gateway that registers it takes the payer from a
        // customer RouteGate keeps (created with the district), named by its id, as a Stripe client names a cus_.
        const stored = type === 'boleto' && NEEDS_DISTRICT.has(gateway)
          ? (await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER } })).body.data as Record<string, string> : undefined;
        const params = intentParams(type, stored ? { customer: stored.id } : {});
        if (stored) delete (params.payment_method_data.billing_details as Partial<typeof BILLING>).address;
        const created = await native(key, 'POST', '/v1/payment_intents', params);
        if (type === 'boleto' && gateway === 'pagbank') {
          // PagBank keeps no customers and registers a boleto with the district, which Stripe's address lacks: a
          // Stripe-native boleto cannot go there, and the client is told why in Stripe's error shape.
          assert.equal(created.status, 400, created.text);
          assert.match(created.body.error?.message, /district/);
          return;
        }
        assert.equal(created.status, 200, created.text);
        assert.equal(created.gateway, gateway, 'processed by the gateway under test');
        assert.deepEqual(answerProblems(created.body), [], created.text);
        const read = await native(key, 'GET', `/v1/payment_intents/${created.body.id}`, { expand: ['latest_charge'] });
        assert.equal(read.status, 200, read.text);
        const gaps = ROUTEGATE_GAPS[gateway] ?? [];
        const readProblems = (body: unknown) => withoutGaps(answerProblems(body), gaps);
        assert.deepEqual(readProblems(read.body), [], read.text);
        if (type === 'pix') {
          const qr = created.body.next_action?.pix_display_qr_code;
          assert.equal(typeof qr?.data, 'string', created.text);
        }
        if (type === 'card') {
          assert.equal(typeof read.body.latest_charge, 'object', 'expanded');
          const refund = await native(key, 'POST', '/v1/refunds', { payment_intent: created.body.id, amount: 500 });
          assert.equal(refund.status, 200, refund.text);
          assert.deepEqual(answerProblems(refund.body), [], refund.text);
        }
        const list = await native(key, 'GET', '/v1/payment_intents', { limit: 3 });
        assert.equal(list.status, 200, list.text);
        assert.ok(list.body.data.some((pi: { id: string }) => pi.id === created.body.id), 'the list holds the new PaymentIntent');
        assert.deepEqual(readProblems(list.body), []);
      });
    }
  }

  test('a customer RouteGate stores (another gateway) and one Stripe holds both answer as Stripe customers', async () => {
    for (const gateway of ['pagarme', 'stripe'] as const) {
      const key = await e2e.account({ primaryGateway: gateway, compatibilityMode: 'stripe' });
      const created = await native(key, 'POST', '/v1/customers', {
        name: CUSTOMER.name, email: CUSTOMER.email, phone: CUSTOMER.phone, tax_id_data: [{ type: 'br_cpf', value: CUSTOMER.document }],
        address: BILLING.address,
      });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(answerProblems(created.body), [], `${gateway}: ${created.text}`);
      const read = await native(key, 'GET', `/v1/customers/${created.body.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(answerProblems(read.body), [], `${gateway}: ${read.text}`);
    }
  });
});
