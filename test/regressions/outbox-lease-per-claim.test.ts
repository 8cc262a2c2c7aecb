import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { clock } from '../../src/lib/clock';
import { startWebhookHarness } from '../helpers/webhook-e2e';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';

// Issue 17, found while writing down the outbox's guarantee for several processes: a worker pass took the time
// once, at its start, and leased every delivery it claimed during the pass from that time. After a few slow
// attempts (a backend near ROUTEGATE_WEBHOOK_TIMEOUT_MS), the next delivery was claimed with a lease already
// expired, and another process's worker could claim and send it at the same time. Each claim now leases from the
// time it is made.

test('a worker pass leases each delivery from when it claims it, so a lease is live while its attempt runs', { timeout: 60_000 }, async (t) => {
  const realNow = clock.now;
  // The backend: records, for each request, whether the delivery's lease was live when it arrived; every answer
  // takes 5 s of RouteGate's clock, longer than a lease (2 x 1 s timeout + 1 s).
  let offset = 0;
  let refuse = true;
  const seen: Array<{ eventId: string; leaseLive: boolean }> = [];
  let h: Awaited<ReturnType<typeof startWebhookHarness>> | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (refuse) {
        res.writeHead(503).end();
        return;
      }
      const eventId = String(req.headers['webhook-id']);
      void h!.e2e.sandbox.app.store.query('SELECT lease_expires_at FROM deliveries WHERE event_id = ?', [eventId]).then(([row]) => {
        seen.push({ eventId, leaseLive: Number(row.lease_expires_at) > clock.now() });
        offset += 5_000;
        res.writeHead(200).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h = await startWebhookHarness({ ROUTEGATE_WEBHOOK_TIMEOUT_MS: '1000' });
  t.after(async () => {
    clock.now = realNow;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h!.close();
  });
  const m = await h.merchant({ settings: { webhookForwardUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` } });
  const secret = SANDBOX_CREDENTIALS.stripe.webhookSecret;
  for (const n of [1, 2, 3]) {
    const body = stripeEvent(`evt_lease_${process.pid}_${n}`, 'payment_intent.succeeded', {
      id: `pi_lease_${n}`, object: 'payment_intent', amount: 1000, amount_received: 1000, currency: 'brl', status: 'succeeded', metadata: {},
    });
    assert.equal((await m.post(m.path('stripe'), body, stripeHeaders(body, secret))).status, 502, 'refused: left in the outbox');
  }

  refuse = false;
  const start = Date.now() + 10 * 60_000; // every retry is due
  clock.now = () => start + offset;
  assert.equal(await h.e2e.sandbox.app.webhooks.worker.runDue(clock.now()), 3);
  assert.equal(seen.length, 3);
  assert.deepEqual(seen.map((s) => s.leaseLive), [true, true, true], 'each delivery was held by this worker while the backend had it');
});
