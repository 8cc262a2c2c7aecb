import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startService, expectError, type Service } from './helper';
import { ERROR_CATALOGUE, SPEC_ERROR_CODES, RouteGateError, envelope } from '../src/errors';
import { ROOT } from '../src/lib/paths';

let svc: Service;
let key: string;
before(async () => {
  svc = await startService({ ROUTEGATE_BODY_LIMIT: '2048' });
  key = svc.createAccount().apiKey;
});
after(() => svc.close());

test('the catalogue holds every SPEC.md error code with its status', () => {
  const spec: Record<string, number> = {
    VALIDATION_ERROR: 400, MISSING_API_KEY: 401, INVALID_API_KEY: 401, GATEWAY_AUTH_ERROR: 401, CLIENT_INACTIVE: 403, NOT_FOUND: 404,
    MISSING_CREDENTIALS: 400, GATEWAY_UNSUPPORTED_OPERATION: 422, RATE_LIMIT_EXCEEDED: 429, GATEWAY_ERROR: 502,
    GATEWAY_UNREACHABLE: 502, GATEWAY_TIMEOUT: 504,
  };
  assert.deepEqual([...SPEC_ERROR_CODES].sort(), Object.keys(spec).sort());
  for (const [code, status] of Object.entries(spec)) assert.equal(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE], status, code);
});

test('every catalogue code is documented in docs/errors.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');
  for (const code of Object.keys(ERROR_CATALOGUE)) assert.match(doc, new RegExp(`\\b${code}\\b`), `${code} missing from docs/errors.md`);
});

test('details are hidden in production and gateway is carried on gateway errors', () => {
  const err = new RouteGateError('GATEWAY_ERROR', 'card_declined: Your card was declined.', { gateway: 'stripe', details: { errors: [] } });
  assert.deepEqual(envelope(err, true), { success: false, error: { code: 'GATEWAY_ERROR', message: 'card_declined: Your card was declined.', gateway: 'stripe' } });
  assert.ok(envelope(err, false).error.details);
  assert.equal(new RouteGateError('GATEWAY_AUTH_ERROR', 'x', { status: 403 }).statusCode, 403);
});

test('an unknown route is 404 NOT_FOUND in the envelope', async () => {
  expectError(await svc.call('GET', '/api/v1/nothing-here', { key }), 'NOT_FOUND', 404);
  expectError(await svc.call('GET', '/nothing'), 'NOT_FOUND', 404);
});

test('a wrong method is 405 with an Allow header', async () => {
  const res = await svc.call('PUT', '/api/v1/clients/me', { key });
  expectError(res, 'METHOD_NOT_ALLOWED', 405);
  assert.equal(res.headers.allow, 'GET');
});

test('malformed JSON is 400 VALIDATION_ERROR', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, rawBody: '{"responseFormat": ', headers: { 'content-type': 'application/json' } });
  expectError(res, 'VALIDATION_ERROR', 400);
  assert.match(res.body.error.message, /not valid JSON/);
});

test('an unsupported content type is 415', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, rawBody: 'responseFormat=raw', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expectError(res, 'UNSUPPORTED_MEDIA_TYPE', 415);
});

test('a body over the configured limit is 413', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { webhookForwardUrl: `https://x.example.com/${'a'.repeat(4000)}` } });
  expectError(res, 'PAYLOAD_TOO_LARGE', 413);
});

test('schema failures carry details.errors outside production and only code and message in production', async () => {
  const dev = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { responseFormat: 1 } });
  expectError(dev, 'VALIDATION_ERROR', 400);
  assert.deepEqual(dev.body.error.details.errors[0].field, 'responseFormat');
  const prod = await startService({ NODE_ENV: 'production' });
  try {
    const k = prod.createAccount().apiKey;
    const res = await prod.call('PATCH', '/api/v1/clients/settings', { key: k, body: { responseFormat: 1 } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message']);
  } finally {
    await prod.close();
  }
});

test('errors carry a request id header', async () => {
  const res = await svc.call('GET', '/api/v1/clients/me');
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});
