import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { loadDescription } from '../helpers/api-descriptions';
import { mercadopagoCase } from '../compat/cases/mercadopago';
import { pagarmeCase } from '../compat/cases/pagarme';
import { asaasCase } from '../compat/cases/asaas';
import type { RecordedRequest } from '../../src/sandbox/control';
import { assertConforms, checkRequests, compatAnswers, conformance, normalizedFlows, type KnownException, type RequestRule } from './native-wire';

// Mercado Pago payments judged by its own description: the official `mercadopago` package's types (derived into
// descriptions/mercadopago/mercadopago-sdk-types.json; SOURCES.md there names the payments OpenAPI they were read
// against). Both directions over real HTTP, normalized API and compatibility mode.

const mp = loadDescription('mercadopago/mercadopago-sdk-types.json', {
  author: 'Mercado Pago (the official mercadopago package\'s types)',
  origin: 'node_modules/mercadopago/dist/clients/**/*.d.ts, via descriptions/mercadopago/derive.mjs',
  version: 'mercadopago 3.6.1',
});

const REQUESTS: RequestRule[] = [
  { method: 'POST', path: /^\/v1\/card_tokens$/, schema: 'CardTokenCreateBody' },
  { method: 'POST', path: /^\/v1\/payments$/, schema: 'PaymentCreateRequest' },
  { method: 'POST', path: /^\/v1\/payments\/\d+\/refunds$/, schema: 'CreateRefundBody' },
  { method: 'POST', path: /^\/v1\/customers$/, schema: 'CustomerRequestBody' },
  { method: 'GET', path: /^\/v1\/(payments|customers)(\/(search|\d+|[^/]+)(\/refunds(\/\d+)?)?)?$/, schema: null },
];

/**
 * PUT /v1/payments/{id}: a capture is a partial payment body (the SDK's Partial<PaymentCreateRequest>); a cancel is
 * exactly the body the SDK's own Payment.cancel sends, {status: "cancelled"} (a field PaymentCreateRequest lacks).
 */
function check(requests: RecordedRequest[]): string[] {
  const cancels = requests.filter((r) => r.method === 'PUT' && (r.body as { status?: unknown }).status !== undefined);
  for (const r of cancels) assert.deepEqual(r.body, { status: 'cancelled' }, 'a cancel is the body the SDK\'s Payment.cancel sends');
  const rules = [...REQUESTS, { method: 'PUT', path: /^\/v1\/payments\/\d+$/, schema: 'PaymentCreateRequest' }];
  return checkRequests(mp, requests.filter((r) => !cancels.includes(r)), rules, EXCEPTIONS);
}

/** Where the SDK's types are narrower than the live API, with the evidence (docs/sdk-notes.md lists them). */
const EXCEPTIONS: KnownException[] = [
  {
    schema: 'CardTokenCreateBody', path: /^\(root\)$/, message: '"additionalProperty":"cardholder"',
    evidence: 'MP\'s card_tokens reference (devsite-docs reference/card_tokens/data_structures/post.yaml) uses cardholder {name, identification} '
      + 'and answers 400 cause 210 "The structure \'cardholder\' can not be null"; the SDK\'s CardTokenCreateBody omits it (mercadopago.md section 8)',
  },
];

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

test('the derived description is not vacuous: a string id and numeric card expiry are refused', () => {
  assert.ok(mp.problems('PaymentResponse', { id: 'chg_1' }).some((p) => p.startsWith('/id ')));
  assert.ok(mp.problems('CardTokenCreateBody', { expiration_month: 11, expiration_year: 2030 }).some((p) => p.startsWith('/expiration_month must be string')));
});

test('Mercado Pago: every request RouteGate sends (normalized API and Mercado Pago compatibility mode) conforms to the SDK\'s types', async () => {
  await e2e.control.clearRequests();
  await normalizedFlows(e2e, 'mercadopago');
  await compatAnswers(e2e, mercadopagoCase);
  const sent = await e2e.control.requests('mercadopago');
  const tokens = sent.filter((r) => r.path === '/v1/card_tokens');
  assert.ok(tokens.length > 0, 'card tokens were created');
  for (const t of tokens) {
    const body = t.body as { expiration_month: unknown; expiration_year: unknown };
    assert.match(String(body.expiration_month), /^(0[1-9]|1[0-2])$/);
    assert.equal(typeof body.expiration_month, 'string', 'the SDK types expiration_month as a string ("01".."12")');
    assert.equal(typeof body.expiration_year, 'string', 'the SDK types expiration_year as a string (four digits)');
  }
  assertConforms(check(sent), 'RouteGate\'s requests to Mercado Pago');
});

test('Mercado Pago: every emulator answer RouteGate received conforms to PaymentResponse, with a numeric id', async () => {
  const problems: string[] = [];
  for (const answer of await normalizedFlows(e2e, 'mercadopago')) {
    // A refund's raw answer is the refund (POST .../refunds answers it); everything else is the payment.
    const schema = answer.what.includes('refund') ? 'RefundResponse' : 'PaymentResponse';
    assert.equal(typeof (answer.body as { id?: unknown }).id, 'number', `${answer.what}: id is a number`);
    for (const p of conformance(mp, schema, answer.body, EXCEPTIONS)) problems.push(`${answer.what} (${schema}): ${p}`);
  }
  assertConforms(problems, 'the Mercado Pago emulator\'s answers');
});

test('Mercado Pago compatibility mode: the payment answered for a charge processed by each gateway conforms to PaymentResponse: numeric id, qr_code_base64 on every pix', async () => {
  const problems: string[] = [];
  const answers = await compatAnswers(e2e, mercadopagoCase);
  assert.equal(new Set(answers.map((a) => a.target)).size, 5, 'charged on all five gateways');
  for (const a of answers) {
    for (const [what, body] of [['create', a.body], ['read', a.read]] as const) {
      const payment = body as { id: unknown; point_of_interaction?: { transaction_data?: { qr_code_base64?: unknown } } };
      if (typeof payment.id !== 'number') problems.push(`${a.method} on ${a.target}, ${what}: id ${JSON.stringify(payment.id)} is not a number`);
      if (a.method === 'pix' && typeof payment.point_of_interaction?.transaction_data?.qr_code_base64 !== 'string') {
        problems.push(`${a.method} on ${a.target}, ${what}: no point_of_interaction.transaction_data.qr_code_base64`);
      }
      for (const p of conformance(mp, 'PaymentResponse', body, EXCEPTIONS)) problems.push(`${a.method} on ${a.target}, ${what}: ${p}`);
    }
  }
  assertConforms(problems, 'Mercado Pago compatibility answers');
});

test('Mercado Pago: requests reaching Mercado Pago from the other compatibility modes conform too', async () => {
  await e2e.control.clearRequests();
  await compatAnswers(e2e, pagarmeCase);
  await compatAnswers(e2e, asaasCase);
  const sent = await e2e.control.requests('mercadopago');
  assert.ok(sent.some((r) => r.method === 'POST' && r.path === '/v1/payments'), 'payments were created at Mercado Pago');
  assertConforms(check(sent), 'requests to Mercado Pago');
});
