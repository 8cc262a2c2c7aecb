import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER } from './helpers/e2e';
import { GATEWAY_IDS, type GatewayId } from '../src/gateways/registry-ids';

// Issue 12 item 8, the service's side: the account's webhook URL on every charge where the gateway takes one, and
// `npm run sandbox` pointing every emulator's webhooks at the demo account's receiver.

const PIX = { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } };

describe('charges carry the account\'s webhook URL where the gateway takes one per charge', { timeout: 60_000 }, () => {
  test('Mercado Pago notification_url and PagBank notification_urls, as the account\'s webhookUrls show them', async () => {
    const e2e = await startE2E({ ROUTEGATE_PUBLIC_URL: 'https://rg.example.com' });
    try {
      const key = e2e.account({ primaryGateway: 'mercadopago' });
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
      const pagbankKey = e2e.account({ primaryGateway: 'pagbank' });
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

describe('npm run sandbox wires the emulators\' webhooks to the demo account', { timeout: 60_000 }, () => {
  test('every gateway posts to the service\'s per-account URL; a pix paid through the control API reaches it', async () => {
    const e2e = await startE2E({}, undefined, { webhooks: true });
    try {
      const { sandbox } = e2e;
      const token = sandbox.app.store.accounts.get(sandbox.account.id)!.webhookToken;
      const registered = await fetch(`${sandbox.emulators.url}/__control/webhooks`).then((r) => r.json()) as { endpoints: Array<{ gateway: string; url: string }> };
      assert.deepEqual(
        registered.endpoints.map((e) => [e.gateway, e.url]).sort(),
        GATEWAY_IDS.map((g) => [g, `${sandbox.url}/api/v1/webhooks/${g}/${token}`]).sort(),
      );
      const created = await e2e.call('POST', '/api/v1/charges', { key: sandbox.account.apiKey, body: PIX });
      assert.equal(created.status, 201, created.text);
      const { gateway, externalId } = created.body.data as { gateway: GatewayId; externalId: string };
      await e2e.control.pay(gateway, externalId);
      // Reaching the receiver is what is asserted: the service answered (whatever it answered) at that URL.
      for (;;) {
        const record = await e2e.control.webhooks(gateway);
        const reached = record.filter((d) => d.attempts.some((a) => a.status !== null));
        if (reached.length > 0) {
          assert.ok(reached.every((d) => d.url === `${sandbox.url}/api/v1/webhooks/${gateway}/${token}`));
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await e2e.close();
    }
  });
});
