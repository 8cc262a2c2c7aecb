import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { ADAPTERS } from '../../src/gateways/registry';
import { GatewayHttp } from '../../src/gateways/http-client';
import { loadMappings } from '../../src/mapping/loader';
import type { CallContext, ChargeRef } from '../../src/gateways/types';
import type { GatewayId } from '../../src/gateways/registry-ids';
import { startWebhookHarness, PIX, type Merchant, type WebhookHarness } from '../helpers/webhook-e2e';
import { CUSTOMER } from '../helpers/e2e';
import {
  asaasEvent, asaasHeaders, mercadopagoHeaders, mercadopagoNotification, pagarmeEvent, pagarmeHeaders, pagbankHeaders, stripeEvent, stripeHeaders,
} from '../helpers/gateway-webhooks';

// Issue 12 item 3: the stored charge follows the gateway's approval and refund events, through the atomic
// per-charge update, and an older event never overwrites a newer state. The charges are made through RouteGate at
// the emulators and paid / refunded there directly (RouteGate is not told), and each notification carries the
// object as the emulator holds it, signed as the real gateway signs.

let h: WebhookHarness;
const http = new GatewayHttp();
const mappings = loadMappings();
before(async () => {
  h = await startWebhookHarness();
});
after(async () => {
  await http.close();
  await h.close();
});

/** The gateway's own view of a charge (read straight from the emulator, so RouteGate's row is untouched). */
function gatewayCtx(gateway: GatewayId): CallContext {
  return {
    gateway, baseUrl: h.e2e.sandbox.emulators.gatewayUrl(gateway), credentials: { ...SANDBOX_CREDENTIALS[gateway] }, http, mappings: mappings.get(gateway)!,
    idempotencyKey: `webhook-test-${Date.now()}-${Math.random()}`, chargeId: 'chg_webhook_test', timeoutMs: 5000, wire: h.e2e.sandbox.app.config.wire,
  };
}

let n = 0;
const id = (p: string) => `${p}${process.pid}_${Date.now()}_${++n}`;

type Notify = (m: Merchant, charge: any, raw: any, phase: 'paid' | 'refunded') => { path: string; body: string; headers: Record<string, string> };

const NOTIFY: Record<GatewayId, Notify> = {
  stripe: (m, _c, pi, phase) => {
    const body = phase === 'paid'
      ? stripeEvent(id('evt_'), 'payment_intent.succeeded', pi)
      : stripeEvent(id('evt_'), 'charge.refunded', { ...pi.latest_charge, payment_intent: pi.latest_charge.payment_intent ?? pi.id, metadata: pi.metadata });
    return { path: m.path('stripe'), body, headers: stripeHeaders(body, SANDBOX_CREDENTIALS.stripe.webhookSecret) };
  },
  pagarme: (m, _c, order, phase) => {
    const body = phase === 'paid'
      ? pagarmeEvent(id('hook_'), 'order.paid', order)
      : pagarmeEvent(id('hook_'), 'charge.refunded', { ...order.charges[0], order: { id: order.id, code: order.code } });
    return { path: m.path('pagarme'), body, headers: pagarmeHeaders(body, SANDBOX_CREDENTIALS.pagarme.webhookSecret) };
  },
  asaas: (m, _c, payment, phase) => {
    const body = asaasEvent(id('evt_'), phase === 'paid' ? 'PAYMENT_RECEIVED' : 'PAYMENT_REFUNDED', payment);
    return { path: m.path('asaas'), body, headers: asaasHeaders(SANDBOX_CREDENTIALS.asaas.webhookSecret) };
  },
  mercadopago: (m, charge) => {
    const body = mercadopagoNotification(charge.externalId);
    return { path: `${m.path('mercadopago')}?data.id=${charge.externalId}&type=payment`, body, headers: mercadopagoHeaders(charge.externalId, SANDBOX_CREDENTIALS.mercadopago.webhookSecret, `req-${++n}`) };
  },
  pagbank: (m, _c, order) => {
    const body = JSON.stringify(order);
    return { path: m.path('pagbank'), body, headers: pagbankHeaders(body, SANDBOX_CREDENTIALS.pagbank.token) };
  },
};

async function stored(m: Merchant, chargeId: string) {
  return (await h.e2e.call('GET', `/api/v1/charges/${chargeId}`, { key: m.apiKey })).body.data;
}

for (const gateway of Object.keys(NOTIFY) as GatewayId[]) {
  test(`${gateway}: a pix paid and then refunded at the gateway: approval and refund events move the stored charge; an older event does not move it back`, async () => {
    const m = await h.merchant();
    let body: Record<string, unknown> = { ...PIX };
    if (gateway === 'asaas') {
      const customer = await h.e2e.call('POST', '/api/v1/customers', { key: m.apiKey, body: { ...CUSTOMER, gateway } });
      body = { ...PIX, customerId: customer.body.data.externalId };
    }
    const charge = await m.charge(gateway, body);
    assert.equal(charge.status, 'pending');
    await h.e2e.control.pay(gateway, charge.externalId);
    const ctx = gatewayCtx(gateway);
    const ref: ChargeRef = { externalId: charge.externalId, paymentMethod: 'pix', amount: charge.amount, refs: charge.refs };
    const read = await ADAPTERS[gateway].retrieveCharge(ctx, ref);
    const paid = read.raw;
    ref.refs = read.normalized.refs;
    assert.equal((await stored(m, charge.id)).status, 'pending', 'RouteGate has not been told yet');

    const approval = NOTIFY[gateway](m, charge, paid, 'paid');
    const res = await m.post(approval.path, approval.body, approval.headers);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.type, 'payment.approved');
    let row = await stored(m, charge.id);
    assert.equal(row.status, 'approved');
    assert.equal(row.paidAmount, charge.amount);
    const forwarded = JSON.parse(h.backend.received.at(-1)!.body);
    assert.equal(forwarded.data.chargeId, charge.id);
    assert.equal(forwarded.data.amount, charge.amount);

    await ADAPTERS[gateway].refundCharge(gatewayCtx(gateway), ref);
    const refunded = (await ADAPTERS[gateway].retrieveCharge(gatewayCtx(gateway), ref)).raw;
    const refund = NOTIFY[gateway](m, charge, refunded, 'refunded');
    const refundRes = await m.post(refund.path, refund.body, refund.headers);
    assert.equal(refundRes.status, 200, refundRes.text);
    assert.equal(refundRes.body.data.type, 'payment.refunded');
    row = await stored(m, charge.id);
    assert.equal(row.status, 'refunded');
    assert.equal(row.refundedAmount, charge.amount);

    if (gateway !== 'mercadopago') {
      // The approval again, as a new delivery arriving late (Stripe does not guarantee order): the charge stays refunded.
      const late = NOTIFY[gateway](m, charge, paid, 'paid');
      const lateRes = await m.post(late.path, late.body, late.headers);
      assert.equal(lateRes.status, 200, lateRes.text);
      row = await stored(m, charge.id);
      assert.equal(row.status, 'refunded');
      assert.equal(row.refundedAmount, charge.amount);
    }
  });
}
