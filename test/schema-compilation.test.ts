import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { startE2E, CUSTOMER } from './helpers/e2e';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';

// Compiling a JSON Schema costs milliseconds; a validator compiled per request would cost more than the request.
// Fastify compiles route schemas at start-up and RouteGate's own validator (credentials, settings) once per schema:
// a second round of the same requests compiles nothing.

test('no validator is compiled while serving requests: a second round of the same requests compiles nothing', async () => {
  const proto = Ajv.prototype as unknown as { _compileSchemaEnv(this: unknown, ...args: unknown[]): unknown };
  const original = proto._compileSchemaEnv;
  let compiled = 0;
  proto._compileSchemaEnv = function (this: unknown, ...args: unknown[]) {
    compiled++;
    return original.apply(this, args);
  };
  const e2e = await startE2E();
  try {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const round = async () => {
      const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER } });
      assert.equal(created.status, 201, created.text);
      assert.equal((await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: -1 } })).status, 400);
      assert.equal((await e2e.call('GET', `/api/v1/charges/${created.body.data.id}`, { key })).status, 200);
      assert.equal((await e2e.call('GET', '/api/v1/charges?limit=5&status=pending', { key })).status, 200);
      assert.equal((await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/cancel`, { key })).status, 200);
      assert.equal((await e2e.call('POST', '/api/v1/credentials', { key, body: { gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme } })).status, 201);
      assert.equal((await e2e.call('POST', '/api/v1/credentials', { key, body: { gateway: 'pagarme', credentials: {} } })).status, 400);
      assert.equal((await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { responseFormat: 'full' } })).status, 200);
    };
    await round();
    const afterFirst = compiled;
    await round();
    await round();
    assert.equal(compiled, afterFirst, `${compiled - afterFirst} schema(s) compiled while serving the same requests again`);
  } finally {
    proto._compileSchemaEnv = original;
    await e2e.close();
  }
});
