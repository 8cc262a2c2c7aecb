import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { loadDescription } from '../helpers/api-descriptions';
import { pagbankCase } from '../compat/cases/pagbank';
import { assertConforms, checkRequests, compatAnswers, conformance, normalizedFlows, type RequestRule } from './native-wire';

// PagBank publishes no machine-readable description: its Orders API is checked against the shapes of the documented
// examples (field names and types; descriptions/pagbank/SOURCES.md), over real HTTP, normalized API and compatibility mode.

const pagbank = loadDescription('pagbank/pagbank-documented-shapes.json', {
  author: 'PagBank (the documented examples, pagbank.md)',
  origin: 'pagbank.md sections 2 and 3, written by hand into descriptions/pagbank/pagbank-documented-shapes.json',
  version: 'pagbank.md as in this repository\'s gateway notes',
});

const REQUESTS: RequestRule[] = [
  { method: 'POST', path: /^\/orders$/, schema: 'CreateOrderRequest' },
  { method: 'POST', path: /^\/charges\/[^/]+\/(capture|cancel)$/, schema: 'AmountRequest' },
  { method: 'GET', path: /^\/(orders|charges)(\/[^/]+)?$/, schema: null },
  { method: 'GET', path: /^\/qrcode\/[^/]+\/(png|base64)$/, schema: null },
];

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

test('the documented shapes are not vacuous: an amount in reais and an undocumented field are refused', () => {
  assert.ok(pagbank.problems('AmountRequest', { amount: { value: 19.99 } }).some((p) => p.startsWith('/amount/value must be integer')));
  assert.ok(pagbank.problems('CreateOrderRequest', { reference_id: 'x', buyer: {} }).some((p) => p.includes('"additionalProperty":"buyer"')));
});

test('PagBank: every request RouteGate sends (normalized API and PagBank compatibility mode) has the documented shape', async () => {
  await e2e.control.clearRequests();
  await normalizedFlows(e2e, 'pagbank');
  await compatAnswers(e2e, pagbankCase);
  const sent = await e2e.control.requests('pagbank');
  assert.ok(sent.some((r) => r.method === 'POST' && r.path === '/orders'), 'orders were created');
  assertConforms(checkRequests(pagbank, sent, REQUESTS, []), 'RouteGate\'s requests to PagBank');
});

test('PagBank: every emulator answer RouteGate received has the documented Order / Charge shape', async () => {
  const problems: string[] = [];
  for (const answer of await normalizedFlows(e2e, 'pagbank')) {
    const schema = answer.what.startsWith('create') ? 'Order' : 'Charge';
    for (const p of conformance(pagbank, schema, answer.body, [])) problems.push(`${answer.what} (${schema}): ${p}`);
  }
  assertConforms(problems, 'the PagBank emulator\'s answers');
});

test('PagBank compatibility mode: the order answered for a charge processed by each gateway has the documented shape, create and read', async () => {
  const problems: string[] = [];
  const answers = await compatAnswers(e2e, pagbankCase);
  assert.equal(new Set(answers.map((a) => a.target)).size, 5, 'charged on all five gateways');
  for (const a of answers) {
    for (const [what, body] of [['create', a.body], ['read', a.read]] as const) {
      for (const p of conformance(pagbank, 'Order', body, [])) problems.push(`${a.method} on ${a.target}, ${what}: ${p}`);
    }
  }
  assertConforms(problems, 'PagBank compatibility answers');
});
