import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { PAYMENT_METHODS, type PaymentMethod } from '../../src/gateways/types';
import type { GatewayDescriptor } from '../../src/gateways/descriptor';
import { chargeRecipe, createCharge, FOLLOW_UP_CALL, FOLLOW_UPS, gateways, isCard, OPERATIONS, paidLater, prepareCharge, supported } from './matrix';

// The follow-up columns of the conformance matrix (capture, cancel, refund, partial refund), for every registered
// gateway and every method it charges: a supported cell works end to end against the gateway's emulator; an
// unsupported one answers 422 before any call, whatever state the charge is in. A missing or misspelt cell fails.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const calls = async (gateway: string) => (await e2e.control.requests(gateway)).length;

/**
 * The charge as its gateway holds it (/__control/ledger, cents): RouteGate's figures are checked against this, not
 * against themselves. Exactly one entry, at the charge's gateway; none at any other.
 */
async function atGateway(g: GatewayDescriptor, charge: { id: string; externalId: string }) {
  const held = (await e2e.control.ledger()).filter((e) => e.reference === charge.id || (e.gateway === g.id && e.id === charge.externalId));
  assert.equal(held.length, 1, `one charge at the gateways for ${charge.id}: ${JSON.stringify(held)}`);
  assert.equal(held[0].gateway, g.id);
  return held[0];
}
/** A gateway's status for an authorization or a payment still waiting: not cancelled. */
const OPEN = /^(requires_capture|requires_action|requires_payment_method|pending|waiting|authorized|awaiting_risk_analysis|in_process)$/i;
const operations = (stored: { attempts: Array<{ operation: string }> }) => stored.attempts.map((a) => a.operation);

test('every registered gateway declares every cell with a known value, and its currencies', () => {
  for (const g of gateways()) {
    const table = g.adapter.capabilities;
    for (const method of PAYMENT_METHODS) {
      for (const op of OPERATIONS) {
        const cell = table[method][op];
        assert.ok(cell === 'supported' || cell === 'unsupported' || (typeof cell === 'object' && ['customerId', 'customer'].includes(cell.needs)),
          `${g.id} ${method} ${op}: ${JSON.stringify(cell)}`);
      }
    }
    assert.ok(['supported', 'unsupported'].includes(table.customer as string), `${g.id} customer`);
    if (PAYMENT_METHODS.some((m) => table[m].charge !== 'unsupported' && typeof table[m].charge === 'object' && table[m].charge.needs === 'customerId')) {
      assert.equal(table.customer, 'supported', `${g.id} charges only its own customers, so it must create them`);
    }
    assert.ok(g.adapter.currencies.includes('BRL') && g.adapter.currencies.every((c) => /^[A-Z]{3}$/.test(c)), `${g.id} currencies`);
    assert.equal(g.adapter.id, g.id, `${g.id} adapter id`);
  }
});

/** A charge of `method` in the state the operation acts on: a pre-authorization to capture or void, a paid one to refund. */
async function chargeFor(g: GatewayDescriptor, method: PaymentMethod, op: (typeof FOLLOW_UPS)[number]) {
  const table = g.adapter.capabilities[method];
  const preAuth = op === 'capture' || (op === 'cancel' && isCard(method) && supported(table.capture));
  const { key, body } = await prepareCharge(e2e, g, chargeRecipe(g.adapter, method, preAuth ? { capture: false } : {}));
  const created = await createCharge(e2e, key, body);
  if ((op === 'refund' || op === 'partial_refund') && paidLater(method)) {
    await e2e.control.pay(g.id, created.externalId);
    const fresh = await e2e.call('GET', `/api/v1/charges/${created.id}?refresh=true`, { key });
    assert.equal(fresh.body.data.status, 'approved', fresh.text);
  }
  return { key, created };
}

for (const g of gateways()) {
  const table = g.adapter.capabilities;
  describe(`${g.id}: follow-up operations by capability`, () => {
    // A method the gateway cannot charge has no charge to follow up: its 422 is the charge's own (charges.test.ts).
    for (const method of PAYMENT_METHODS.filter((m) => supported(table[m].charge))) {
      for (const op of FOLLOW_UPS.filter((o) => !supported(table[method][o]))) {
        test(`${g.id} ${method}: ${op} is 422 GATEWAY_UNSUPPORTED_OPERATION without calling ${g.id}`, async () => {
          const { key, body } = await prepareCharge(e2e, g, chargeRecipe(g.adapter, method));
          const created = await createCharge(e2e, key, body);
          const before = await calls(g.id);
          const { path, body: opBody } = FOLLOW_UP_CALL[op];
          const res = await e2e.call('POST', `/api/v1/charges/${created.id}/${path}`, { key, ...(opBody ? { body: opBody } : {}) });
          expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
          assert.equal(res.body.error.gateway, g.id);
          assert.equal(await calls(g.id), before, 'no call reached the gateway');
        });
      }

      if (supported(table[method].capture)) {
        test(`${g.id} ${method}: a pre-authorization is approved uncaptured, then captured once`, async () => {
          const { key, created } = await chargeFor(g, method, 'capture');
          assert.equal(created.status, 'approved');
          assert.equal(created.captured, false);
          const cap = await e2e.call('POST', `/api/v1/charges/${created.id}/capture`, { key, body: {} });
          assert.equal(cap.status, 200, cap.text);
          assert.equal(cap.body.data.status, 'approved');
          assert.equal(cap.body.data.captured, true);
          assert.equal(cap.body.data.paidAmount, 1999);
          expectError(await e2e.call('POST', `/api/v1/charges/${created.id}/capture`, { key, body: {} }), 'VALIDATION_ERROR', 400);
          const held = await atGateway(g, created);
          assert.equal(held.amount, 1999);
          assert.equal(held.paidAmount, 1999, `${g.id} captured the whole authorization, once`);
          assert.equal(held.refundedAmount, 0);
        });
      }

      if (supported(table[method].cancel)) {
        const what = isCard(method) ? (supported(table[method].capture) ? 'a pre-authorization' : 'an approved charge') : 'a pending charge';
        test(`${g.id} ${method}: ${what} is cancelled once`, async () => {
          const { key, created } = await chargeFor(g, method, 'cancel');
          const open = await atGateway(g, created);
          assert.match(open.status, OPEN, `${g.id} holds the charge open before the cancel`);
          const cancel = await e2e.call('POST', `/api/v1/charges/${created.id}/cancel`, { key });
          assert.equal(cancel.status, 200, cancel.text);
          assert.equal(cancel.body.data.status, 'cancelled');
          expectError(await e2e.call('POST', `/api/v1/charges/${created.id}/cancel`, { key }), 'VALIDATION_ERROR', 400);
          if (paidLater(method)) {
            // Cancelled at the gateway: the payer can no longer pay it (Asaas keeps a deleted payment's status).
            await assert.rejects(e2e.control.pay(g.id, created.externalId), /40[49]/, `${g.id} still lets the payer pay a cancelled ${method}`);
          }
          const held = await atGateway(g, created);
          assert.equal(held.paidAmount, 0, `${g.id} took no money for a cancelled charge`);
          if (!paidLater(method)) assert.doesNotMatch(held.status, OPEN, `${g.id} released the authorization (${held.status})`);
        });
      }

      if (supported(table[method].refund)) {
        test(`${g.id} ${method}: a paid charge is refunded in full, the refund recorded`, async () => {
          const { key, created } = await chargeFor(g, method, 'refund');
          const res = await e2e.call('POST', `/api/v1/charges/${created.id}/refunds`, { key, body: {} });
          assert.equal(res.status, 201, res.text);
          assert.equal(res.body.data.status, 'refunded');
          assert.equal(res.body.data.refundedAmount, 1999);
          const held = await atGateway(g, created);
          assert.deepEqual([held.paidAmount, held.refundedAmount, held.refunds], [1999, 1999, 1], `${g.id} refunded the whole charge once`);
          assert.equal(typeof res.body.data.refund, 'object', 'the refund as the gateway recorded it');
          const stored = (await e2e.call('GET', `/api/v1/charges/${created.id}`, { key })).body.data;
          assert.equal(operations(stored).at(-1), 'refund');
          expectError(await e2e.call('POST', `/api/v1/charges/${created.id}/refunds`, { key, body: {} }), 'VALIDATION_ERROR', 400);
        });
      }

      if (supported(table[method].partial_refund)) {
        test(`${g.id} ${method}: a partial refund keeps approved and counts refundedAmount; more than the rest is refused`, async () => {
          const { key, created } = await chargeFor(g, method, 'partial_refund');
          const partial = await e2e.call('POST', `/api/v1/charges/${created.id}/refunds`, { key, body: { amount: 500 } });
          assert.equal(partial.status, 201, partial.text);
          assert.equal(partial.body.data.status, 'approved');
          assert.equal(partial.body.data.refundedAmount, 500);
          assert.equal(typeof partial.body.data.refund, 'object', 'the refund as the gateway recorded it');
          expectError(await e2e.call('POST', `/api/v1/charges/${created.id}/refunds`, { key, body: { amount: 1500 } }), 'VALIDATION_ERROR', 400);
          const once = await atGateway(g, created);
          assert.deepEqual([once.paidAmount, once.refundedAmount, once.refunds], [1999, 500, 1], `${g.id} refunded 500 once; the refused one moved nothing`);
          if (!supported(table[method].refund)) return;
          const rest = await e2e.call('POST', `/api/v1/charges/${created.id}/refunds`, { key, body: {} });
          assert.equal(rest.status, 201, rest.text);
          assert.equal(rest.body.data.status, 'refunded');
          assert.equal(rest.body.data.refundedAmount, 1999);
          const twice = await atGateway(g, created);
          assert.deepEqual([twice.paidAmount, twice.refundedAmount, twice.refunds], [1999, 1999, 2], `${g.id} refunded 500, then the rest, each once`);
          const stored = (await e2e.call('GET', `/api/v1/charges/${created.id}`, { key })).body.data;
          assert.deepEqual(operations(stored).filter((o) => o === 'refund'), ['refund', 'refund']);
          const refundIds = stored.attempts.filter((a: { operation: string }) => a.operation === 'refund').map((a: { externalId?: string }) => a.externalId);
          assert.ok(refundIds.every((r: unknown) => typeof r === 'string' && r.length > 0), `refund ids stored on the attempts: ${refundIds}`);
        });
      }
    }
  });
}
