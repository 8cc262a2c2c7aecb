import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { loadDescription } from '../helpers/api-descriptions';
import { pagarmeCase } from '../compat/cases/pagarme';
import { assertConforms, checkRequests, compatAnswers, conformance, normalizedFlows, optionalInFact, type KnownException, type RequestRule } from './native-wire';

// Pagar.me core v5 judged by its own description: the models of @pagarme/pagarme-nodejs-sdk (generated from Pagar.me's
// API description), derived into descriptions/pagarme/pagarme-sdk-models.json (SOURCES.md there says how). Both
// directions over real HTTP: what RouteGate sends the emulator, what the emulator answers, and what Pagar.me's
// compatibility mode answers for a charge any gateway processed.

const pagarme = loadDescription('pagarme/pagarme-sdk-models.json', {
  author: 'Pagar.me (@pagarme/pagarme-nodejs-sdk, generated from its API description)',
  origin: 'node_modules/@pagarme/pagarme-nodejs-sdk/src/models, via descriptions/pagarme/derive.mjs',
  version: '7.0.2',
});

const REQUESTS: RequestRule[] = [
  { method: 'POST', path: /^\/core\/v5\/orders$/, schema: 'CreateOrderRequest' },
  { method: 'POST', path: /^\/core\/v5\/customers$/, schema: 'CreateCustomerRequest' },
  { method: 'POST', path: /^\/core\/v5\/charges\/[^/]+\/capture$/, schema: 'CreateCaptureChargeRequest' },
  { method: 'DELETE', path: /^\/core\/v5\/charges\/[^/]+$/, schema: 'CreateCancelChargeRequest' },
  { method: 'GET', path: /^\/core\/v5\/(orders|charges|customers)(\/[^/]+)?$/, schema: null },
];

/**
 * Where the SDK's models are stricter than the live API, each with its evidence. APIMATIC marks every field its source
 * did not flag optional as required; Pagar.me's reference and its own examples (pagarme.md section 2) leave them out.
 * Only missing fields are excepted: a field RouteGate sends must always have the described type.
 */
const EXCEPTIONS: KnownException[] = [
  ...optionalInFact('CreateOrderRequest', /^\(root\)$/, ['closed'], 'pagarme.md section 2: `closed` is optional, default true'),
  ...optionalInFact('CreateOrderRequest', /^\/items\/\d+$/, ['category'], 'pagarme.md section 2: item `category` (optional); the example item has none'),
  ...optionalInFact('CreateOrderRequest', /^\/customer$/, ['code', 'metadata', 'address', 'phones'],
    'pagarme.md section 2: the example customer has no code, metadata or address; phones are sent whenever the payer has a phone '
    + '(a PSP account refuses a charge without one: "At least one customer phone is required.", pagarme.md section 2)'),
  ...optionalInFact('CreateOrderRequest', /^\(root\)$/, ['customer'],
    'pagarme.md section 2: an order names its customer by customer (inline) or by customer_id (`customer_id` is listed beside it); RouteGate sends customer_id for a stored customer'),
  ...['CreateOrderRequest', 'CreateCustomerRequest'].flatMap((schema) => optionalInFact(schema, /^(\/customer)?\/address$|^\/payments\/\d+\/credit_card\/card\/billing_address$/,
    ['street', 'number', 'neighborhood', 'complement', 'line_2'],
    'pagarme.md section 2: an address is {line_1, line_2, zip_code, city, state, country} (street/number/neighborhood is the older shape); the example billing_address has no line_2')),
  ...optionalInFact('CreateCustomerRequest', /^\(root\)$/, ['code', 'metadata', 'phones', 'address'],
    'pagarme.md section 4: POST /customers takes name, email, document, type, and optionally code, address, phones, metadata'),
  ...optionalInFact('CreateOrderRequest', /^\/payments\/\d+\/boleto$/, ['retries', 'billing_address', 'document_number', 'statement_descriptor'],
    'pagarme.md section 2: the boleto entry example is {due_at, instructions}; the customer address stands for billing_address'),
  ...optionalInFact('CreateOrderRequest', /^\/payments\/\d+\/credit_card$/, ['operation_type', 'recurrence_cycle', 'statement_descriptor'],
    'pagarme.md section 2: operation_type defaults to auth_and_capture; statement_descriptor and recurrence_cycle are optional'),
  ...optionalInFact('CreateCaptureChargeRequest', /^\(root\)$/, ['code', 'operation_reference'],
    'pagarme.md section 3: the capture body is {amount, code, split}, each optional (an empty body captures the whole amount)'),
  ...optionalInFact('CreateCancelChargeRequest', /^\(root\)$/, ['operation_reference'],
    'pagarme.md section 3: DELETE /charges/{id} takes an optional {amount} (the whole charge without it)'),
];

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

test('the derived description is not vacuous: it refuses an amount in reais and a numeric order id', () => {
  assert.ok(pagarme.problems('CreateOrderRequest', { items: [{ amount: '19.99', description: 'x', quantity: 1 }], customer: {}, payments: [], code: 'x', closed: true })
    .some((p) => p.startsWith('/items/0/amount must be number')));
  assert.ok(pagarme.problems('GetOrderResponse', { id: 5 }).some((p) => p.startsWith('/id must be string')));
});

test('Pagar.me: every request RouteGate sends (normalized API and Pagar.me compatibility mode) conforms to the SDK\'s request models', async () => {
  await e2e.control.clearRequests();
  await normalizedFlows(e2e, 'pagarme');
  await compatAnswers(e2e, pagarmeCase);
  const sent = await e2e.control.requests('pagarme');
  assert.ok(sent.some((r) => r.method === 'POST' && r.path.startsWith('/core/v5/orders')), 'orders were created');
  assertConforms(checkRequests(pagarme, sent, REQUESTS, EXCEPTIONS), 'RouteGate\'s requests to Pagar.me');
});

test('Pagar.me: every emulator answer RouteGate received conforms to GetOrderResponse / GetChargeResponse', async () => {
  const problems: string[] = [];
  for (const answer of await normalizedFlows(e2e, 'pagarme')) {
    const schema = answer.what.startsWith('create') ? 'GetOrderResponse' : 'GetChargeResponse';
    for (const p of conformance(pagarme, schema, answer.body, EXCEPTIONS)) problems.push(`${answer.what} (${schema}): ${p}`);
  }
  assertConforms(problems, 'the Pagar.me emulator\'s answers');
});

test('Pagar.me compatibility mode: the order answered for a charge processed by each gateway conforms to GetOrderResponse, create and read', async () => {
  const problems: string[] = [];
  const answers = await compatAnswers(e2e, pagarmeCase);
  assert.ok(new Set(answers.map((a) => a.target)).size === 5, 'charged on all five gateways');
  for (const a of answers) {
    for (const [what, body] of [['create', a.body], ['read', a.read]] as const) {
      for (const p of conformance(pagarme, 'GetOrderResponse', body, EXCEPTIONS)) problems.push(`${a.method} on ${a.target}, ${what}: ${p}`);
    }
  }
  assertConforms(problems, 'Pagar.me compatibility answers');
});
