import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chargeFromBody, type ChargeBody } from '../src/charges/charge-request';

const BODY: ChargeBody = {
  gateway: 'pagarme', paymentMethod: 'credit_card', amount: 1999, description: 'Order 1',
  customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
  creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 },
};

test('chargeFromBody: the body as sent, the currency upper-cased (BRL by default), capture true by default, the client IP', () => {
  assert.deepEqual(chargeFromBody(BODY, '203.0.113.7'), { ...BODY, currency: 'BRL', capture: true, clientIp: '203.0.113.7' });
  const asked = chargeFromBody({ ...BODY, currency: 'usd', capture: false }, '203.0.113.7');
  assert.equal(asked.currency, 'USD');
  assert.equal(asked.capture, false);
  // A clientIp in the body (none passes the schema) never replaces the connection's.
  assert.equal(chargeFromBody({ ...BODY, clientIp: '10.0.0.1' } as ChargeBody, '203.0.113.7').clientIp, '203.0.113.7');
  assert.equal(BODY.currency, undefined, 'the body is not changed');
});

// The charge reaches every part of a create. Built with a leading spread and keys added after it, each one got a hidden
// class of its own, and every property cache that read it went megamorphic (docs/performance.md, eighteenth round):
// two charges from bodies of the same shape must share one class. V8's own check, in a process that may ask for it.
test('chargeFromBody: charges from bodies of the same shape share one hidden class', () => {
  const script = `
    const { chargeFromBody } = require(${JSON.stringify(require.resolve('../src/charges/charge-request'))});
    const body = () => JSON.parse(${JSON.stringify(JSON.stringify(BODY))});
    // Warmed up first: the class per object shows once V8 has optimized the function, not before.
    for (let i = 0; i < 100000; i++) chargeFromBody(body(), '203.0.113.9');
    const a = chargeFromBody(body(), '203.0.113.7');
    const b = chargeFromBody(body(), '203.0.113.8');
    process.stdout.write(JSON.stringify({ sameMap: %HaveSameMap(a, b), fast: %HasFastProperties(a) }));`;
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { sameMap: true, fast: true });
});
