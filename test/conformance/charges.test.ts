import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CARD, DECLINES, type E2E } from '../helpers/e2e';
import { expectError } from '../helper';
import { PAYMENT_METHODS, type ChargeRequirement } from '../../src/gateways/types';
import {
  chargeRecipe, createCharge, fieldOf, gateways, isCard, needsOf, paidLater, prepareCharge, supported, unfill,
} from './matrix';

// The charge column of the conformance matrix, for every registered gateway: each payment method charges where
// the capability table says so and answers 422 before any call where it does not; what a gateway declares it
// needs (a customer first, the buyer inline, payer data, a setting, 3-D Secure data, currencies) is both supplied
// and, taken away, refused before any call.

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const PIX_FIELDS = ['pixQrCode', 'pixCopyPaste'];
const BOLETO_FIELDS = ['boletoUrl', 'boletoBarcode'];
const FIELDS: Record<string, string[]> = { pix: PIX_FIELDS, boleto: BOLETO_FIELDS, credit_card: [], debit_card: [] };

/** How the router answers when the only gateway is skipped for a requirement (src/charges/orchestrator.ts SKIP_STATUS). */
const SKIP_ANSWER = (reason: ChargeRequirement['reason']): [string, number] =>
  reason === 'MISSING_PAYER_DATA' ? ['VALIDATION_ERROR', 400] : ['GATEWAY_UNSUPPORTED_OPERATION', 422];

const calls = async (gateway: string) => (await e2e.control.requests(gateway)).length;

for (const g of gateways()) {
  const adapter = g.adapter;
  describe(`${g.id}: charges by capability`, () => {
    for (const method of PAYMENT_METHODS) {
      const capability = adapter.capabilities[method].charge;

      if (!supported(capability)) {
        test(`${g.id} ${method}: charge is 422 GATEWAY_UNSUPPORTED_OPERATION without calling ${g.id}`, async () => {
          const { key, body } = await prepareCharge(e2e, g, chargeRecipe(adapter, method));
          const before = await calls(g.id);
          expectError(await e2e.call('POST', '/api/v1/charges', { key, body }), 'GATEWAY_UNSUPPORTED_OPERATION', 422);
          assert.equal(await calls(g.id), before, 'no call reached the gateway');
        });
        continue;
      }

      test(`${g.id} ${method}: charge ${isCard(method) ? 'approves' : 'is pending, then paid by the payer'} with normalized fields`, async () => {
        const { key, body } = await prepareCharge(e2e, g, chargeRecipe(adapter, method));
        const since = await calls(g.id);
        const res = await e2e.call('POST', '/api/v1/charges', { key, body });
        assert.equal(res.status, 201, res.text);
        const d = res.body.data;
        assert.equal(res.body.success, true);
        assert.equal(d.status, isCard(method) ? 'approved' : 'pending');
        assert.equal(d.amount, 1999);
        assert.equal(d.paidAmount, isCard(method) ? 1999 : 0);
        assert.equal(d.refundedAmount, 0);
        assert.equal(d.currency, 'BRL');
        assert.equal(d.gateway, g.id);
        assert.equal(d.paymentMethod, method);
        assert.ok(typeof d.externalId === 'string' && d.externalId.length > 0);
        for (const f of FIELDS[method]) assert.ok(typeof d[f] === 'string' && d[f].length > 0, `${f}: ${res.text}`);
        for (const f of [...PIX_FIELDS, ...BOLETO_FIELDS].filter((f) => !FIELDS[method].includes(f))) assert.equal(d[f], undefined, `${f} only for its method`);
        assert.ok(d.gatewayResponse, 'responseFormat full carries the gateway body');
        assert.equal(res.headers['x-rg-gateway'], g.id);
        assert.equal(res.headers['x-rg-fallback-used'], 'false');
        assert.equal(res.headers['x-rg-charge-id'], d.id);
        assert.ok(!JSON.stringify(d).includes(CARD.number), 'the card number never comes back');

        // What really happened at the gateway, in cents whatever its unit, under RouteGate's reference.
        const held = (await e2e.control.ledger(g.id)).filter((c) => c.id === d.externalId);
        assert.equal(held.length, 1, `${g.id} holds the charge ${d.externalId}`);
        assert.equal(held[0].amount, 1999);
        assert.equal(held[0].paymentMethod, method);
        if (held[0].reference !== null) assert.equal(held[0].reference, d.id);
        if (adapter.keepsIdempotencyKeys) {
          const sent = (await e2e.control.requests(g.id)).slice(since).filter((r) => r.method === 'POST');
          assert.ok(sent.some((r) => Object.values(r.headers).some((v) => typeof v === 'string' && v.startsWith(`${d.id}-1`))),
            `${g.id} keeps idempotency keys: the create carries one derived from ${d.id}`);
        }

        if (!paidLater(method)) return;
        await e2e.control.pay(g.id, d.externalId);
        const stale = await e2e.call('GET', `/api/v1/charges/${d.id}`, { key });
        assert.equal(stale.body.data.status, 'pending', 'without refresh the stored state answers');
        const fresh = await e2e.call('GET', `/api/v1/charges/${d.id}?refresh=true`, { key });
        assert.equal(fresh.status, 200, fresh.text);
        assert.equal(fresh.body.data.status, 'approved', fresh.text);
        assert.equal(fresh.body.data.paidAmount, 1999);
        const stored = await e2e.call('GET', `/api/v1/charges/${d.id}`, { key });
        assert.deepEqual(stored.body.data.attempts.map((a: { operation: string }) => a.operation), ['charge', 'retrieve']);
        await assert.rejects(e2e.control.pay(g.id, d.externalId), /409/, 'a paid charge cannot be paid again');
      });

      const needs = needsOf(capability);
      if (needs === 'customerId') {
        test(`${g.id} ${method}: without customerId, the inline payer is registered there first, then charged as that customer (reused by document)`, async () => {
          const recipe = { ...chargeRecipe(adapter, method), customerFirst: false };
          const { key, body } = await prepareCharge(e2e, g, recipe);
          const payer = body.customer as { name?: string; email?: string; document?: string };
          assert.ok(payer?.name && payer.email && payer.document, 'the recipe carries a registrable payer');
          const first = await e2e.call('POST', '/api/v1/charges', { key, body });
          assert.equal(first.status, 201, first.text);
          assert.equal(first.body.data.gateway, g.id);
          const customerId = first.body.data.customerId;
          assert.ok(customerId, 'the charge names the customer it was made with');
          const { store } = e2e.sandbox.app;
          const accountId = (await store.charges.getById(first.body.data.id))!.accountId;
          const registered = async () => (await store.customers.list(accountId, 100)).filter((c) => c.gateway === g.id && c.document === payer.document);
          assert.deepEqual((await registered()).map((c) => c.externalId), [customerId], 'stored as POST /api/v1/customers stores one');
          const second = await e2e.call('POST', '/api/v1/charges', { key, body });
          assert.equal(second.status, 201, second.text);
          assert.equal(second.body.data.customerId, customerId, 'the same document reuses the customer');
          assert.equal((await registered()).length, 1, 'no second customer');
        });

        test(`${g.id} ${method}: without customerId and without a registrable payer (no document) is refused asking for a customer, before any call`, async () => {
          const recipe = { ...chargeRecipe(adapter, method), customerFirst: false };
          const { key, body } = await prepareCharge(e2e, g, recipe);
          delete (body.customer as { document?: string } | undefined)?.document;
          const before = await calls(g.id);
          const res = await e2e.call('POST', '/api/v1/charges', { key, body });
          if (res.status === 400) {
            // The schema itself wants a document for this method without a customerId: that answer comes first.
            expectError(res, 'VALIDATION_ERROR', 400);
            assert.ok(res.body.error.details.errors.some((e: { field: string }) => e.field === 'customerId'), res.text);
          } else {
            expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
            assert.match(res.body.error.message, /customer/);
          }
          assert.equal(await calls(g.id), before);
        });
      }
      if (needs === 'customer') {
        test(`${g.id} ${method}: without the buyer inline is refused before any call`, async () => {
          const { key, body } = await prepareCharge(e2e, g, chargeRecipe(adapter, method));
          delete body.customer;
          const before = await calls(g.id);
          const res = await e2e.call('POST', '/api/v1/charges', { key, body });
          if (res.status === 400) {
            // The schema itself wants a payer for this method (boleto): that answer comes first.
            expectError(res, 'VALIDATION_ERROR', 400);
            assert.ok(res.body.error.details.errors.some((e: { field: string }) => e.field === 'customerId'), res.text);
          } else {
            expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
            assert.match(res.body.error.message, /buyer/);
          }
          assert.equal(await calls(g.id), before);
        });
      }

      for (const { requirement, paths } of chargeRecipe(adapter, method).applied) {
        const [code, status] = SKIP_ANSWER(requirement.reason);
        test(`${g.id} ${method}: without any of ${paths.map(fieldOf).join(', ')} is ${status} ${code} (${requirement.reason}) before any call`, async () => {
          for (const need of paths) {
            const recipe = chargeRecipe(adapter, method);
            // A setting is taken away on the account; a field after the customer (if any) was created with it.
            const settings = { ...recipe.settings };
            if (need.startsWith('setting.')) unfill({}, settings, need);
            const { key, body } = await prepareCharge(e2e, g, { ...recipe, settings });
            if (!need.startsWith('setting.')) unfill(body, settings, need);
            const before = await calls(g.id);
            const res = await e2e.call('POST', '/api/v1/charges', { key, body });
            expectError(res, code, status);
            const fields = (res.body.error.details?.errors ?? []).map((e: { field: string }) => e.field);
            assert.ok(res.body.error.message.includes(fieldOf(need)) || fields.includes(fieldOf(need)), `${need}: ${res.text}`);
            assert.equal(await calls(g.id), before, `${need}: no call reached the gateway`);
          }
        });
      }

      if (!isCard(method)) continue;

      test(`${g.id} ${method}: declines answer 502 GATEWAY_ERROR starting with the decline code, stored as declined`, async () => {
        const recipe = chargeRecipe(adapter, method);
        const { key, body } = await prepareCharge(e2e, g, recipe);
        for (const [number, code] of DECLINES) {
          const res = await e2e.call('POST', '/api/v1/charges', { key, body: { ...body, creditCard: { ...CARD, number } } });
          expectError(res, 'GATEWAY_ERROR', 502);
          assert.equal(res.body.error.gateway, g.id);
          assert.ok(res.body.error.message.startsWith(`${code}: `), `${number}: ${res.body.error.message}`);
          const id = res.headers['x-rg-charge-id'] as string;
          assert.match(id, /^chg_/);
          const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
          assert.equal(stored.body.data.status, 'declined');
          assert.equal(stored.body.data.declineCode, code);
          assert.deepEqual(stored.body.data.attempts.map((a: { outcome: string }) => a.outcome), ['decline']);
        }
      });

      const foreign = ['JPY', 'CHF', 'ARS', 'CLP'].find((c) => !adapter.currencies.includes(c))!;
      test(`${g.id} ${method}: charges in each declared currency (${adapter.currencies.join(', ')}), and ${foreign} is 422 before any call`, async () => {
        const { key, body } = await prepareCharge(e2e, g, chargeRecipe(adapter, method));
        for (const currency of adapter.currencies) {
          const d = await createCharge(e2e, key, { ...body, currency });
          assert.equal(d.currency, currency);
          assert.equal(d.status, 'approved');
        }
        const before = await calls(g.id);
        const res = await e2e.call('POST', '/api/v1/charges', { key, body: { ...body, currency: foreign } });
        expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
        assert.match(res.body.error.message, new RegExp(foreign));
        assert.equal(await calls(g.id), before);
      });
    }

    test(`${g.id}: pix and boleto are BRL only`, async () => {
      for (const method of (['pix', 'boleto'] as const).filter((m) => supported(adapter.capabilities[m].charge))) {
        const { key, body } = await prepareCharge(e2e, g, chargeRecipe(adapter, method));
        expectError(await e2e.call('POST', '/api/v1/charges', { key, body: { ...body, currency: 'USD' } }), 'GATEWAY_UNSUPPORTED_OPERATION', 422);
      }
    });

    test(`${g.id}: rejected stored credentials are GATEWAY_AUTH_ERROR naming ${g.id}, the credential never echoed`, async () => {
      const bad = Object.fromEntries(Object.entries(g.sandboxCredentials).map(([k, v]) => [k, `invalid_${v}`]));
      // The first call this gateway gets: the customer when every charge needs one first, else a charge.
      const method = PAYMENT_METHODS.find((m) => supported(adapter.capabilities[m].charge) && needsOf(adapter.capabilities[m].charge) !== 'customerId');
      const recipe = chargeRecipe(adapter, method ?? PAYMENT_METHODS.find((m) => supported(adapter.capabilities[m].charge))!);
      const key = await e2e.account({ primaryGateway: g.id, gatewayFallbacks: [], ...recipe.settings }, [g.id], { [g.id]: bad });
      const res = method
        ? await e2e.call('POST', '/api/v1/charges', { key, body: recipe.body })
        : await e2e.call('POST', '/api/v1/customers', { key, body: recipe.body.customer });
      expectError(res, 'GATEWAY_AUTH_ERROR', 401);
      assert.equal(res.body.error.gateway, g.id);
      assert.ok(!res.text.includes('invalid_'), 'the credential is not echoed');
    });

    const customers = adapter.capabilities.customer === 'supported';
    test(`${g.id}: customers ${customers ? 'are created at the gateway with an externalId' : 'are 422, no customer resource'}`, async () => {
      const key = await e2e.account({ primaryGateway: g.id, gatewayFallbacks: [] });
      const customer = chargeRecipe(adapter, 'credit_card').body.customer as Record<string, unknown>;
      const before = await calls(g.id);
      const res = await e2e.call('POST', '/api/v1/customers', { key, body: customer });
      if (!customers) {
        expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
        assert.equal(await calls(g.id), before);
        return;
      }
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.gateway, g.id);
      assert.match(res.body.data.id, /^cus_rg_/);
      assert.ok(res.body.data.externalId);
      assert.equal(res.body.data.document, customer.document);
    });
  });
}
