import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from './helper';

// Validation answers name the field and the rule in one sentence each, in error.message; details.errors lists them
// outside production. Tried as a merchant would: real requests over HTTP.

let svc: Service;
let prod: Service;
let key: string;
let prodKey: string;
before(async () => {
  svc = await startService();
  key = (await svc.createAccount()).apiKey;
  prod = await startService({ NODE_ENV: 'production' });
  prodKey = (await prod.createAccount()).apiKey;
});
after(async () => {
  await svc.close();
  await prod.close();
});

const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' };
const CUSTOMER = { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' };

const CASES: Array<[string, Record<string, unknown>, string, string]> = [
  ['amount below the minimum', { paymentMethod: 'pix', amount: 99 }, 'amount', 'amount must be at least 100 (cents)'],
  ['amount not an integer', { paymentMethod: 'pix', amount: 19.99 }, 'amount', 'amount must be a whole number'],
  ['missing paymentMethod', { amount: 1000 }, 'paymentMethod', 'paymentMethod is required'],
  ['unknown payment method', { paymentMethod: 'cash', amount: 1000 }, 'paymentMethod', 'paymentMethod must be one of: credit_card, debit_card, boleto, pix'],
  ['bad e-mail', { paymentMethod: 'pix', amount: 1000, customer: { ...CUSTOMER, email: 'maria' } }, 'customer.email', 'customer.email must be an e-mail address'],
  ['bad document', { paymentMethod: 'pix', amount: 1000, customer: { ...CUSTOMER, document: '123' } }, 'customer.document',
    'customer.document must be a CPF (11 digits) or a CNPJ (14 digits), digits only'],
  ['unknown field', { paymentMethod: 'pix', amount: 1000, amuont: 5 }, 'amuont', 'amuont is not a known field'],
  ['card without creditCard', { paymentMethod: 'credit_card', amount: 1000 }, 'creditCard', 'creditCard is required when paymentMethod is credit_card or debit_card'],
  ['card missing its cvv', { paymentMethod: 'credit_card', amount: 1000, creditCard: { ...CARD, cvv: undefined } }, 'creditCard',
    'creditCard needs token, or paymentMethodId, or number, holderName, expMonth, expYear and cvv'],
  ['boleto without a customer', { paymentMethod: 'boleto', amount: 1000 }, 'customerId',
    'customerId is required (or customer.name and customer.document) when paymentMethod is boleto'],
  ['split naming two recipients', { paymentMethod: 'pix', amount: 1000, split: [{ type: 'flat', amount: 1, recipient_id: 'rp_1', coproducerEmail: 'a@example.com' }] },
    'split.0', 'split.0 needs exactly one of recipient_id or coproducerEmail'],
  ['card number with letters', { paymentMethod: 'credit_card', amount: 1000, creditCard: { ...CARD, number: '4242abcd42424242' } }, 'creditCard.number',
    'creditCard.number must be 13 to 19 digits'],
  ['due date not a date', { paymentMethod: 'boleto', amount: 1000, customer: CUSTOMER, boleto: { dueDate: 'tomorrow' } }, 'boleto.dueDate',
    'boleto.dueDate must be a date as YYYY-MM-DD'],
];

for (const [what, body, field, sentence] of CASES) {
  test(`validation: ${what} is answered "${sentence}"`, async () => {
    const res = await svc.call('POST', '/api/v1/charges', { key, body: JSON.parse(JSON.stringify(body)) });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.ok(res.body.error.message.split('; ').includes(sentence), `message: ${res.body.error.message}`);
    const entry = res.body.error.details.errors.find((e: { field: string }) => e.field === field);
    assert.ok(entry, JSON.stringify(res.body.error.details));
    assert.ok(sentence.endsWith(entry.message), `${entry.message} is the rule part of "${sentence}"`);
    assert.doesNotMatch(res.body.error.message, /must match "then"|must have required property|must match a schema in anyOf/);
  });
}

test('several problems: one sentence each, no echo of the values sent', async () => {
  const res = await svc.call('POST', '/api/v1/charges', {
    key, body: { paymentMethod: 'credit_card', amount: 5, creditCard: { ...CARD, cvv: '12x45' } },
  });
  expectError(res, 'VALIDATION_ERROR', 400);
  const sentences = res.body.error.message.split('; ');
  assert.ok(sentences.includes('amount must be at least 100 (cents)'), res.body.error.message);
  assert.ok(sentences.includes('creditCard.cvv must be 3 to 4 digits'), res.body.error.message);
  assert.equal(res.body.error.details.errors.length, sentences.length);
  assert.ok(!res.text.includes('4242424242424242') && !res.text.includes('12x45'), 'no value is echoed');
});

test('in production the sentences stay in error.message and details are dropped', async () => {
  const res = await prod.call('POST', '/api/v1/charges', { key: prodKey, body: { paymentMethod: 'pix', amount: 99 } });
  expectError(res, 'VALIDATION_ERROR', 400);
  assert.equal(res.body.error.message, 'amount must be at least 100 (cents)');
  assert.equal(res.body.error.details, undefined);
});

test('settings, credentials and query strings get the same sentences', async () => {
  const settings = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { gatewayFallbacks: 'stripe' } });
  expectError(settings, 'VALIDATION_ERROR', 400);
  assert.equal(settings.body.error.message, 'gatewayFallbacks must be an array');
  const empty = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: {} });
  assert.equal(empty.body.error.message, 'The request body must name at least 1 field');
  const creds = await svc.call('POST', '/api/v1/credentials', { key, body: { gateway: 'stripe', credentials: { secretKey: 'nope' } } });
  expectError(creds, 'VALIDATION_ERROR', 400);
  assert.equal(creds.body.error.message,
    'Invalid stripe credentials: credentials.webhookSecret is required; credentials.secretKey must be at least 8 characters long; credentials.secretKey must start with sk_ or rk_');
  const list = await svc.call('GET', '/api/v1/charges?limit=500', { key });
  expectError(list, 'VALIDATION_ERROR', 400);
  assert.equal(list.body.error.message, 'limit must be a whole number from 1 to 100');
});

test('alternatives at the top level: a single field is named, a group is described as a whole', async () => {
  const Ajv = (await import('ajv')).default;
  const { AJV_OPTIONS } = await import('../src/http/schemas');
  const { fieldErrors, validationSummary } = await import('../src/http/validation-messages');
  const ajv = new Ajv(AJV_OPTIONS);
  const group = ajv.compile({ type: 'object', anyOf: [{ required: ['a', 'b'] }, { required: ['c'] }] });
  group({});
  assert.equal(validationSummary(fieldErrors(group.errors!)), 'The request body needs a and b, or c');
  const single = ajv.compile({ type: 'object', anyOf: [{ required: ['c'] }, { required: ['a', 'b'] }] });
  single({});
  assert.equal(validationSummary(fieldErrors(single.errors!)), 'c is required (or a and b)');
});
