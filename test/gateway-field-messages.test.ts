import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { startE2E, CUSTOMER, CARD } from './helpers/e2e';
import { expectError } from './helper';
import { copyMappings } from './helpers/wrong-unit';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { loadMappings } from '../src/mapping/loader';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';

// Issue 41, item 6: a gateway's own field-level validation message reaches the client, the attempt and the log.

test('a Pagar.me 422 names its field: in the answer\'s message and details, the stored attempt and the log', async (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  // An operator's edit the gateway refuses (not an amount: the money guard would stop that first).
  const file = path.join(maps, 'pagarme', 'charge.request.jsonata');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'description': $c.description ? $c.description : 'Pagamento',", "'description': '',"));
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _e, cb) { lines.push(chunk.toString()); cb(); } });
  const e2e = await startE2E({ ROUTEGATE_MAPPINGS_DIR: maps }, { level: 'info', stream });
  t.after(() => e2e.close());
  const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
  const res = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });
  expectError(res, 'GATEWAY_ERROR', 502);
  assert.match(res.body.error.message, /pagarme answered 422: The request is invalid\. \(order\.items\[0\]\.description: The description field is required\.\)/);
  assert.deepEqual(res.body.error.details.gatewayFields, [{ field: 'order.items[0].description', message: 'The description field is required.' }]);
  const [listed] = (await e2e.call('GET', '/api/v1/charges?limit=1', { key })).body.data;
  const stored = await e2e.call('GET', `/api/v1/charges/${listed.id}`, { key });
  const attempt = stored.body.data.attempts.find((a: { operation: string }) => a.operation === 'charge');
  assert.match(attempt.message, /order\.items\[0\]\.description: The description field is required\./);
  assert.ok(lines.some((l) => l.includes('order.items[0].description: The description field is required.')), 'logged');
});

test('every gateway\'s error.response reads its field-level messages into `fields`', async () => {
  const registry = loadMappings(MAPPINGS_DIR);
  const bodies: Record<string, unknown> = {
    pagarme: { message: 'The request is invalid.', errors: { 'order.items[0].amount': ['The field amount must be an integer (cents).'] } },
    stripe: { error: { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid integer: 19.99' } },
    asaas: { errors: [{ code: 'invalid_value', description: 'O valor da cobrança deve ser maior que zero.' }] },
    mercadopago: { message: 'Invalid transaction_amount', error: 'bad_request', status: 400, cause: [{ code: 4037, description: 'Invalid transaction_amount' }] },
    pagbank: { error_messages: [{ code: '40002', error: 'invalid_parameter', description: 'must be an integer', parameter_name: 'charges[0].amount.value' }] },
  };
  for (const g of GATEWAY_IDS) {
    const facts = await registry.get(g)!.evaluate('error.response', { status: 400, body: bodies[g] });
    assert.ok(Array.isArray(facts.fields) && facts.fields.length > 0, `${g}: ${JSON.stringify(facts)}`);
    for (const f of facts.fields) assert.ok(typeof f.field === 'string' && typeof f.message === 'string' && f.message, `${g}: ${JSON.stringify(f)}`);
  }
});
