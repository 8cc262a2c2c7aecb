import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, eventually, CUSTOMER } from './helpers/e2e';
import { startReceiver, rgSignatureValid } from './helpers/webhook-receiver';
import { GATEWAY_IDS, type GatewayId } from '../src/gateways/registry-ids';

// Issue 12 item 8, the service's side: the account's webhook URL on every charge where the gateway takes one, and
// `npm run sandbox` wiring every emulator's webhooks to the demo account's receiver, end to end: a pix paid at each
// gateway's emulator reaches the receiver, is verified, updates the charge, is listed, and is forwarded signed.

const PIX = { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } };

describe('charges carry the account\'s webhook URL where the gateway takes one per charge', { timeout: 60_000 }, () => {
  test('Mercado Pago notification_url and PagBank notification_urls, as the account\'s webhookUrls show them', async () => {
    const e2e = await startE2E({ ROUTEGATE_PUBLIC_URL: 'https://rg.example.com' });
    try {
      const key = await e2e.account({ primaryGateway: 'mercadopago' });
      const me = await e2e.call('GET', '/api/v1/clients/me', { key });
      const urls = me.body.data.webhookUrls as Record<GatewayId, string>;
      assert.match(urls.mercadopago, /^https:\/\/rg\.example\.com\/api\/v1\/webhooks\/mercadopago\/wh_/);
      for (const paymentMethod of ['pix', 'credit_card'] as const) {
        const body = paymentMethod === 'pix' ? PIX : { ...PIX, paymentMethod, pix: undefined, creditCard: { number: '4235647728025682', holderName: 'APRO', expMonth: 11, expYear: 2030, cvv: '123' } };
        const res = await e2e.call('POST', '/api/v1/charges', { key, body });
        assert.equal(res.status, 201, res.text);
        const sent = (await e2e.control.requests('mercadopago')).filter((r) => r.method === 'POST' && r.path === '/v1/payments').at(-1)!;
        assert.equal((sent.body as { notification_url?: string }).notification_url, `${urls.mercadopago}?source_news=webhooks`, paymentMethod);
      }
      const pagbankKey = await e2e.account({ primaryGateway: 'pagbank' });
      const pagbankUrls = (await e2e.call('GET', '/api/v1/clients/me', { key: pagbankKey })).body.data.webhookUrls as Record<GatewayId, string>;
      const res = await e2e.call('POST', '/api/v1/charges', { key: pagbankKey, body: PIX });
      assert.equal(res.status, 201, res.text);
      const order = (await e2e.control.lastRequest('pagbank'))!.body as { notification_urls?: string[] };
      assert.deepEqual(order.notification_urls, [pagbankUrls.pagbank]);
      // Once paid, the emulator notifies exactly there (this host does not resolve here, so the attempts fail).
      await e2e.control.pay('pagbank', res.body.data.externalId);
      const record = await e2e.control.webhooks('pagbank');
      assert.deepEqual([...new Set(record.map((d) => d.url))], [pagbankUrls.pagbank]);
    } finally {
      await e2e.close();
    }
  });
});

describe('npm run sandbox wires the emulators\' webhooks to the demo account', { timeout: 120_000 }, () => {
  test('a pix paid through the control API at each of the five gateways reaches the receiver, verified; the charge is approved, the event listed and forwarded signed to a local URL', async (t) => {
    const e2e = await startE2E({}, undefined, { webhooks: true });
    const backend = await startReceiver();
    t.after(async () => {
      await backend.close();
      await e2e.close();
    });
    const { sandbox } = e2e;
    const key = sandbox.account.apiKey;
    const token = (await sandbox.app.store.accounts.get(sandbox.account.id))!.webhookToken;
    const receiverUrl = (g: string) => `${sandbox.url}/api/v1/webhooks/${g}/${token}`;
    const registered = await fetch(`${sandbox.emulators.url}/__control/webhooks`).then((r) => r.json()) as { endpoints: Array<{ gateway: string; url: string }> };
    assert.deepEqual(registered.endpoints.map((e) => [e.gateway, e.url]).sort(), GATEWAY_IDS.map((g) => [g, receiverUrl(g)]).sort());
    // The demo account's signing secret is the one start-up shows; the forward URL is set as a merchant sets it.
    assert.match(sandbox.account.webhookSigningSecret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const patched = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { webhookForwardUrl: backend.url } });
    assert.equal(patched.status, 200, patched.text);
    // Per-charge notification URLs (where a gateway takes one) name the service as it listens, like the endpoints.
    const me = (await e2e.call('GET', '/api/v1/clients/me', { key })).body.data;
    for (const g of GATEWAY_IDS) assert.equal(me.webhookUrls[g], receiverUrl(g));

    for (const gateway of GATEWAY_IDS) {
      let body: Record<string, unknown> = { ...PIX, gateway };
      // A gateway whose pix needs a customer made at it first gets one (through RouteGate, as a merchant does).
      const customer = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER, gateway } });
      if (customer.status === 201) body = { ...body, customerId: customer.body.data.externalId };
      const created = await e2e.call('POST', '/api/v1/charges', { key, body });
      assert.equal(created.status, 201, `${gateway}: ${created.text}`);
      const charge = created.body.data as { id: string; gateway: string; externalId: string; status: string; amount: number };
      assert.equal(charge.gateway, gateway, `${gateway} took the charge itself`);
      assert.equal(charge.status, 'pending');
      await e2e.control.pay(gateway, charge.externalId);

      // The backend gets the approval, forwarded by the service once its receiver took the gateway's webhook.
      const hits = await backend.until((all) => all.some((h) => h.body?.data?.chargeId === charge.id));
      const hit = hits.find((h) => h.body?.data?.chargeId === charge.id)!;
      assert.equal(hit.body.type, 'payment.approved', gateway);
      // Every webhook the emulator sent went to the demo account's receiver URL (the registered endpoint, or the
      // URL the charge carried) and was answered 200 (events RouteGate does not forward are acknowledged too).
      const sent = await eventually(async () => {
        const record = await e2e.control.webhooks(gateway);
        return record.length > 0 && record.every((d) => d.state !== 'pending') && record;
      });
      assert.deepEqual(sent.map((d) => [d.url.split('?')[0], d.state, d.attempts.map((a) => a.status)]), sent.map(() => [receiverUrl(gateway), 'delivered', [200]]), gateway);
      assert.equal(hit.body.gateway, gateway);
      assert.equal(hit.body.data.amount, charge.amount);
      assert.ok(rgSignatureValid(hit.headers['x-rg-signature'], hit.raw, sandbox.account.webhookSigningSecret), `${gateway}: X-RG-Signature verifies with the demo account's secret`);
      assert.ok(!rgSignatureValid(hit.headers['x-rg-signature'], hit.raw, 'whsec_not-the-secret'), 'and with nothing else');
      assert.equal(hit.headers['webhook-id'], hit.body.id);

      // Stored as verified (the demo account holds each gateway's webhookSecret), listed, charge approved.
      const listed = (await e2e.call('GET', '/api/v1/events?limit=100', { key })).body.data.filter((e: any) => e.chargeId === charge.id);
      assert.ok(listed.some((e: any) => e.id === hit.body.id), `${gateway}: the forwarded event is listed`);
      for (const e of listed) {
        assert.equal(e.verified, true, `${gateway}: ${e.id} was verified, not accepted without a secret`);
        assert.equal(e.gateway, gateway);
      }
      const event = (await e2e.call('GET', `/api/v1/events/${hit.body.id}`, { key })).body.data;
      assert.equal(event.verified, true);
      assert.deepEqual(event.deliveries.map((d: any) => d.status), ['delivered']);
      const stored = (await e2e.call('GET', `/api/v1/charges/${charge.id}`, { key })).body.data;
      assert.equal(stored.status, 'approved', `${gateway}: the stored charge follows the event (no refresh asked)`);
    }
  });
});
