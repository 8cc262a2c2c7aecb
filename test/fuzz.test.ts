import { storedText } from './helpers/test-db';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import fc from 'fast-check';
import { Client } from 'undici';
import { startService, call, callSocket, expectError, type Service } from './helper';
import { PUBLIC_CODES } from '../src/errors';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { listRoutes, type Route } from './helpers/routes';
import { COMPAT_SURFACES } from '../src/compat/surfaces';
import type { GatewayId } from '../src/gateways/registry-ids';
import type { CompatCase } from './compat/pairs-types';
import { stripeCase } from './compat/cases/stripe';
import { pagarmeCase } from './compat/cases/pagarme';
import { asaasCase } from './compat/cases/asaas';
import { mercadopagoCase } from './compat/cases/mercadopago';
import { pagbankCase } from './compat/cases/pagbank';

// Arbitrary requests over every route and method of the app, over real HTTP: RouteGate itself never answers
// 500, every error is the SPEC.md envelope, and neither the log nor the database holds the API key or a card
// number the fuzzer sent. Bounded: FUZZ_RUNS requests (default 1000) plus 12 over a raw socket, a few seconds;
// FUZZ_SEED replays a run (fast-check prints the seed of a failing one). A second property sends each gateway's own
// shapes: its events to the webhook receivers and its payloads to every native route of compatibility mode, with
// values swapped for odd ones (issue 40: nothing a client or a sender puts in a body reaches a 500).

// ROUTEGATE_FUZZ=long: the seeded 20,000-request run of each property (issue 40); the suite's default is smaller.
const LONG = process.env.ROUTEGATE_FUZZ === 'long';
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 20_000 : 1000));
const GATEWAY_RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 20_000 : 600));
const SEED = process.env.FUZZ_SEED === undefined ? (LONG ? 40 : undefined) : Number(process.env.FUZZ_SEED);
// Luhn-valid numbers no other test or emulator uses, so finding one means this test sent it.
const CARDS = ['4916338506082832', '5425233430109903', '376680816376961', '6011000990139424'];

let svc: Service;
let key: string;
let routes: Route[];
let chargeId = 'none';
let client: Client;
// Per gateway: an account in its compatibility mode (passthrough off), and the webhook token of the first account.
const compatKeys = {} as Record<GatewayId, string>;
let webhookToken = '';

async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  const port = await unusedPort();
  const env: Record<string, string> = { ROUTEGATE_RATE_LIMIT: '10000000', ROUTEGATE_LOG_LEVEL: 'trace', ROUTEGATE_GATEWAY_TIMEOUT_MS: '2000' };
  for (const id of GATEWAY_IDS) env[`ROUTEGATE_${id.toUpperCase()}_URL`] = `http://127.0.0.1:${port}`;
  svc = await startService(env);
  key = (await svc.createAccount('Loja Fuzz', 'fuzz@example.com')).apiKey;
  for (const gateway of GATEWAY_IDS) {
    const res = await call(svc.url, 'POST', '/api/v1/credentials', { key, body: { gateway, credentials: SANDBOX_CREDENTIALS[gateway] } });
    assert.equal(res.status, 201, res.text);
  }
  await call(svc.url, 'PATCH', '/api/v1/clients/settings', { key, body: { primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'] } });
  // A charge row to aim follow-ups at: the gateway is unreachable, so it fails, but it exists.
  const charge = await call(svc.url, 'POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 1000 } });
  assert.equal(charge.status, 502, charge.text);
  chargeId = String(charge.headers['x-rg-charge-id']);
  routes = listRoutes(svc.app);
  client = new Client(svc.url);
  webhookToken = (await svc.app.store.accounts.list()).find((a) => a.email === 'fuzz@example.com')!.webhookToken;
  for (const gateway of GATEWAY_IDS) {
    const compat = await svc.createAccount(`Loja Fuzz ${gateway}`, `fuzz-${gateway}@example.com`);
    await svc.app.vault.save(compat.id, gateway, SANDBOX_CREDENTIALS[gateway]);
    await svc.app.store.accounts.saveSettings(compat.id, { ...(await svc.app.store.accounts.settings(compat.id)), primaryGateway: gateway, compatibilityMode: gateway });
    compatKeys[gateway] = compat.apiKey;
  }
});
after(async () => {
  await client?.close();
  await svc?.close();
});

// ---- arbitraries -------------------------------------------------------------------------------------------

const NASTY = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '%2e%2e', '..', '.', '%2e%2e%2f%2e%2e',
  '%2e%2e/%2e%2e/package.json', '..%2f..%2fpackage.json', '%', '%zz', '%E0%A4%A', '%00', '%2F', '%C0%AE', '%ff', '~', '*', ':id', ''];
const GATEWAYS = [...GATEWAY_IDS, 'gateway_1', 'gateway_5', 'pagseguro', 'STRIPE', ' stripe '];
const lazy = <T>(get: () => T) => fc.constant(null).map(get);
const weighted = <T>(...pairs: Array<[number, fc.Arbitrary<T>]>) => fc.oneof(...pairs.map(([weight, arbitrary]) => ({ weight, arbitrary })));

const segment = (): fc.Arbitrary<string> => weighted(
  [3, fc.constantFrom(...NASTY, ...GATEWAYS)],
  [3, lazy(() => chargeId)],
  [2, fc.string({ maxLength: 30 }).map(encodeURIComponent)],
  [2, fc.stringMatching(/^[!-~]{1,20}$/).filter((s) => !s.includes('?') && !s.includes('#'))],
  [1, fc.integer({ min: 90, max: 3000 }).map((n) => 'a'.repeat(n))],
);

const keyOrCard = fc.oneof(lazy(() => key), fc.constantFrom(...CARDS));
const queryName = fc.oneof(
  fc.constantFrom('token', 'api_key', 'api%5Fkey', 'API_KEY', 'Api-Key', 'x-api-key', 'apiKey', 'key', '%61pi_key', 'access_token',
    'limit', 'cursor', 'status', 'gateway', 'refresh', '__proto__', 'constructor', '__proto__[x]', 'a[b]', 'card', 'number'),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const queryValue = fc.oneof(keyOrCard, fc.constantFrom('true', '20', '0', '101', 'approved', ...NASTY, ...GATEWAYS), fc.string({ maxLength: 40 }).map(encodeURIComponent));
const queryString = weighted(
  [2, fc.constant('')],
  [1, fc.array(fc.tuple(queryName, queryValue), { minLength: 1, maxLength: 4 }).map((pairs) => '?' + pairs.map(([n, v]) => `${n}=${v}`).join('&'))],
);

const headerValue = fc.oneof(fc.constantFrom(...NASTY, ...GATEWAYS, ''), fc.stringMatching(/^[\x20-\x7e]{0,60}$/));
const contentType = weighted(
  [6, fc.constant('application/json')],
  [2, fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=utf-16', 'application/json;;', 'application/jsonx')],
  [2, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '*/*', 'constructor', 'application/__proto__', '')],
);
const headers = fc.record({
  'x-rg-gateway': headerValue,
  'x-payload-format': fc.oneof(headerValue, fc.constantFrom('native', 'normalized', 'raw', 'full', 'stripe')),
  'idempotency-key': fc.oneof(headerValue, fc.uuid(), fc.integer({ min: 256, max: 400 }).map((n) => 'k'.repeat(n))),
  'x-request-id': fc.oneof(headerValue, lazy(() => key)),
  accept: fc.constantFrom('application/json', 'text/html', '*/*', 'constructor'),
}, { requiredKeys: [] });

// Bodies: mostly ones that pass the route's schema, so handlers, the orchestrator and the store are reached.
const gatewayField = weighted([4, fc.constantFrom(...GATEWAY_IDS, 'gateway_2', 'pagseguro')], [1, fc.constantFrom('__proto__', 'constructor', 'toString', ' Stripe ')]);
const validCard = fc.record({
  number: fc.constantFrom(...CARDS), holderName: fc.constant('MARIA SOUZA'), expMonth: fc.integer({ min: 1, max: 12 }), expYear: fc.constant(2030),
  cvv: fc.constantFrom('123', '9731'), installments: fc.integer({ min: 1, max: 12 }),
}, { requiredKeys: ['number', 'holderName', 'expMonth', 'expYear', 'cvv'] });
const validCustomer = fc.record({ name: fc.constant('Maria Souza'), email: fc.constant('maria@example.com'), document: fc.constantFrom('12345678909', '12345678000195') });
const validCharge = fc.record({
  gateway: fc.constantFrom(...GATEWAY_IDS, 'gateway_4', 'pagseguro'), paymentMethod: fc.constantFrom('credit_card', 'debit_card', 'pix', 'boleto'),
  amount: fc.integer({ min: 100, max: 100_000 }), capture: fc.boolean(), creditCard: validCard, customer: validCustomer,
  customerId: fc.constantFrom('cus_1', '__proto__'), currency: fc.constantFrom('BRL', 'USD'),
}, { requiredKeys: ['paymentMethod', 'amount', 'creditCard', 'customer'] });
const mangledCharge = fc.record({
  gateway: gatewayField, paymentMethod: fc.constantFrom('credit_card', 'debit_card', 'pix', 'boleto', 'constructor'),
  amount: fc.oneof(fc.integer({ min: 100, max: 100_000 }), fc.constantFrom(0, -1, 1.5, 1e20, '1000')), currency: fc.constantFrom('BRL', 'USD', 'brl', '__proto__'),
  capture: fc.boolean(), creditCard: fc.oneof(validCard, fc.record({ number: fc.constantFrom(...CARDS), cvv: fc.constant('abc') }), fc.record({ token: fc.constantFrom('tok_visa', '__proto__') })),
  customer: validCustomer, customerId: segment(), description: fc.string({ maxLength: 20 }),
  split: fc.array(fc.record({ type: fc.constantFrom('flat', 'percentage'), amount: fc.nat(), recipient_id: fc.constantFrom('re_1', '__proto__') }), { maxLength: 2 }),
}, { requiredKeys: [] });
const settingsBody = fc.record({
  primaryGateway: fc.oneof(gatewayField, fc.constant(null)), gatewayFallbacks: fc.uniqueArray(gatewayField, { maxLength: 4 }),
  compatibilityMode: fc.oneof(gatewayField, fc.constant(null)), responseFormat: fc.constantFrom('full', 'normalized', 'raw', 'native', '__proto__'),
  webhookForwardUrl: fc.constantFrom('https://example.com/hook', 'javascript:x', null),
}, { requiredKeys: [] });
const credentialsBody = fc.record({
  gateway: gatewayField,
  credentials: fc.oneof(fc.constantFrom(...Object.values(SANDBOX_CREDENTIALS)),
    fc.dictionary(fc.constantFrom('secretKey', 'apiKey', 'token', 'accessToken', 'webhookSecret', '__proto__', 'constructor'), fc.string({ maxLength: 20 }))),
}, { requiredKeys: [] });
const amountBody = fc.record({ amount: fc.oneof(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom(-1, 1.5, '100', null)) }, { requiredKeys: [] });

function bodyFor(route: Route): fc.Arbitrary<string | undefined> {
  const shaped: Array<[number, fc.Arbitrary<unknown>]> = route.url.endsWith('/charges') ? [[4, validCharge], [3, mangledCharge]]
    : route.url.endsWith('/settings') ? [[5, settingsBody]]
    : route.url.endsWith('/credentials') ? [[5, credentialsBody]]
    : route.url.endsWith('/customers') ? [[4, fc.record({ gateway: gatewayField }, { requiredKeys: [] }).map((g) => ({ ...g, name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' }))]]
    : /capture|refunds/.test(route.url) ? [[4, amountBody]]
    : [];
  return weighted<string | undefined>(
    ...shaped.map(([w, a]): [number, fc.Arbitrary<string | undefined>] => [w, a.map((v) => JSON.stringify(v))]),
    [1, fc.constant(undefined)],
    [1, fc.jsonValue().map((v) => JSON.stringify(v))],
    [1, fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{', '[]', 'null', '""', '{"amount":1e999}', `{"a":"${'x'.repeat(2000)}"}`)],
    [1, fc.string({ maxLength: 60 })],
  );
}

interface FuzzRequest { route: string; method: string; path: string; headers: Record<string, string>; body?: string }

// The API's routes more often than /docs and /health, POST /charges (the money path) most.
const routeWeight = (r: Route) => (r.method === 'POST' && r.url.endsWith('/charges') ? 12 : r.url.startsWith('/api/') ? 3 : 1);
const request: fc.Arbitrary<FuzzRequest> = lazy(() => routes).chain((all) => weighted(...all.map((r): [number, fc.Arbitrary<Route>] => [routeWeight(r), fc.constant(r)]))).chain((route) => fc.record({
  method: weighted([5, fc.constant(route.method)], [1, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD')]),
  params: fc.array(segment(), { minLength: 3, maxLength: 3 }),
  suffix: weighted([6, fc.constant('')], [1, fc.constantFrom('/', '//', '/%2e%2e', '/../x', '/__proto__')], [1, segment().map((s) => `/${s}`)]),
  query: queryString,
  headers,
  contentType,
  auth: fc.constantFrom('valid', 'valid', 'valid', 'none', 'odd'),
  oddKey: fc.oneof(headerValue, lazy(() => `${key} `), lazy(() => key.toUpperCase()), lazy(() => key.slice(0, -1))),
  body: bodyFor(route),
}).map((r) => {
  let i = 0;
  // Raw on the wire except what HTTP/1.1 cannot carry in a request target (spaces, control characters).
  const path = (route.url.replace(/:[A-Za-z0-9_]+|\*/g, () => r.params[i++]) + r.suffix + r.query).replace(/[^\x21-\x7e]/g, encodeURIComponent);
  const h: Record<string, string> = { ...r.headers };
  if (r.auth === 'valid') h['x-api-key'] = key;
  if (r.auth === 'odd') h['x-api-key'] = r.oddKey;
  const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
  if (body !== undefined) h['content-type'] = r.contentType;
  return { route: `${route.method} ${route.url}`, method: r.method, path: path.startsWith('/') ? path : `/${path}`, headers: h, body };
}));

// ---- the property ------------------------------------------------------------------------------------------

const GATEWAY_FAILURES = new Set(['GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT', 'GATEWAY_ERROR']);

interface Answer { status: number; contentType: string; text: string; errorCode?: string; passthrough?: boolean }

async function send(r: FuzzRequest): Promise<Answer> {
  const res = await client.request({ method: r.method as 'GET', path: r.path, headers: r.headers, body: r.body });
  const code = res.headers['x-rg-error-code'];
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: await res.body.text(), errorCode: code === undefined ? undefined : String(code), passthrough: res.headers['x-rg-passthrough'] === 'true' };
}

// A receiver stores an event and answers 502 while the merchant's backend has not taken it, so the gateway sends it
// again (docs/webhooks.md): the backend's failure, not the input's (the fuzzed settings may name an unreachable one).
const BACKEND_FAILURES = new Set(['WEBHOOK_NOT_DELIVERED']);

function assertAnswer(r: FuzzRequest, res: Answer): void {
  const what = `${r.method} ${r.path.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
  // A call passed through to the compat gateway answers what the gateway (here its emulator) answered.
  if (res.passthrough) return;
  assert.notEqual(res.status, 500, what);
  if (res.status < 400 || r.method === 'HEAD') return;
  // The dashboard answers people with HTML pages (its errors are messages on a page), never a trace; what the
  // framework refuses before routing (a malformed URL) is the JSON envelope there too.
  if (/^\/dashboard(\/|\?|$)/.test(r.path) && !res.contentType.startsWith('application/json')) {
    assert.match(res.contentType, /^text\/html/, what);
    assert.doesNotMatch(res.text, /at .+\.(js|ts):\d+/, what);
    return;
  }
  assert.match(res.contentType, /^application\/json/, what);
  assert.doesNotMatch(res.text, /at .+\.(js|ts):\d+/, what);
  // Compatibility mode (the fuzzed settings may turn it on): errors take the compat gateway's own shape, and the
  // RouteGate code rides in X-RG-Error-Code.
  if (res.errorCode !== undefined && JSON.parse(res.text)?.success === undefined) {
    assert.ok(Object.hasOwn(PUBLIC_CODES, res.errorCode), what);
    if (res.status >= 500) assert.ok(GATEWAY_FAILURES.has(res.errorCode), `only gateway failures may be 5xx: ${what}`);
    return;
  }
  const parsed = JSON.parse(res.text) as { success: unknown; error: { code: unknown; message: unknown } };
  assert.equal(parsed.success, false, what);
  assert.deepEqual(Object.keys(parsed).sort(), ['error', 'success'], what);
  assert.ok(Object.keys(parsed.error).every((k) => ['code', 'message', 'gateway', 'details'].includes(k)), what);
  assert.ok(typeof parsed.error.code === 'string' && Object.hasOwn(PUBLIC_CODES, parsed.error.code), what);
  assert.ok(typeof parsed.error.message === 'string' && parsed.error.message.length > 0, what);
  assert.doesNotMatch(res.text, /at .+\.(js|ts):\d+/, what);
  const receiver = r.route.startsWith('POST /api/v1/webhooks/');
  const backendFailure = receiver && BACKEND_FAILURES.has(parsed.error.code as string);
  // A body the webhook mapping cannot read is the sender's problem, never a 502 that has the gateway send it again.
  if (receiver) assert.doesNotMatch(String(parsed.error.message), /could not translate/, what);
  if (res.status >= 500) assert.ok(GATEWAY_FAILURES.has(parsed.error.code as string) || backendFailure, `only gateway failures may be 5xx: ${what}`);
}

test('fuzzed requests on every route never get a 500, always get the error envelope, and leak no key or card', async () => {
  assert.ok(routes.length >= 15, `routes read from the app: ${routes.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  const tried = new Set<string>();
  await fc.assert(fc.asyncProperty(request, async (r) => {
    tried.add(r.route);
    assertAnswer(r, await send(r));
  }), { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true });
  // With many routes a seeded run can miss one: each route the run did not reach gets one plain request, so every
  // route is checked whatever the seed.
  for (const route of routes.filter((r) => !tried.has(`${r.method} ${r.url}`))) {
    const r: FuzzRequest = { route: `${route.method} ${route.url}`, method: route.method, path: route.url.replace(/:[A-Za-z0-9_]+|\*/g, 'x'), headers: { 'x-api-key': key }, body: undefined };
    tried.add(r.route);
    assertAnswer(r, await send(r));
  }
  assert.deepEqual(routes.map((r) => `${r.method} ${r.url}`).filter((r) => !tried.has(r)), [], 'every route was tried');

  const logs = svc.logs.join('');
  assert.ok(logs.includes('request completed'), 'requests were logged');
  const files = await storedText(svc.app.store);
  assert.ok(files.length > 0);
  for (const secret of [key, ...CARDS]) {
    assert.ok(!logs.includes(secret), `the log holds ${secret.slice(0, 6)}…`);
    assert.ok(!files.includes(secret), `the database holds ${secret.slice(0, 6)}…`);
  }
});

// ---- each gateway's own shapes: webhook events and native payloads ----------------------------------------

const CASES: Record<GatewayId, CompatCase> = { stripe: stripeCase, pagarme: pagarmeCase, asaas: asaasCase, mercadopago: mercadopagoCase, pagbank: pagbankCase };

// What a sender may put where a value belongs: wrong types, out of range, too long, prototype names, odd case.
const ODD_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 1e21, '', ' ', '9'.repeat(400), 'x'.repeat(3000), '__proto__',
  'constructor', 'toString', {}, [], ['a', 'b'], [1, [2, [3]]], { a: { b: { c: 1 } } }, { id: 1 }, 'null', 'ÁÉÍ çãõ', 'lower', 'UPPER', '%00', '1e999', '-0', 'NaN'];

/** Every path in a JSON value (containers included), as key lists. */
function pathsOf(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = at.length ? [at] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...at, i]))];
  if (value && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...at, k]))];
  return here;
}

/** A copy of `doc` with each chosen path's value replaced (the n-th path, modulo how many there are). */
function mutate(doc: unknown, swaps: Array<[number, unknown]>): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as unknown;
  const paths = pathsOf(copy);
  if (paths.length === 0) return copy;
  for (const [n, value] of swaps) {
    const path = paths[n % paths.length];
    let parent = copy as Record<string | number, unknown>;
    for (const k of path.slice(0, -1)) {
      const next = parent?.[k];
      if (!next || typeof next !== 'object') { parent = undefined as never; break; }
      parent = next as Record<string | number, unknown>;
    }
    if (parent && typeof parent === 'object') parent[path[path.length - 1]] = value;
  }
  return copy;
}

const oddValue = fc.oneof(fc.constantFrom(...ODD_VALUES), fc.string({ maxLength: 30 }), fc.integer(), fc.double());
const swaps = fc.array(fc.tuple(fc.nat(), oddValue), { minLength: 0, maxLength: 4 });
const someId = fc.oneof(lazy(() => chargeId), fc.constantFrom('ch_1', 'pi_1', 'or_1', 'pay_1', 'ORDE_1', '123456789', '__proto__'), fc.string({ maxLength: 20 }), fc.constantFrom(...ODD_VALUES));

/** Each gateway's notification in its real shape, naming `id` where it names the charge. */
function eventOf(gateway: GatewayId, id: unknown): unknown {
  switch (gateway) {
    case 'stripe': return { id: 'evt_fuzz', object: 'event', type: 'payment_intent.succeeded', created: 1700000000, data: { object: { id, object: 'payment_intent', amount: 1000, amount_received: 1000, currency: 'brl', status: 'succeeded', metadata: { routegate_charge_id: id } } } };
    case 'pagarme': return { id: 'hook_fuzz', type: 'order.paid', created_at: '2030-01-01T00:00:00Z', data: { id, code: id, amount: 1000, status: 'paid', charges: [{ id, amount: 1000, paid_amount: 1000, status: 'paid', payment_method: 'pix', last_transaction: { status: 'paid' } }] } };
    case 'asaas': return { id: 'evt_fuzz', event: 'PAYMENT_RECEIVED', dateCreated: '2030-01-01 00:00:00', payment: { object: 'payment', id, externalReference: id, value: 10, netValue: 9.5, billingType: 'PIX', status: 'RECEIVED', paymentDate: '2030-01-01' } };
    case 'mercadopago': return { id: 12345, live_mode: false, type: 'payment', action: 'payment.updated', date_created: '2030-01-01T00:00:00Z', data: { id } };
    case 'pagbank': return { id, reference_id: id, created_at: '2030-01-01T00:00:00-03:00', charges: [{ id, reference_id: id, status: 'PAID', amount: { value: 1000, currency: 'BRL', summary: { total: 1000, paid: 1000, refunded: 0 } }, payment_method: { type: 'PIX' } }] };
  }
}

const SIGNATURE_HEADERS = ['stripe-signature', 'x-hub-signature', 'x-webhook-asymmetric-signature', 'asaas-access-token', 'x-signature', 'x-request-id', 'x-authenticity-token', 'authorization'];

const webhookRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  gateway: fc.constantFrom(...GATEWAY_IDS), withToken: fc.boolean(), id: someId, swaps, raw: weighted([8, fc.constant(undefined)], [1, fc.constantFrom('{', '[]', 'null', '"x"', '1e999', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}')]),
  signature: fc.option(fc.tuple(fc.constantFrom(...SIGNATURE_HEADERS), headerValue), { nil: undefined }), query: queryString,
}).map((w) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (w.signature) headers[w.signature[0]] = w.signature[1];
  const path = `/api/v1/webhooks/${w.gateway}${w.withToken ? `/${webhookToken}` : ''}${w.query}`.replace(/[^\x21-\x7e]/g, encodeURIComponent);
  return { route: `POST /api/v1/webhooks/${w.gateway}${w.withToken ? '/:token' : ''}`, method: 'POST', path, headers, body: w.raw ?? JSON.stringify(mutate(eventOf(w.gateway, w.id), w.swaps)) };
});

/** Every native route of each compatibility surface, at the root and under /compat/<id>, with that gateway's payloads. */
const nativeRoutes = GATEWAY_IDS.flatMap((gateway) => (COMPAT_SURFACES.get(gateway)?.routes ?? []).map((r) => ({ gateway, method: r.method, path: r.path })));
const nativeRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...nativeRoutes).chain((route) => fc.record({
  payload: fc.constantFrom(...Object.values(CASES[route.gateway].payloads), ...(CASES[route.gateway].customer ? [CASES[route.gateway].customer!.body] : []), { amount: 100 }, {}),
  swaps, ids: fc.array(someId.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), { minLength: 3, maxLength: 3 }), prefixed: fc.boolean(), query: queryString,
}).map((r) => {
  const c = CASES[route.gateway];
  let i = 0;
  const target = route.path.replace(/:[A-Za-z0-9_]+/g, () => encodeURIComponent(r.ids[i++] || 'x'));
  const path = `${r.prefixed ? `/compat/${route.gateway}` : ''}${target}${r.query}`.replace(/[^\x21-\x7e]/g, encodeURIComponent);
  const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : c.encode(mutate(r.payload, r.swaps));
  return { route: `${route.method} ${route.gateway} ${route.path}`, method: route.method, path, headers: c.headers(compatKeys[route.gateway]), body };
}));

test("each gateway's events at the webhook receivers and its payloads at every native route, values swapped for odd ones: no 5xx but a gateway's failure", async () => {
  const tried = new Set<string>();
  await fc.assert(fc.asyncProperty(weighted([1, webhookRequest], [1, nativeRequest]), async (r) => {
    tried.add(r.route);
    assertAnswer(r, await send(r));
  }), { numRuns: GATEWAY_RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true });
  // Every receiver and every native route at least once, whatever the seed.
  for (const gateway of GATEWAY_IDS) {
    for (const withToken of [false, true]) {
      const route = `POST /api/v1/webhooks/${gateway}${withToken ? '/:token' : ''}`;
      if (tried.has(route)) continue;
      const path = `/api/v1/webhooks/${gateway}${withToken ? `/${webhookToken}` : ''}`;
      assertAnswer({ route, method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(eventOf(gateway, { odd: true })) }, await send({ route, method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(eventOf(gateway, { odd: true })) }));
    }
  }
  for (const route of nativeRoutes) {
    const name = `${route.method} ${route.gateway} ${route.path}`;
    if (tried.has(name)) continue;
    const c = CASES[route.gateway];
    const r: FuzzRequest = { route: name, method: route.method, path: route.path.replace(/:[A-Za-z0-9_]+/g, 'x'), headers: c.headers(compatKeys[route.gateway]), body: route.method === 'GET' || route.method === 'DELETE' ? undefined : c.encode(Object.values(c.payloads)[0]) };
    assertAnswer(r, await send(r));
  }
  const logs = svc.logs.join('');
  assert.ok(!logs.includes(webhookToken), 'the webhook token is masked in every log line');
});

test('oversized request lines and headers over a raw socket get 431 in the envelope, and their bytes reach no log', async () => {
  const before = svc.logs.length;
  await fc.assert(fc.asyncProperty(
    fc.constantFrom('url', 'header', 'headers'), fc.integer({ min: 17_000, max: 120_000 }), fc.constantFrom('GET', 'POST', 'DELETE'), keyOrCard,
    async (where, size, method, secret) => {
      const filler = 'a'.repeat(size);
      const target = where === 'url' ? `/api/v1/charges?token=${secret}&x=${filler}` : '/api/v1/clients/me';
      const extra = where === 'header' ? `x-big: ${filler}\r\n` : where === 'headers' ? Array.from({ length: size / 20 }, (_, i) => `x-h${i}: ${secret}\r\n`).join('') : '';
      const res = await callSocket(svc.url, `${method} ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${secret}\r\n${extra}\r\n`);
      expectError(res, 'HEADERS_TOO_LARGE', 431);
    },
  ), { numRuns: 12, seed: SEED, endOnFailure: true, includeErrorInReport: true });
  const logs = svc.logs.slice(before).join('');
  for (const secret of [key, ...CARDS]) assert.ok(!logs.includes(secret), `the log holds ${secret.slice(0, 6)}…`);
});
