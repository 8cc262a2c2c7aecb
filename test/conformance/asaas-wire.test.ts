import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { loadDescription } from '../helpers/api-descriptions';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { asaasCase } from '../compat/cases/asaas';
import { assertConforms, checkRequests, compatAnswers, conformance, normalizedFlows, optionalInFact, type KnownException, type RequestRule } from './native-wire';

// Asaas API v3 judged by its own description: the models of the SDK generated from Asaas's OpenAPI
// (asaasdev/asaas-api-sdk-java, documentation/models), kept as descriptions/asaas/asaas-sdk-models.json (SOURCES.md
// there). Both directions over real HTTP, normalized API and compatibility mode.

const asaas = loadDescription('asaas/asaas-sdk-models.json', {
  author: 'Asaas (asaasdev/asaas-api-sdk-java, generated from Asaas\'s OpenAPI)',
  origin: 'github:asaasdev/asaas-api-sdk-java documentation/models/*.md',
  version: 'SDK 1.0.3, commit 0641522019d22bd63eb35dc25d77cdabcc9cc8e7',
});

/** POST /v3/payments: with card data it is PaymentSaveWithCreditCardRequestDto, otherwise PaymentSaveRequestDto. */
const REQUESTS: RequestRule[] = [
  { method: 'POST', path: /^\/v3\/customers$/, schema: 'CustomerSaveRequestDto' },
  { method: 'POST', path: /^\/v3\/payments\/[^/]+\/refund$/, schema: 'PaymentRefundRequestDto' },
  { method: 'POST', path: /^\/v3\/payments\/[^/]+\/captureAuthorizedPayment$/, schema: null },
  { method: 'DELETE', path: /^\/v3\/payments\/[^/]+$/, schema: null },
  { method: 'GET', path: /^\/v3\/(payments|customers)(\/[^/]+(\/(pixQrCode|identificationField|status))?)?$/, schema: null },
];
const paymentCreate = (body: unknown): RequestRule => ({
  method: 'POST', path: /^\/v3\/payments$/,
  schema: (body as { billingType?: string }).billingType === 'CREDIT_CARD' ? 'PaymentSaveWithCreditCardRequestDto' : 'PaymentSaveRequestDto',
});

/** Where the description is stricter than the live API, with the evidence (docs/sdk-notes.md lists them). */
const EXCEPTIONS: KnownException[] = [
  ...optionalInFact('PaymentSaveWithCreditCardRequestDto', /^\(root\)$/, ['remoteIp'],
    'asaas.md section 2: remoteIp is sent with raw card data; a charge by creditCardToken alone is accepted without it (RouteGate sends it whenever it knows the client IP)'),
  // The status enum (PaymentGetResponsePaymentStatus) lacks AUTHORIZED, which the live API answers for authorizeOnly.
  ...['must match a schema in anyOf', 'must be null', 'must be equal to one of the allowed values'].map((message) => ({
    schema: 'PaymentGetResponseDto', path: /^\/status$/, message, when: (v: unknown) => (v as { status?: string }).status === 'AUTHORIZED',
    evidence: 'asaas.md (pre-auth, status table): AUTHORIZED is absent from the OpenAPI status enum but documented in the FAQ and by the PAYMENT_AUTHORIZED event',
  })),
];

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

test('the derived description is not vacuous: a card holder without phone, and a value in cents as a string, are refused', () => {
  assert.ok(asaas.problems('CreditCardHolderInfoRequestDto', { name: 'M', email: 'm@x', cpfCnpj: '1', postalCode: '1', addressNumber: '1', mobilePhone: '11987654321' })
    .some((p) => p.includes('"missingProperty":"phone"')));
  assert.ok(asaas.problems('PaymentSaveRequestDto', { customer: 'cus_1', billingType: 'PIX', value: '1999', dueDate: '2030-01-01' }).some((p) => p.startsWith('/value must be number')));
});

test('Asaas: every request RouteGate sends (normalized API and Asaas compatibility mode) conforms to the description', async () => {
  await e2e.control.clearRequests();
  await normalizedFlows(e2e, 'asaas');
  await compatAnswers(e2e, asaasCase);
  const sent = await e2e.control.requests('asaas');
  const cards = sent.filter((r) => r.method === 'POST' && r.path === '/v3/payments' && (r.body as { billingType?: string }).billingType === 'CREDIT_CARD');
  assert.ok(cards.length > 0, 'card charges were sent');
  assert.ok(cards.every((r) => typeof (r.body as { creditCardHolderInfo?: { phone?: unknown } }).creditCardHolderInfo?.phone === 'string' || (r.body as { creditCardToken?: string }).creditCardToken),
    'every raw-card charge carries creditCardHolderInfo.phone');
  const problems = sent.flatMap((r) => checkRequests(asaas, [r], r.method === 'POST' && r.path.split('?')[0] === '/v3/payments' ? [paymentCreate(r.body)] : REQUESTS, EXCEPTIONS));
  assertConforms(problems, 'RouteGate\'s requests to Asaas');
});

test('Asaas emulator: a card charge without creditCardHolderInfo.phone is refused, as the description requires it', async () => {
  const key = await e2e.account({ primaryGateway: 'asaas', gatewayFallbacks: [], compatibilityMode: 'asaas', compatPassthrough: true });
  const customer = await e2e.call('POST', '/v3/customers', { rawBody: asaasCase.encode(asaasCase.customer!.body), headers: asaasCase.headers(key) });
  const card = asaasCase.payloads.card as { creditCardHolderInfo: Record<string, unknown> };
  const { phone: _phone, ...holder } = card.creditCardHolderInfo;
  const before = (await e2e.control.ledger('asaas')).length;
  const res = await e2e.call('POST', '/v3/payments', {
    rawBody: JSON.stringify({ ...card, customer: asaasCase.idOf(customer.body), creditCardHolderInfo: holder }), headers: asaasCase.headers(key),
  });
  // RouteGate fills phone from mobilePhone (the payer's phone), so it reaches Asaas conforming; Asaas itself refuses without.
  assert.equal(res.status, 200, res.text.slice(0, 300));
  const sent = (await e2e.control.requests('asaas')).filter((r) => r.method === 'POST' && r.path === '/v3/payments').at(-1)!;
  assert.equal((sent.body as { creditCardHolderInfo: { phone: string } }).creditCardHolderInfo.phone, '11987654321');
  assert.equal((await e2e.control.ledger('asaas')).length, before + 1);
  const direct = await fetch(`${e2e.sandbox.emulators.gatewayUrl('asaas')}/v3/payments`, {
    method: 'POST', headers: { 'content-type': 'application/json', access_token: SANDBOX_CREDENTIALS.asaas.apiKey },
    body: JSON.stringify({ ...card, customer: asaasCase.idOf(customer.body), creditCardHolderInfo: holder }),
  });
  assert.equal(direct.status, 400);
  const errors = ((await direct.json()) as { errors: Array<{ code: string; description: string }> }).errors;
  assert.ok(errors.some((e) => e.code === 'invalid_creditCardHolderInfo' && /telefone/.test(e.description)), JSON.stringify(errors));
});

test('Asaas: every emulator answer RouteGate received conforms to PaymentGetResponseDto; pixQrCode answers pix and boleto alike', async () => {
  const problems: string[] = [];
  for (const answer of await normalizedFlows(e2e, 'asaas')) {
    for (const p of conformance(asaas, 'PaymentGetResponseDto', answer.body, EXCEPTIONS)) problems.push(`${answer.what}: ${p}`);
    const payment = answer.body as { id: string; billingType: string; status: string };
    if (answer.what === 'create pix' || answer.what === 'create boleto') {
      const qr = await fetch(`${e2e.sandbox.emulators.gatewayUrl('asaas')}/v3/payments/${payment.id}/pixQrCode`, { headers: { access_token: SANDBOX_CREDENTIALS.asaas.apiKey } });
      assert.equal(qr.status, 200, `${answer.what}: GET pixQrCode`);
      for (const p of conformance(asaas, 'PaymentPixQrCodeResponseDto', await qr.json(), EXCEPTIONS)) problems.push(`${answer.what} pixQrCode: ${p}`);
    }
  }
  assertConforms(problems, 'the Asaas emulator\'s answers');
});

test('Asaas compatibility mode: the payment answered for a charge processed by each gateway conforms to PaymentGetResponseDto, create and read', async () => {
  const problems: string[] = [];
  const answers = await compatAnswers(e2e, asaasCase);
  assert.equal(new Set(answers.map((a) => a.target)).size, 5, 'charged on all five gateways');
  for (const a of answers) {
    for (const [what, body] of [['create', a.body], ['read', a.read]] as const) {
      for (const p of conformance(asaas, 'PaymentGetResponseDto', body, EXCEPTIONS)) problems.push(`${a.method} on ${a.target}, ${what}: ${p}`);
    }
  }
  assertConforms(problems, 'Asaas compatibility answers');
});
