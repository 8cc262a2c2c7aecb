import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from '../helper';
import { resolveGatewayId } from '../../src/gateways/registry-ids';
import { mappingFunctions } from '../../src/mapping/functions';

// Found by the fuzz test: the alias table was an object literal, so `__proto__` and `constructor` resolved to
// Object.prototype and Object, which reached SQLite as a gateway id and answered 500.

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

let svc: Service;
let key: string;
before(async () => {
  svc = await startService();
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

test('prototype property names are no gateway id or alias', () => {
  for (const name of PROTOTYPE_KEYS) assert.equal(resolveGatewayId(name), undefined, name);
  assert.equal(resolveGatewayId(' Gateway_5 '), 'pagbank');
  assert.equal(resolveGatewayId('STRIPE'), 'stripe');
});

test('DELETE /api/v1/credentials/<prototype property name> is 404 NOT_FOUND, not 500', async () => {
  for (const name of PROTOTYPE_KEYS) {
    expectError(await svc.call('DELETE', `/api/v1/credentials/${name}`, { key }), 'NOT_FOUND', 404);
  }
});

test('a gateway status named after a prototype property maps to no normalized status', () => {
  const { status } = mappingFunctions({ paid: 'approved' }) as { status: (s: unknown) => unknown };
  assert.equal(status('paid'), 'approved');
  for (const name of PROTOTYPE_KEYS) assert.equal(status(name), undefined, name);
});
