import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, CARD, DECLINES, THREE_DS, type E2E } from '../helpers/e2e';
import { ADAPTERS } from '../../src/gateways/registry';
import { expectError } from '../helper';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { EXPECTATIONS } from './expectations';

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const PIX_FIELDS = ['pixQrCode', 'pixCopyPaste'];
const BOLETO_FIELDS = ['boletoUrl', 'boletoBarcode'];
const dueDate = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

/** The single create call the emulator of `gateway` received since `since` requests. */
async function createCall(gateway: GatewayId, since: number) {
  const list = (await e2e.control.requests(gateway)).slice(since);
  const creates = list.filter((r) => r.method === 'POST' && EXPECTATIONS[gateway].createPath.test(r.path));
  assert.equal(creates.length, 1, `${gateway}: expected one create call, got ${list.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  return creates[0];
}

for (const gateway of GATEWAY_IDS) {
  const expect = EXPECTATIONS[gateway];
  describe(`${gateway}: charges end to end`, () => {
    let key: string;
    let customerId: string | undefined;
    const charge = (paymentMethod: string, extra: Record<string, unknown> = {}) => ({
      gateway, paymentMethod, amount: 1999, currency: 'BRL', description: 'Pedido 1001', customer: CUSTOMER,
      ...(customerId ? { customerId } : {}),
      ...(paymentMethod.endsWith('_card') ? { creditCard: CARD } : {}),
      ...(paymentMethod === 'debit_card' ? { debitCard: { authentication: THREE_DS } } : {}),
      ...(paymentMethod === 'pix' ? { pix: { expiresInSeconds: 3600 } } : {}),
      ...(paymentMethod === 'boleto' ? { boleto: { dueDate: dueDate(), instructions: 'Não receber após o vencimento' } } : {}),
      ...extra,
    });
    const post = (body: unknown, headers: Record<string, string> = {}) => e2e.call('POST', '/api/v1/charges', { key, body, headers });

    before(async () => {
      key = e2e.account({ gatewayFallbacks: [] });
      if (expect.needsCustomer) {
        const res = await e2e.call('POST', '/api/v1/customers', { key, body: { gateway, ...CUSTOMER } });
        assert.equal(res.status, 201, res.text);
        customerId = res.body.data.externalId;
      }
    });

    if (expect.needsCustomer) {
      test(`${gateway} without customerId is 422 GATEWAY_UNSUPPORTED_OPERATION asking for a customer`, async () => {
        const body = charge('pix');
        delete (body as Record<string, unknown>).customerId;
        const res = await post(body);
        expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
        assert.match(res.body.error.message, /customer/);
      });
    }

    for (const method of (['credit_card', 'debit_card'] as const).filter((m) => ADAPTERS[gateway].capabilities[m].charge !== 'unsupported')) {
      test(`${gateway} ${method} charge approves with normalized fields and the amount sent in ${gateway}'s unit`, async () => {
        const since = (await e2e.control.requests(gateway)).length;
        const res = await post(charge(method));
        assert.equal(res.status, 201, res.text);
        const d = res.body.data;
        assert.equal(res.body.success, true);
        assert.equal(d.status, 'approved');
        assert.equal(d.amount, 1999);
        assert.equal(d.paidAmount, 1999);
        assert.equal(d.refundedAmount, 0);
        assert.equal(d.currency, 'BRL');
        assert.equal(d.gateway, gateway);
        assert.equal(d.paymentMethod, method);
        assert.equal(typeof d.externalId, 'string');
        assert.ok(d.externalId.length > 0);
        for (const f of [...PIX_FIELDS, ...BOLETO_FIELDS]) assert.equal(d[f], undefined, `${f} only for its method`);
        assert.equal(d.gatewayFallbackUsed, undefined);
        assert.ok(d.gatewayResponse, 'responseFormat full carries the gateway body');
        assert.equal(res.headers['x-rg-gateway'], gateway);
        assert.equal(res.headers['x-rg-fallback-used'], 'false');
        assert.equal(res.headers['x-rg-charge-id'], d.id);
        const sent = await createCall(gateway, since);
        assert.equal(expect.sentCents(sent), 1999);
        if (expect.idempotencyHeader) assert.match(String(sent.headers[expect.idempotencyHeader]), new RegExp(`^${d.id}-1`));
        assert.ok(!JSON.stringify(d).includes(CARD.number), 'the card number never comes back');
      });
    }

    test(`${gateway} pix charge is pending with QR code and copy-paste, no boleto fields`, async () => {
      const res = await post(charge('pix'));
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.equal(d.status, 'pending');
      assert.equal(d.amount, 1999);
      assert.equal(d.paidAmount, 0);
      for (const f of PIX_FIELDS) assert.ok(typeof d[f] === 'string' && d[f].length > 0, `${f}: ${res.text}`);
      for (const f of BOLETO_FIELDS) assert.equal(d[f], undefined);
    });

    test(`${gateway} boleto charge is pending with URL and barcode, no pix fields`, async () => {
      const res = await post(charge('boleto'));
      assert.equal(res.status, 201, res.text);
      const d = res.body.data;
      assert.equal(d.status, 'pending');
      for (const f of BOLETO_FIELDS) assert.ok(typeof d[f] === 'string' && d[f].length > 0, `${f}: ${res.text}`);
      for (const f of PIX_FIELDS) assert.equal(d[f], undefined);
    });

    test(`${gateway} declines answer 502 GATEWAY_ERROR starting with the decline code and store the charge as declined`, async () => {
      for (const [number, code] of DECLINES) {
        const res = await post(charge('credit_card', { creditCard: { ...CARD, number } }));
        expectError(res, 'GATEWAY_ERROR', 502);
        assert.equal(res.body.error.gateway, gateway);
        assert.ok(res.body.error.message.startsWith(`${code}: `), `${number}: ${res.body.error.message}`);
        const id = res.headers['x-rg-charge-id'] as string;
        assert.match(id, /^chg_/);
        assert.equal(res.headers['x-rg-gateway'], gateway);
        const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
        assert.equal(stored.body.data.status, 'declined');
        assert.equal(stored.body.data.declineCode, code);
        assert.equal(stored.body.data.attempts.length, 1);
        assert.equal(stored.body.data.attempts[0].outcome, 'decline');
      }
    });

    test(`${gateway} pre-authorization is approved uncaptured, then captured`, async () => {
      const res = await post(charge('credit_card', { capture: false }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.status, 'approved');
      assert.equal(res.body.data.captured, false);
      const cap = await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/capture`, { key, body: {} });
      assert.equal(cap.status, 200, cap.text);
      assert.equal(cap.body.data.status, 'approved');
      assert.equal(cap.body.data.captured, true);
      assert.equal(cap.body.data.paidAmount, 1999);
      const again = await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/capture`, { key, body: {} });
      expectError(again, 'VALIDATION_ERROR', 400);
    });

    test(`${gateway} pre-authorization can be cancelled`, async () => {
      const res = await post(charge('credit_card', { capture: false }));
      assert.equal(res.status, 201, res.text);
      const cancel = await e2e.call('POST', `/api/v1/charges/${res.body.data.id}/cancel`, { key });
      assert.equal(cancel.status, 200, cancel.text);
      assert.equal(cancel.body.data.status, 'cancelled');
    });

    test(`${gateway} partial then full refund: refundedAmount and status follow`, async () => {
      const res = await post(charge('credit_card'));
      const id = res.body.data.id;
      const partial = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 500 } });
      assert.equal(partial.status, 201, partial.text);
      assert.equal(partial.body.data.status, 'approved');
      assert.equal(partial.body.data.refundedAmount, 500);
      assert.equal(typeof partial.body.data.refund, 'object', 'the refund as the gateway recorded it');
      const over = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 1500 } });
      expectError(over, 'VALIDATION_ERROR', 400);
      const rest = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: {} });
      assert.equal(rest.status, 201, rest.text);
      assert.equal(rest.body.data.status, 'refunded');
      assert.equal(rest.body.data.refundedAmount, 1999);
      const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
      assert.deepEqual(stored.body.data.attempts.map((a: { operation: string }) => a.operation), ['charge', 'refund', 'refund']);
      const refundIds = stored.body.data.attempts.slice(1).map((a: { externalId?: string }) => a.externalId);
      assert.ok(refundIds.every((r: unknown) => typeof r === 'string' && r.length > 0), `refund ids stored on the attempts: ${refundIds}`);
    });

    test(`${gateway} rejecting the stored credentials is GATEWAY_AUTH_ERROR with the gateway's status`, async () => {
      const bad = Object.fromEntries(Object.entries((await import('../../src/sandbox/index')).SANDBOX_CREDENTIALS[gateway]).map(([k, v]) => [k, `invalid_${v}`]));
      const badKey = e2e.account({ gatewayFallbacks: [] }, [gateway], { [gateway]: bad });
      const body = charge('pix');
      if (expect.needsCustomer) delete (body as Record<string, unknown>).customerId;
      const res = await e2e.call('POST', expect.needsCustomer ? '/api/v1/customers' : '/api/v1/charges', {
        key: badKey, body: expect.needsCustomer ? { gateway, ...CUSTOMER } : body,
      });
      expectError(res, 'GATEWAY_AUTH_ERROR', expect.authStatus);
      assert.equal(res.body.error.gateway, gateway);
      assert.ok(!res.text.includes('invalid_'), 'the credential is not echoed');
    });

    test(`${gateway} customers: ${expect.customers ? 'created at the gateway with an externalId' : '422, no customer resource'}`, async () => {
      const res = await e2e.call('POST', '/api/v1/customers', { key, body: { gateway, ...CUSTOMER } });
      if (!expect.customers) {
        expectError(res, 'GATEWAY_UNSUPPORTED_OPERATION', 422);
        return;
      }
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.gateway, gateway);
      assert.match(res.body.data.id, /^cus_rg_/);
      assert.ok(res.body.data.externalId);
      assert.equal(res.body.data.document, CUSTOMER.document);
    });
  });
}
