import { storedText } from '../helpers/test-db';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAYS } from '../../src/gateways/registry';
import { chargeableMethods, chargeRecipe, isCard, prepareCharge } from './matrix';

// Card data and gateway secrets never reach logs (at trace), the database file or any answer, on every
// gateway, for approvals, declines and gateway-side validation errors alike.

const lines: string[] = [];
const stream = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk));
    done();
  },
});

let e2e: E2E;
before(async () => {
  e2e = await startE2E({}, { level: 'trace', stream });
});
after(() => e2e.close());

const PAN = '5555555555554444';
const CVV = '9731';
const DECLINED_PAN = '4000000000009995';

test('no card number, CVV or gateway secret in logs, rows or answers, on any gateway', async () => {
  const answers: string[] = [];
  for (const g of GATEWAYS) {
    const gateway = g.id;
    // A card method the gateway charges, with what it declares a card charge needs (a customer first, payer data).
    const method = chargeableMethods(g.adapter).find(isCard);
    if (!method) continue;
    const recipe = chargeRecipe(g.adapter, method);
    const { key, body: base } = await prepareCharge(e2e, g, recipe);
    const card = (number: string) => ({ ...base, creditCard: { number, holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: CVV } });
    const approved = await e2e.call('POST', '/api/v1/charges', { key, body: card(PAN), headers: { 'idempotency-key': `secrets-${gateway}` } });
    assert.equal(approved.status, 201, `${gateway}: ${approved.text}`);
    const declined = await e2e.call('POST', '/api/v1/charges', { key, body: card(DECLINED_PAN) });
    assert.equal(declined.status, 502, `${gateway}: ${declined.text}`);
    const invalid = await e2e.call('POST', '/api/v1/charges', { key, body: card('4242424242424241') }); // fails Luhn at the gateway
    assert.ok(invalid.status >= 400, `${gateway}: ${invalid.text}`);
    answers.push(approved.text, declined.text, invalid.text);
  }

  const file = await storedText(e2e.sandbox.app.store);
  const logs = lines.join('');
  assert.ok(logs.includes('"level":10') || logs.includes('"level":20') || logs.includes('"level":30'), 'logs were captured at trace');

  const secrets = [PAN, DECLINED_PAN, '4242424242424241', ...GATEWAYS.flatMap((g) => Object.values(g.sandboxCredentials))];
  for (const secret of secrets) {
    assert.ok(!logs.includes(secret), `logs hold ${secret.slice(0, 6)}…`);
    assert.ok(!file.includes(secret), `the database file holds ${secret.slice(0, 6)}…`);
    assert.ok(!answers.some((a) => a.includes(secret)), `an answer holds ${secret.slice(0, 6)}…`);
  }
  assert.ok(!logs.includes(`"cvv":"${CVV}"`) && !logs.includes(`"security_code":"${CVV}"`), 'no CVV in logs');
  assert.ok(!file.includes(CVV + '"'), 'no CVV in the database');
});

