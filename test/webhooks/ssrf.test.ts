import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type Service } from '../helper';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { checkTarget, guardedLookup, isPublicAddress, parseTarget } from '../../src/webhooks/forward-target';
import { stripeEvent, stripeHeaders } from '../helpers/gateway-webhooks';

// Issue 12 item 7: in production webhookForwardUrl must be https and every address it resolves to public, checked at
// send time (and again when connecting); redirects are not followed; ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS lifts the
// address check; outside production local targets are allowed.

const services: Service[] = [];
const servers: http.Server[] = [];
after(async () => {
  for (const s of services) await s.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A local server counting every TCP connection it gets: a refused target must see none. */
async function listener(handler: http.RequestListener = (_q, r) => r.writeHead(200).end('ok')): Promise<{ port: number; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((q, r) => { requests += 1; handler(q, r); });
  server.on('connection', () => { connections += 1; });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => connections, requests: () => requests };
}

async function merchantOn(svc: Service, url: string) {
  const { id } = await svc.createAccount();
  await svc.app.vault.save(id, 'stripe', SANDBOX_CREDENTIALS.stripe);
  await svc.app.store.accounts.saveSettings(id, { ...(await svc.app.store.accounts.settings(id)), webhookForwardUrl: url });
  const token = (await svc.app.store.accounts.get(id))!.webhookToken;
  const body = stripeEvent(`evt_ssrf_${Math.random().toString(36).slice(2)}`, 'payment_intent.succeeded', { id: 'pi_ssrf', object: 'payment_intent', amount: 1000, amount_received: 1000, currency: 'brl', status: 'succeeded', metadata: {} });
  const res = await svc.call('POST', `/api/v1/webhooks/stripe/${token}`, { rawBody: body, headers: stripeHeaders(body, SANDBOX_CREDENTIALS.stripe.webhookSecret) });
  const eventId = (await svc.app.store.webhookEvents.list(id, 1))[0]?.id;
  const delivery = eventId ? (await svc.app.store.deliveries.forEvent(eventId))[0] : undefined;
  return { res, attempts: delivery ? await svc.app.store.deliveries.attempts(delivery.id) : [] };
}

test('address classification: loopback, private, link-local (metadata), CGNAT, unique-local, unspecified and IPv4-mapped forms are not public', () => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.0.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', 'not-an-ip']) {
    assert.equal(isPublicAddress(a), false, a);
  }
  for (const a of ['8.8.8.8', '200.147.3.157', '2001:4860:4860::8888', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
});

test('production policy: http refused; private targets refused unless ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS; outside production allowed', async () => {
  const strict = { production: true, allowPrivate: false };
  assert.throws(() => parseTarget('http://example.com/hook', strict), /only https/);
  assert.throws(() => parseTarget('https://user:pw@example.com/hook', strict), /credentials/);
  for (const url of ['https://127.0.0.1/x', 'https://0x7f000001/x', 'https://2130706433/x', 'https://[::1]/x', 'https://[::ffff:127.0.0.1]/x', 'https://169.254.169.254/latest/meta-data', 'https://localhost/x']) {
    await assert.rejects(checkTarget(parseTarget(url, strict), strict), /not a public address/, url);
  }
  await checkTarget(parseTarget('https://127.0.0.1/x', { production: true, allowPrivate: true }), { production: true, allowPrivate: true });
  assert.throws(() => parseTarget('http://127.0.0.1/x', { production: true, allowPrivate: true }), /only https/);
  await checkTarget(parseTarget('http://127.0.0.1/x', { production: false, allowPrivate: false }), { production: false, allowPrivate: false });
  // At connect time too (DNS rebinding): the agent's lookup refuses a private answer.
  const refused = await new Promise<Error | null>((resolve) => guardedLookup(strict)('localhost', {}, (err) => resolve(err)));
  assert.match(String(refused), /not a public address/);
});

test('in production a webhookForwardUrl pointing at this machine or the metadata address is refused at send time: nothing connects, the attempt says why', async () => {
  const svc = await startService({ NODE_ENV: 'production' });
  services.push(svc);
  const target = await listener();
  for (const url of [`https://127.0.0.1:${target.port}/hook`, `https://0x7f000001:${target.port}/hook`, `https://[::1]:${target.port}/hook`,
    `https://[::ffff:127.0.0.1]:${target.port}/hook`, `https://localhost:${target.port}/hook`, 'https://169.254.169.254/latest/meta-data/', `http://127.0.0.1:${target.port}/hook`]) {
    const { res, attempts } = await merchantOn(svc, url);
    assert.equal(res.status, 502, `${url}: ${res.text}`);
    assert.equal(res.body.error.code, 'WEBHOOK_NOT_DELIVERED');
    assert.match(attempts[0].error ?? '', /^refused: /, url);
  }
  assert.equal(target.connections(), 0, 'no connection reached the local target');
});

test('redirects are not followed: a 3xx is a failed attempt and the redirect target gets nothing', async () => {
  const svc = await startService();
  services.push(svc);
  const elsewhere = await listener();
  const redirecting = await listener((_q, r) => r.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/steal` }).end());
  const { res, attempts } = await merchantOn(svc, `http://127.0.0.1:${redirecting.port}/hook`);
  assert.equal(res.status, 502, res.text);
  assert.equal(attempts[0].statusCode, 302);
  assert.equal(redirecting.requests(), 1);
  assert.equal(elsewhere.connections(), 0);
});
