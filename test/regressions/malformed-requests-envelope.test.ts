import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, callRaw, callSocket, expectError, type Service } from '../helper';

// Found by the fuzz test: requests refused before routing (a malformed percent-encoding, an overlong path
// segment) or by Node's HTTP parser (oversized headers or URL, a broken request line) were answered in
// Fastify's or Node's own JSON, not the SPEC.md envelope.

let svc: Service;
let key: string;
before(async () => {
  svc = await startService({ ROUTEGATE_LOG_LEVEL: 'trace' });
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

test('a malformed percent-encoding in the path is 400 VALIDATION_ERROR that does not echo the URL', async () => {
  for (const path of ['/%', '/api/v1/charges/%E0%A4%A', '/api/v1/credentials/%zz', '/docs/static/%ff', '/health/%']) {
    const res = await callRaw(svc.url, 'GET', `${path}?token=${key}`, { headers: { 'x-api-key': key } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.ok(!res.text.includes(key) && !res.text.includes(path), res.text);
    assert.ok(res.headers['x-request-id'], 'carries a request id like any answer');
  }
});

test('a path segment over 100 characters is 414 URI_TOO_LONG', async () => {
  for (const path of [`/api/v1/charges/${'a'.repeat(101)}`, `/api/v1/charges/${'b'.repeat(5000)}/refunds`, `/api/v1/credentials/${'c'.repeat(300)}`]) {
    const method = path.endsWith('refunds') ? 'POST' : path.includes('credentials') ? 'DELETE' : 'GET';
    expectError(await callRaw(svc.url, method, path, { headers: { 'x-api-key': key } }), 'URI_TOO_LONG', 414);
  }
});

test('headers or a URL over the 16 KiB limit are 431 HEADERS_TOO_LARGE, and the refused bytes reach no log line', async () => {
  const refused = 'tk_RefusedBytesNeverLogged0123456789abcdef';
  const bigHeader = await callSocket(svc.url, `GET /api/v1/clients/me HTTP/1.1\r\nHost: x\r\nx-api-key: ${refused}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expectError(bigHeader, 'HEADERS_TOO_LARGE', 431);
  assert.equal(bigHeader.headers.connection, 'close');
  const longUrl = await callSocket(svc.url, `GET /api/v1/charges?token=${refused}&x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expectError(longUrl, 'HEADERS_TOO_LARGE', 431);
  assert.ok(svc.logs.join('').includes('"code":"HPE_HEADER_OVERFLOW"'), 'the refusal is logged');
  assert.ok(!svc.logs.join('').includes(refused), 'the refused bytes reached a log line');
});

test('a request line that is not HTTP is 400 VALIDATION_ERROR', async () => {
  expectError(await callSocket(svc.url, 'GARBAGE\r\n\r\n'), 'VALIDATION_ERROR', 400);
  expectError(await callSocket(svc.url, 'GET / HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n'), 'VALIDATION_ERROR', 400);
});

test('a NUL character in the path, the query or the body is a 400 in the envelope, on either store (PostgreSQL cannot hold one)', async () => {
  for (const [method, path, body] of [
    ['GET', '/api/v1/charges/%00', undefined],
    ['GET', '/api/v1/charges?status=ap%00proved', undefined],
    ['POST', '/api/v1/charges', { paymentMethod: 'pix', amount: 1000, description: 'a\u0000b' }],
    // Deeper: a key, a nested value, an array's item.
    ['POST', '/api/v1/charges', { paymentMethod: 'pix', amount: 1000, metadata: { 'order\u0000id': '1' } }],
    ['POST', '/api/v1/charges', { paymentMethod: 'pix', amount: 1000, customer: { name: 'Maria', address: { street: 'Rua\u0000A' } } }],
    ['POST', '/api/v1/charges', { paymentMethod: 'pix', amount: 1000, split: [{ recipientId: 'cop_1', percentage: 10 }, { recipientId: 'cop_\u00002', percentage: 5 }] }],
  ] as const) {
    const res = await svc.call(method, path, { key, ...(body ? { body } : {}) });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.match(res.body.error.message, /NUL character/);
  }
});
