import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { ADAPTERS } from '../../src/gateways/registry';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';
import { PAYMENT_METHODS, type ChargeOperation } from '../../src/gateways/types';

// Walks every capability cell of every adapter: a cell the gateway cannot do answers 422 before any call,
// whatever state the charge is in. A missing or misspelt cell fails here.

const OPERATIONS: ChargeOperation[] = ['charge', 'capture', 'cancel', 'refund', 'partial_refund'];
const FOLLOW_UP: Record<Exclude<ChargeOperation, 'charge'>, { path: string; body?: unknown }> = {
  capture: { path: 'capture', body: {} },
  cancel: { path: 'cancel' },
  refund: { path: 'refunds', body: {} },
  partial_refund: { path: 'refunds', body: { amount: 100 } },
};

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

test('every adapter declares every cell with a known value', () => {
  for (const gateway of GATEWAY_IDS) {
    const table = ADAPTERS[gateway].capabilities;
    for (const method of PAYMENT_METHODS) {
      for (const op of OPERATIONS) {
        const cell = table[method][op];
        assert.ok(cell === 'supported' || cell === 'unsupported' || (typeof cell === 'object' && ['customerId', 'customer'].includes(cell.needs)),
          `${gateway} ${method} ${op}: ${JSON.stringify(cell)}`);
      }
    }
    assert.ok(['supported', 'unsupported'].includes(table.customer as string), `${gateway} customer`);
  }
});

for (const gateway of GATEWAY_IDS) {
  const table = ADAPTERS[gateway].capabilities;
  const cells = PAYMENT_METHODS.flatMap((method) => (Object.keys(FOLLOW_UP) as Array<keyof typeof FOLLOW_UP>)
    // A method the gateway cannot charge at all (Asaas debit) has no charge to follow up: its 422 is the charge's own.
    .filter((op) => table[method][op] === 'unsupported' && table[method].charge !== 'unsupported').map((op) => [method, op] as const));
  if (cells.length === 0) continue;
  describe(`${gateway}: unsupported operations`, () => {
    for (const [method, op] of cells) {
      test(`${op} of a ${method} charge is 422 GATEWAY_UNSUPPORTED_OPERATION without calling ${gateway}`, async () => {
        const key = e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
        let customerId: string | undefined;
        if (typeof table[method].charge === 'object' && (table[method].charge as { needs: string }).needs === 'customerId') {
          customerId = (await e2e.call('POST', '/api/v1/customers', { key, body: CUSTOMER })).body.data.externalId;
        }
        const body = {
          paymentMethod: method, amount: 1999, customer: CUSTOMER, ...(customerId ? { customerId } : {}),
          ...(method.endsWith('_card') ? { creditCard: CARD } : {}),
          ...(method === 'boleto' ? { boleto: { dueDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10) } } : {}),
        };
        const created = await e2e.call('POST', '/api/v1/charges', { key, body });
        assert.equal(created.status, 201, created.text);
        const before = (await e2e.control.requests(gateway)).length;
        const { path, body: opBody } = FOLLOW_UP[op];
        const res = await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/${path}`, { key, ...(opBody ? { body: opBody } : {}) });
        expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
        assert.equal(res.body.error.gateway, gateway);
        assert.equal((await e2e.control.requests(gateway)).length, before, 'no call reached the gateway');
      });
    }
  });
}
