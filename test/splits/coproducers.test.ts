import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from '../helper';

// Issue 13: coproducers CRUD over real HTTP; e-mail unique per account, recipient ids checked per gateway.

let svc: Service;
let key: string;
before(async () => {
  svc = await startService();
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

const RECIPIENTS = {
  pagarme: 'rp_AAAAAAAAAAAAAAAA', stripe: 'acct_1AnaCoproducer', asaas: '48548710-9baa-4ec1-a11f-9010193527c6',
  mercadopago: '123456789', pagbank: 'ACCO_AAAAAAAA-0000-0000-0000-000000000001',
};

describe('coproducers', () => {
  test('create, read, change one gateway\'s recipient, remove one, rename, delete', async () => {
    const created = await svc.call('POST', '/api/v1/coproducers', { key, body: { email: 'Ana.Lima@Example.com', name: 'Ana Lima', recipients: { gateway_2: RECIPIENTS.pagarme, stripe: RECIPIENTS.stripe } } });
    assert.equal(created.status, 201, created.text);
    const c = created.body.data;
    assert.match(c.id, /^cop_[0-9a-f]{32}$/);
    assert.equal(c.email, 'ana.lima@example.com', 'e-mails are kept lower-cased');
    assert.deepEqual(c.recipients, { pagarme: RECIPIENTS.pagarme, stripe: RECIPIENTS.stripe }, 'a gateway alias is stored under the canonical id');

    const read = await svc.call('GET', `/api/v1/coproducers/${c.id}`, { key });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, c);

    const added = await svc.call('PATCH', `/api/v1/coproducers/${c.id}`, { key, body: { recipients: { asaas: RECIPIENTS.asaas } } });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body.data.recipients, { pagarme: RECIPIENTS.pagarme, stripe: RECIPIENTS.stripe, asaas: RECIPIENTS.asaas }, 'the other gateways are untouched');

    const changed = await svc.call('PATCH', `/api/v1/coproducers/${c.id}`, { key, body: { name: 'Ana L.', recipients: { stripe: 'acct_2Other', pagarme: null } } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.data.recipients, { stripe: 'acct_2Other', asaas: RECIPIENTS.asaas }, 'null removes a gateway\'s recipient');
    assert.equal(changed.body.data.name, 'Ana L.');
    assert.equal(changed.body.data.email, 'ana.lima@example.com');

    const deleted = await svc.call('DELETE', `/api/v1/coproducers/${c.id}`, { key });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.data, { id: c.id, deleted: true });
    expectError(await svc.call('GET', `/api/v1/coproducers/${c.id}`, { key }), 'NOT_FOUND', 404);
    expectError(await svc.call('DELETE', `/api/v1/coproducers/${c.id}`, { key }), 'NOT_FOUND', 404);
    expectError(await svc.call('PATCH', `/api/v1/coproducers/${c.id}`, { key, body: { name: 'x' } }), 'NOT_FOUND', 404);
  });

  test('lists newest first with a cursor', async () => {
    const k = (await svc.createAccount('Lista', 'lista@example.com')).apiKey;
    for (const n of [1, 2, 3]) {
      const res = await svc.call('POST', '/api/v1/coproducers', { key: k, body: { email: `c${n}@example.com`, name: `C${n}` } });
      assert.equal(res.status, 201, res.text);
    }
    const first = await svc.call('GET', '/api/v1/coproducers?limit=2', { key: k });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data.map((c: { email: string }) => c.email), ['c3@example.com', 'c2@example.com']);
    assert.ok(first.body.pagination.nextCursor);
    const second = await svc.call('GET', `/api/v1/coproducers?limit=2&cursor=${first.body.pagination.nextCursor}`, { key: k });
    assert.deepEqual(second.body.data.map((c: { email: string }) => c.email), ['c1@example.com']);
    assert.equal(second.body.pagination.nextCursor, null);
    expectError(await svc.call('GET', '/api/v1/coproducers?cursor=bm9wZQ', { key: k }), 'VALIDATION_ERROR', 400);
  });

  test('an e-mail is unique in its account (any case), free in another, and another account cannot see the coproducer', async () => {
    const body = { email: 'bia@example.com', name: 'Bia' };
    const first = await svc.call('POST', '/api/v1/coproducers', { key, body });
    assert.equal(first.status, 201);
    const again = await svc.call('POST', '/api/v1/coproducers', { key, body: { ...body, email: 'BIA@example.com' } });
    expectError(again, 'ALREADY_EXISTS', 409);
    assert.match(again.body.error.message, /bia@example\.com/);
    assert.ok(again.body.error.message.includes(first.body.data.id), 'the message names the coproducer that has it');
    const other = await svc.call('POST', '/api/v1/coproducers', { key: (await svc.createAccount('Outra', 'outra@example.com')).apiKey, body });
    assert.equal(other.status, 201, 'the same e-mail in another account');
    expectError(await svc.call('GET', `/api/v1/coproducers/${other.body.data.id}`, { key }), 'NOT_FOUND', 404);
    const cid = (await svc.call('POST', '/api/v1/coproducers', { key, body: { email: 'caio@example.com', name: 'Caio' } })).body.data.id;
    expectError(await svc.call('PATCH', `/api/v1/coproducers/${cid}`, { key, body: { email: 'Bia@Example.com' } }), 'ALREADY_EXISTS', 409);
  });

  test('recipient ids are checked in each gateway\'s format, and the message says which', async () => {
    const res = await svc.call('POST', '/api/v1/coproducers', {
      key, body: { email: 'formats@example.com', name: 'Formats', recipients: { pagarme: 'rp_short', stripe: 'ac_123', asaas: 'wallet-1', mercadopago: 'abc', pagbank: 'ACCO_nope', paypal: 'x' } },
    });
    expectError(res, 'VALIDATION_ERROR', 400);
    const fields = Object.fromEntries(res.body.error.details.errors.map((e: { field: string; message: string }) => [e.field, e.message]));
    assert.match(fields['recipients.pagarme'], /rp_ and 16 letters or digits/);
    assert.match(fields['recipients.stripe'], /acct_/);
    assert.match(fields['recipients.asaas'], /walletId \(a UUID\)/);
    assert.match(fields['recipients.mercadopago'], /collector id \(digits\)/);
    assert.match(fields['recipients.pagbank'], /ACCO_ and a UUID/);
    assert.match(fields['recipients.paypal'], /is not a gateway/);
    assert.match(res.body.error.message, /recipients\.pagarme must be a Pagar\.me recipient id/);
    expectError(await svc.call('GET', '/api/v1/coproducers?limit=1', { key: 'tk_nope' }), 'INVALID_API_KEY', 401);
  });

  test('bad bodies get the envelope with readable sentences', async () => {
    const missing = await svc.call('POST', '/api/v1/coproducers', { key, body: { email: 'not-an-email' } });
    expectError(missing, 'VALIDATION_ERROR', 400);
    assert.match(missing.body.error.message, /name is required/);
    assert.match(missing.body.error.message, /email must be an e-mail address/);
    const empty = await svc.call('PATCH', '/api/v1/coproducers/cop_x', { key, body: {} });
    expectError(empty, 'VALIDATION_ERROR', 400);
    const twice = await svc.call('POST', '/api/v1/coproducers', { key, body: { email: 'dup@example.com', name: 'Dup', recipients: { pagarme: RECIPIENTS.pagarme, gateway_2: RECIPIENTS.pagarme } } });
    expectError(twice, 'VALIDATION_ERROR', 400);
    assert.match(twice.body.error.message, /names pagarme a second time/);
  });
});
