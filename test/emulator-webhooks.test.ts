import { describe, test, afterEach, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, createPublicKey, verify, timingSafeEqual } from 'node:crypto';
import { request } from 'undici';
import { useGatewayHarness } from './helpers/gateway-context';
import { chargeInput, sandboxContext } from './helpers/charge-inputs';
import { startReceiver, type Hit, type Receiver } from './helpers/webhook-receiver';
import { ADAPTERS } from '../src/gateways/registry';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import type { ChargeOutcome, GatewayId, PaymentMethod } from '../src/gateways/types';

// Issue 12 item 8: the emulators send their gateway's real webhooks, signed as the gateway signs, to a real
// receiver; each signature is recomputed here from the gateway's notes, independently of the emulator's code.

const h = useGatewayHarness();
let receiver: Receiver;
beforeEach(async () => {
  await h.control.webhookTimeScale(1e-6); // real schedules span hours or days: here an hour lasts 3.6 ms
  await h.control.clearWebhooks();
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const hmacHex = (secret: string, message: string) => createHmac('sha256', secret).update(message, 'utf8').digest('hex');
const ref = (out: ChargeOutcome, paymentMethod: PaymentMethod) => ({
  externalId: out.normalized.externalId, paymentMethod, amount: out.normalized.amount, refs: out.normalized.refs,
});
const header = (hit: Hit, name: string) => String(hit.headers[name] ?? '');

async function charge(gateway: GatewayId, paymentMethod: PaymentMethod, over: Parameters<typeof chargeInput>[3] = {}, ctx = sandboxContext(h, gateway)) {
  const out = await ADAPTERS[gateway].createCharge(ctx, await chargeInput(h, gateway, paymentMethod, over));
  return { out, ref: ref(out, paymentMethod), chargeId: ctx.chargeId };
}

/** The record once `count` deliveries of the gateway are over (delivered, or failed after the last retry). */
async function settled(gateway: GatewayId, count: number) {
  for (;;) {
    const record = await h.control.webhooks(gateway);
    if (record.length >= count && record.every((d) => d.state !== 'pending')) return record;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// A safety net for a webhook that never comes (waits are on events, never on the clock).
const OPTS = { timeout: 30_000 };

describe('Stripe: Event objects signed Stripe-Signature t=,v1=', OPTS, () => {
  const SECRET = 'whsec_test_endpoint_secret_1';
  /** stripe.md section 7, as stripe-node verifies: every v1 against HMAC(secret, `${t}.${raw}`). */
  function stripeSignatureValid(hit: Hit, secret: string): boolean {
    let t = -1;
    const v1: string[] = [];
    for (const part of header(hit, 'stripe-signature').split(',')) {
      const [k, v] = part.split('=');
      if (k === 't') t = parseInt(v, 10);
      else if (k === 'v1') v1.push(v);
    }
    const expected = hmacHex(secret, `${t}.${hit.raw}`);
    return t > 0 && v1.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), Buffer.from(expected)));
  }
  const types = (hits: Hit[]) => hits.map((x) => x.body.type);

  test('a pix paid through the control API: payment_intent.succeeded with the intent, pretty-printed and signed', async () => {
    await h.control.registerWebhook('stripe', { url: receiver.url, secret: SECRET });
    const { out, chargeId } = await charge('stripe', 'pix');
    await receiver.until((hits) => types(hits).includes('payment_intent.requires_action'));
    await h.control.pay('stripe', out.normalized.externalId);
    const hits = await receiver.until((all) => types(all).includes('payment_intent.succeeded'));
    const hit = hits.find((x) => x.body.type === 'payment_intent.succeeded')!;
    assert.ok(stripeSignatureValid(hit, SECRET), header(hit, 'stripe-signature'));
    assert.ok(!stripeSignatureValid(hit, 'whsec_other'), 'a signature that any secret would pass proves nothing');
    assert.match(hit.raw, /^\{\n {2}"id": "evt_/, 'pretty-printed as Stripe sends it');
    assert.equal(header(hit, 'content-type'), 'application/json; charset=utf-8');
    assert.equal(hit.body.object, 'event');
    assert.equal(hit.body.data.object.id, out.normalized.externalId);
    assert.equal(hit.body.data.object.status, 'succeeded');
    assert.equal(hit.body.data.object.metadata.rg_charge_id, chargeId);
    assert.deepEqual(types(hits).filter((t) => t !== 'payment_intent.requires_action'), ['charge.succeeded', 'payment_intent.succeeded']);
  });

  test('a card pre-authorization captured, then refunded; a decline is payment_intent.payment_failed', async () => {
    await h.control.registerWebhook('stripe', { url: receiver.url, secret: SECRET });
    const { ref: card } = await charge('stripe', 'credit_card', { capture: false });
    await receiver.until((hits) => types(hits).includes('payment_intent.amount_capturable_updated'));
    await ADAPTERS.stripe.captureCharge(sandboxContext(h, 'stripe'), card);
    await receiver.until((hits) => types(hits).includes('payment_intent.succeeded'));
    await ADAPTERS.stripe.refundCharge(sandboxContext(h, 'stripe'), card, 500);
    const hits = await receiver.until((all) => types(all).includes('refund.created'));
    assert.deepEqual(types(hits), [
      'charge.succeeded', 'payment_intent.amount_capturable_updated', 'charge.captured', 'payment_intent.succeeded', 'charge.refunded', 'refund.created',
    ]);
    const refunded = hits.find((x) => x.body.type === 'charge.refunded')!;
    assert.equal(refunded.body.data.object.object, 'charge');
    assert.equal(refunded.body.data.object.amount_refunded, 500);
    assert.equal(hits.find((x) => x.body.type === 'refund.created')!.body.data.object.amount, 500);
    assert.ok(hits.every((x) => stripeSignatureValid(x, SECRET)));

    receiver.hits.length = 0;
    await assert.rejects(ADAPTERS.stripe.createCharge(sandboxContext(h, 'stripe'), await chargeInput(h, 'stripe', 'credit_card', {
      creditCard: { number: '4000000000009995', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' },
    })), /insufficient funds/);
    const declined = await receiver.until((all) => types(all).includes('payment_intent.payment_failed'));
    assert.deepEqual(types(declined), ['charge.failed', 'payment_intent.payment_failed']);
    assert.equal(declined[1].body.data.object.last_payment_error.decline_code, 'insufficient_funds');
  });
});

describe('Pagar.me: hook events with X-Webhook-Asymmetric-Signature (RS256, JWKS) and X-Hub-Signature', OPTS, () => {
  const SECRET = 'pagarme_hmac_test_secret';

  test('a pix paid: order.created, then charge.paid and order.paid; both signatures check out', async () => {
    await h.control.registerWebhook('pagarme', { url: receiver.url, secret: SECRET });
    const { out, chargeId } = await charge('pagarme', 'pix');
    await h.control.pay('pagarme', out.normalized.externalId);
    // Each event is its own delivery, sent concurrently (Pagar.me does not promise an order either): wait for all.
    const hits = await receiver.until((all) => ['order.created', 'charge.paid', 'order.paid'].every((t) => all.some((x) => x.body.type === t)));
    assert.deepEqual(hits.map((x) => x.body.type).sort(), ['charge.paid', 'order.created', 'order.paid']);
    const jwks = await (await request(`${h.emulators.gatewayUrl('pagarme')}/.well-known/jwks.json`)).body.json() as { keys: any[] };
    for (const hit of hits) {
      assert.equal(header(hit, 'x-hub-signature'), `sha256=${hmacHex(SECRET, hit.raw)}`);
      // pagarme.md section 7: split on ";", trim, split each on the first "=".
      const parts = Object.fromEntries(header(hit, 'x-webhook-asymmetric-signature').split(';').map((p) => {
        const at = p.trim().indexOf('=');
        return [p.trim().slice(0, at), p.trim().slice(at + 1)];
      }));
      assert.equal(parts.alg, 'RS256');
      const jwk = jwks.keys.find((k) => k.kid === parts.kid);
      assert.ok(jwk, 'the kid is in the JWKS');
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      assert.ok(verify('sha256', Buffer.from(hit.raw), key, Buffer.from(parts.signature, 'base64url')));
      assert.ok(!verify('sha256', Buffer.from(`${hit.raw} `), key, Buffer.from(parts.signature, 'base64url')));
      assert.match(hit.body.id, /^hook_/);
    }
    const byType = (t: string) => hits.find((x) => x.body.type === t)!;
    const [chargePaid, orderPaid] = [byType('charge.paid'), byType('order.paid')];
    assert.equal(orderPaid.body.data.id, out.normalized.externalId);
    assert.equal(orderPaid.body.data.code, chargeId);
    assert.equal(orderPaid.body.data.status, 'paid');
    assert.equal(chargePaid.body.data.status, 'paid');
    assert.equal(chargePaid.body.data.order.id, out.normalized.externalId);
  });

  test('a card refunded in full: charge.refunded and order.canceled', async () => {
    await h.control.registerWebhook('pagarme', { url: receiver.url, secret: SECRET });
    const { ref: card } = await charge('pagarme', 'credit_card');
    await ADAPTERS.pagarme.refundCharge(sandboxContext(h, 'pagarme'), card);
    // Concurrent deliveries: wait for every event, whichever arrives first.
    const hits = await receiver.until((all) => ['order.created', 'charge.paid', 'order.paid', 'charge.refunded', 'order.canceled'].every((t) => all.some((x) => x.body.type === t)));
    assert.deepEqual(hits.map((x) => x.body.type).sort(), ['charge.paid', 'charge.refunded', 'order.canceled', 'order.created', 'order.paid']);
    assert.equal(hits.find((x) => x.body.type === 'charge.refunded')!.body.data.last_transaction.status, 'refunded');
  });
});

describe('Asaas: payment events with the configured token in asaas-access-token', OPTS, () => {
  test('a pix paid: PAYMENT_CREATED then PAYMENT_RECEIVED, with the sandbox credential\'s token when none was set', async () => {
    await h.control.registerWebhook('asaas', { url: receiver.url });
    const { out, chargeId } = await charge('asaas', 'pix');
    await h.control.pay('asaas', out.normalized.externalId);
    const hits = await receiver.until((all) => all.some((x) => x.body.event === 'PAYMENT_RECEIVED'));
    assert.deepEqual(hits.map((x) => x.body.event), ['PAYMENT_CREATED', 'PAYMENT_RECEIVED']);
    for (const hit of hits) assert.equal(header(hit, 'asaas-access-token'), SANDBOX_CREDENTIALS.asaas.webhookSecret);
    const received = hits[1].body;
    assert.match(received.id, /^evt_[0-9a-f]{32}&\d+$/);
    assert.match(received.dateCreated, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(received.payment.id, out.normalized.externalId);
    assert.equal(received.payment.status, 'RECEIVED');
    assert.equal(received.payment.externalReference, chargeId);
    const record = await settled('asaas', 2);
    assert.ok(record.every((d) => d.attempts.length > 0 && d.attempts.every((a) => a.headers['asaas-access-token'] === '[secret]')), 'the record never shows the token');
  });

  test('a card confirmed, then refunded; only HTTP 200 counts as delivered, so a 201 is retried', async () => {
    await h.control.registerWebhook('asaas', { url: receiver.url, secret: 'asaas_token_configured_in_the_panel_123' });
    receiver.answers.push(201, 500);
    const { ref: card } = await charge('asaas', 'credit_card');
    await ADAPTERS.asaas.refundCharge(sandboxContext(h, 'asaas'), card);
    const record = await settled('asaas', 3);
    assert.deepEqual(record.map((d) => d.event), ['PAYMENT_CREATED', 'PAYMENT_CONFIRMED', 'PAYMENT_REFUNDED']);
    assert.ok(record.every((d) => d.state === 'delivered'), 'each event reached a 200 in the end');
    const statuses = record.flatMap((d) => d.attempts.map((a) => a.status));
    assert.deepEqual(statuses.filter((s) => s !== 200).sort(), [201, 500], `the 201 and the 500 were each retried: ${statuses}`);
    assert.equal(receiver.hits.length, 5);
    assert.ok(receiver.hits.every((x) => header(x, 'asaas-access-token') === 'asaas_token_configured_in_the_panel_123'));
    const refunded = receiver.hits.find((x) => x.body.event === 'PAYMENT_REFUNDED')!;
    assert.equal(refunded.body.payment.status, 'REFUNDED');
    assert.equal(refunded.body.payment.id, card.externalId);
  });
});

describe('Mercado Pago: {action, data.id} with x-signature over the manifest, re-signed on every retry', OPTS, () => {
  const SECRET = 'mp_signature_test_secret';
  /** mercadopago.md section 7: data.id from the query string, lowercased; x-request-id; ts. */
  function mpSignatureValid(hit: Hit, secret: string): boolean {
    const kv = Object.fromEntries(header(hit, 'x-signature').split(',').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
    const dataId = new URL(hit.path, 'http://x').searchParams.get('data.id') ?? '';
    const manifest = `id:${dataId.toLowerCase()};request-id:${header(hit, 'x-request-id')};ts:${kv.ts};`;
    return Boolean(kv.ts) && kv.v1 === hmacHex(secret, manifest);
  }

  test('a pix paid through the control API: payment.created, then payment.updated, to the registered URL', async () => {
    await h.control.registerWebhook('mercadopago', { url: receiver.url, secret: SECRET });
    const { out } = await charge('mercadopago', 'pix');
    await h.control.pay('mercadopago', out.normalized.externalId);
    const hits = await receiver.until((all) => all.some((x) => x.body.action === 'payment.updated'));
    assert.deepEqual(hits.map((x) => x.body.action), ['payment.created', 'payment.updated']);
    for (const hit of hits) {
      assert.ok(mpSignatureValid(hit, SECRET), header(hit, 'x-signature'));
      assert.ok(!mpSignatureValid(hit, 'another'));
      assert.equal(hit.path, `/hooks?data.id=${out.normalized.externalId}&type=payment`);
      assert.deepEqual(hit.body.data, { id: out.normalized.externalId });
      assert.equal(hit.body.type, 'payment');
      assert.equal(hit.body.api_version, 'v1');
      assert.equal(hit.body.live_mode, false);
    }
  });

  test('a receiver answering 500 gets retries, each with a new x-request-id, ts and X-Retry, each validly signed', async () => {
    await h.control.registerWebhook('mercadopago', { url: receiver.url, secret: SECRET });
    receiver.answers.push(500, 500);
    const { ref: card } = await charge('mercadopago', 'credit_card');
    const hits = await receiver.until((all) => all.length >= 3);
    assert.deepEqual(hits.map((x) => header(x, 'x-retry')), ['0', '1', '2']);
    assert.equal(new Set(hits.map((x) => header(x, 'x-request-id'))).size, 3);
    assert.equal(new Set(hits.map((x) => x.body.id)).size, 3, 'a new notification id on each retry');
    assert.ok(hits.every((x) => mpSignatureValid(x, SECRET)));
    const [delivery] = await settled('mercadopago', 1);
    assert.equal(delivery.state, 'delivered');
    assert.deepEqual(delivery.attempts.map((a) => a.status), [500, 500, 200]);
    assert.equal(delivery.resource, card.externalId);
  });

  test('a payment that carried notification_url is notified there, not at the registered URL', async () => {
    await h.control.registerWebhook('mercadopago', { url: receiver.url, secret: SECRET });
    const carried = 'https://127.0.0.1:9/mp/hook?source_news=webhooks'; // port 9 (discard): refused at once
    const res = await request(`${h.emulators.gatewayUrl('mercadopago')}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.mercadopago.accessToken}`, 'content-type': 'application/json', 'x-idempotency-key': 'carried-1' },
      body: JSON.stringify({ transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'maria@example.com' }, notification_url: carried }),
    });
    assert.equal(res.statusCode, 201);
    const payment = await res.body.json() as { id: number };
    const record = await settled('mercadopago', 1);
    assert.equal(record.length, 1);
    assert.equal(record[0].url, carried);
    assert.equal(record[0].attempts[0].url, `${carried}&data.id=${payment.id}&type=payment`);
    assert.equal(record[0].state, 'failed');
    assert.equal(record[0].attempts.length, 8, 'Mercado Pago tries 8 times: at once, +15 min, +30 min, +6 h, +48 h, +96 h x3');
    assert.ok(record[0].attempts.every((a) => a.status === null && a.error));
    assert.equal(receiver.hits.length, 0);
  });
});

describe('PagBank: the order (or charge) itself to notification_urls, x-authenticity-token', OPTS, () => {
  const token = SANDBOX_CREDENTIALS.pagbank.token;
  const authentic = (hit: Hit) => header(hit, 'x-authenticity-token') === createHash('sha256').update(`${token}-${hit.raw}`, 'utf8').digest('hex');

  test('a card paid at creation, then refunded: the ORDER, then the CHARGE, to the URL the order carried', async () => {
    const ctx = sandboxContext(h, 'pagbank', { webhookUrl: receiver.url });
    const { out, ref: card } = await charge('pagbank', 'credit_card', {}, ctx);
    await ADAPTERS.pagbank.refundCharge(sandboxContext(h, 'pagbank'), card);
    const hits = await receiver.until((all) => all.length >= 2);
    assert.ok(hits.every(authentic), 'hex SHA-256 of "<token>-<raw body>"');
    assert.ok(!hits.some((x) => x.headers.authorization), 'PagBank sends no Authorization header');
    const [order, refunded] = hits;
    assert.match(order.body.id, /^ORDE_/);
    assert.equal(order.body.reference_id, ctx.chargeId);
    assert.deepEqual(order.body.notification_urls, [receiver.url]);
    assert.equal(order.body.charges[0].status, 'PAID');
    assert.equal(refunded.body.id, out.normalized.externalId);
    assert.equal(refunded.body.status, 'CANCELED');
    assert.equal(refunded.body.amount.summary.refunded, 1999);
  });

  test('a pix: nothing until paid, then the order with its PAID pix charge; a 500 is retried', async () => {
    receiver.answers.push(500);
    const { out } = await charge('pagbank', 'pix', {}, sandboxContext(h, 'pagbank', { webhookUrl: receiver.url }));
    await h.control.pay('pagbank', out.normalized.externalId);
    const hits = await receiver.until((all) => all.length >= 2);
    assert.equal(hits[0].raw, hits[1].raw, 'the same notification again');
    assert.ok(authentic(hits[1]));
    assert.equal(hits[1].body.id, out.normalized.externalId);
    assert.equal(hits[1].body.charges[0].status, 'PAID');
    assert.equal(hits[1].body.charges[0].payment_method.type, 'PIX');
    const [delivery] = await settled('pagbank', 1);
    assert.deepEqual(delivery.attempts.map((a) => a.status), [500, 200]);
  });
});
