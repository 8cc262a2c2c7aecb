import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startService, type Service } from '../helper';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { clock } from '../../src/lib/clock';
import { pagarmeAsymmetricHeaders, pagarmeEvent, pagarmeKeyPair } from '../helpers/gateway-webhooks';

// Issue 40 item 2: a Pagar.me webhookPublicKey given as a URL is fetched only from Pagar.me's own host (or where the
// operator points RouteGate at Pagar.me), under the SSRF policy, cached by its caching headers with a bounded early
// refresh on an unknown kid; a failed check answers a generic 401 that says nothing about the upstream.

const services: Service[] = [];
const servers: http.Server[] = [];
after(async () => {
  for (const s of services) await s.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A JWKS server counting fetches; `doc()` is what it serves now. */
async function jwksServer(doc: () => unknown, cacheControl = 'public, max-age=600') {
  let fetches = 0;
  let connections = 0;
  const server = http.createServer((_q, r) => {
    fetches += 1;
    r.writeHead(200, { 'content-type': 'application/json', 'cache-control': cacheControl }).end(JSON.stringify(doc()));
  });
  server.on('connection', () => { connections += 1; });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetches: () => fetches, connections: () => connections };
}

let seq = 0;
async function merchant(svc: Service, webhookPublicKey: string) {
  const { id } = await svc.createAccount();
  await svc.app.vault.save(id, 'pagarme', { ...SANDBOX_CREDENTIALS.pagarme, webhookPublicKey });
  const token = (await svc.app.store.accounts.get(id))!.webhookToken;
  return (key: { kid: string; privateKey: import('node:crypto').KeyObject }) => {
    seq += 1;
    const body = pagarmeEvent(`hook_jwks_${process.pid}_${seq}`, 'order.paid', { id: `or_jwks_${seq}`, code: 'x', amount: 100, status: 'paid', charges: [] });
    return svc.call('POST', `/api/v1/webhooks/pagarme/${token}`, { rawBody: body, headers: pagarmeAsymmetricHeaders(body, key) });
  };
}

test('a JWKS URL outside Pagar.me is never fetched, and the 401 says nothing about it', async () => {
  const key = pagarmeKeyPair();
  const elsewhere = await jwksServer(() => key.jwks);
  const svc = await startService();
  services.push(svc);
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  for (const url of [`${elsewhere.origin}/jwks.json`, `http://127.0.0.1:${closedPort}/jwks.json`, 'https://169.254.169.254/latest/meta-data/']) {
    const send = await merchant(svc, url);
    const res = await send(key);
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error.code, 'WEBHOOK_SIGNATURE_INVALID');
    assert.doesNotMatch(res.text, /127\.0\.0\.1|169\.254|ECONNREFUSED|refused|resolve|answered|TLS|SSL/i, url);
    assert.match(res.body.error.message, /the signature could not be checked/);
  }
  assert.equal(elsewhere.connections(), 0, 'the merchant-named host was not contacted');
});

test('at Pagar.me\'s host (here: where the operator points RouteGate) the JWKS is cached by its headers; an unknown kid refreshes at most once a minute', async () => {
  const first = pagarmeKeyPair('key-1');
  const second = pagarmeKeyPair('key-2');
  let served: { keys: unknown[] } = first.jwks;
  const pagarme = await jwksServer(() => served, 'public, max-age=300');
  const svc = await startService({ ROUTEGATE_PAGARME_URL: `${pagarme.origin}/pagarme` });
  services.push(svc);
  const send = await merchant(svc, `${pagarme.origin}/pagarme/.well-known/jwks.json`);
  for (let i = 0; i < 3; i++) assert.notEqual((await send(first)).status, 401);
  assert.equal(pagarme.fetches(), 1, 'fetched once for three notifications');

  // Pagar.me rotates: key-2 is unknown to the cached copy, fetched again once.
  served = { keys: [...first.jwks.keys, ...second.jwks.keys] };
  const realNow = clock.now;
  try {
    clock.now = () => realNow() + 61_000;
    assert.notEqual((await send(second)).status, 401, 'the rotated key is picked up');
    assert.equal(pagarme.fetches(), 2);
    // Forged kids: within the minute, no further fetch whatever they name.
    const forged = pagarmeKeyPair('forged-kid');
    for (let i = 0; i < 3; i++) assert.equal((await send(forged)).status, 401);
    assert.equal(pagarme.fetches(), 2, 'an unknown kid refreshes at most once a minute');
    // Past max-age (300 s): fetched again.
    clock.now = () => realNow() + 61_000 + 301_000;
    assert.notEqual((await send(first)).status, 401);
    assert.equal(pagarme.fetches(), 3);
  } finally {
    clock.now = realNow;
  }
});

test('in production a JWKS URL is https only, whatever ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS says', async () => {
  const key = pagarmeKeyPair();
  const pagarme = await jwksServer(() => key.jwks);
  const svc = await startService({ NODE_ENV: 'production', ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS: 'true', ROUTEGATE_PAGARME_URL: `${pagarme.origin}/pagarme` });
  services.push(svc);
  const send = await merchant(svc, `${pagarme.origin}/pagarme/.well-known/jwks.json`);
  const res = await send(key);
  assert.equal(res.status, 401, res.text);
  assert.equal(pagarme.connections(), 0, 'the SSRF policy refused it before connecting');
});
