import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { AccountService } from '../src/accounts/service';
import { call, expectError } from './helper';
import { DashboardClient } from './helpers/dashboard-client';
import { TEST_REDIS_URL, deleteKeysUnder, freshPrefix, keysUnder, requireRedis } from './helpers/redis';

// Issue 17: with REDIS_URL, rate limits and the sign-in throttle hold across RouteGate processes. Two app instances,
// each listening on its own port, on one SQLite file and one Redis (a prefix of this run's own); real HTTP.

interface Instance { app: FastifyInstance; url: string; logs: string[] }

async function startInstance(dbPath: string, env: Record<string, string>): Promise<Instance> {
  const config = loadConfig({
    ROUTEGATE_DB: dbPath,
    ROUTEGATE_MASTER_KEY: 'a'.repeat(64),
    ROUTEGATE_LOG_LEVEL: 'info',
    PORT: '0',
    ROUTEGATE_RECONCILE_INTERVAL_MS: '0',
    ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '0',
    ...env,
  });
  const logs: string[] = [];
  const logStream = new Writable({ write(chunk, _enc, cb) { logs.push(chunk.toString()); cb(); } });
  const app = await buildApp({ config, logStream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as net.AddressInfo;
  return { app, url: `http://127.0.0.1:${address.port}`, logs };
}

/** Instances on one fresh SQLite file, started one after the other (the first applies the migrations). */
async function startInstances(t: TestContext, count: number, env: Record<string, string>): Promise<Instance[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-redis-'));
  const instances: Instance[] = [];
  t.after(async () => {
    for (const i of instances) await i.app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (let n = 0; n < count; n++) instances.push(await startInstance(path.join(dir, 'routegate.db'), env));
  return instances;
}

async function withRedis(t: TestContext): Promise<{ redis: Redis; prefix: string } | undefined> {
  const redis = await requireRedis(t);
  if (!redis) return undefined;
  const prefix = freshPrefix();
  t.after(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });
  return { redis, prefix };
}

const me = (base: string, key: string | undefined, localAddress: string) => call(base, 'GET', '/api/v1/clients/me', { key, localAddress });

test('the per-key limit is counted across two instances: the limit+1-th request, on either, gets 429 in the SPEC envelope', async (t) => {
  const shared = await withRedis(t);
  if (!shared) return;
  const [a, b] = await startInstances(t, 2, { REDIS_URL: TEST_REDIS_URL, ROUTEGATE_REDIS_PREFIX: shared.prefix, ROUTEGATE_RATE_LIMIT: '6' });
  const accounts = new AccountService(a.app.store);
  const one = await accounts.create('Loja Um', 'um@example.com');
  const two = await accounts.create('Loja Dois', 'dois@example.com');

  // Six requests split over the two instances, from three client addresses (two each: the per-IP limit stays far).
  // Counted per process, each instance would have seen three.
  const addresses = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
  for (let i = 0; i < 6; i++) {
    const res = await me(i % 2 ? b.url : a.url, one.apiKey, addresses[i % 3]);
    assert.equal(res.status, 200, `request ${i + 1}: ${res.text}`);
    assert.equal(res.headers['x-ratelimit-remaining'], String(5 - i), 'one count for both instances');
  }
  for (const instance of [a, b]) {
    const refused = await me(instance.url, one.apiKey, '127.0.0.5');
    expectError(refused, 'RATE_LIMIT_EXCEEDED', 429);
    assert.equal(refused.headers['x-ratelimit-limit'], '6');
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.match(refused.body.error.message, new RegExp(`Rate limit of 6 requests per minute exceeded; retry in ${retryAfter} seconds`));
  }
  // The key is used up, not the address: another key from the same address goes through.
  assert.equal((await me(b.url, two.apiKey, '127.0.0.5')).status, 200);

  // The count lives in Redis under this run's prefix, where the README says.
  assert.equal(await shared.redis.get(`${shared.prefix}rate-limit:key:${one.id}`), '8');
  const ttl = await shared.redis.pttl(`${shared.prefix}rate-limit:key:${one.id}`);
  assert.ok(ttl > 0 && ttl <= 60_000, `the window expires by itself (pttl ${ttl})`);
});

test('the per-IP limit is counted across two instances too, before authentication', async (t) => {
  const shared = await withRedis(t);
  if (!shared) return;
  const [a, b] = await startInstances(t, 2, { REDIS_URL: TEST_REDIS_URL, ROUTEGATE_REDIS_PREFIX: shared.prefix, ROUTEGATE_RATE_LIMIT: '4' });
  for (let i = 0; i < 4; i++) expectError(await me(i % 2 ? b.url : a.url, undefined, '127.0.0.6'), 'MISSING_API_KEY', 401);
  expectError(await me(a.url, undefined, '127.0.0.6'), 'RATE_LIMIT_EXCEEDED', 429);
  expectError(await call(b.url, 'GET', '/no-such-route', { localAddress: '127.0.0.6' }), 'RATE_LIMIT_EXCEEDED', 429);
  // Probes stay exempt, and another address is not affected.
  assert.equal((await call(b.url, 'GET', '/health', { localAddress: '127.0.0.6' })).status, 200);
  expectError(await me(b.url, undefined, '127.0.0.7'), 'MISSING_API_KEY', 401);
  assert.equal(await shared.redis.get(`${shared.prefix}rate-limit:ip:127.0.0.6`), '6');
});

test('the sign-in throttle is counted across two instances: five failures split over both block the right password on either', async (t) => {
  const shared = await withRedis(t);
  if (!shared) return;
  const [a, b] = await startInstances(t, 2, { REDIS_URL: TEST_REDIS_URL, ROUTEGATE_REDIS_PREFIX: shared.prefix, ROUTEGATE_RATE_LIMIT: '1000' });
  const owner = await new AccountService(a.app.store).create('Loja Tres', 'tres@example.com');
  const password = 'owner password 123';
  await a.app.logins.setOwnerPassword(owner.id, password);

  // Three wrong passwords at one instance, two at the other: below the limit of five in each process's memory.
  const atA = new DashboardClient(a.url, '127.0.0.8');
  const atB = new DashboardClient(b.url, '127.0.0.8');
  await atA.get('/dashboard/login');
  await atB.get('/dashboard/login');
  for (let i = 0; i < 5; i++) {
    const c = i < 3 ? atA : atB;
    assert.equal((await c.post('/dashboard/login', { email: 'tres@example.com', password: `guess ${i} guess guess` })).status, 401, `failure ${i + 1}`);
  }
  for (const instance of [a, b]) {
    // From the address that failed, on either instance (an address with no failure still signs in: issue 40).
    const blocked = await new DashboardClient(instance.url, '127.0.0.8').login('tres@example.com', password);
    assert.equal(blocked.status, 429, blocked.text);
    assert.match(blocked.text, /Too many failed sign-ins; try again in 15 minutes/);
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `retry-after ${retryAfter}`);
  }
  // Other e-mails still sign in from there; the e-mail is in Redis only as a hash, with an expiry.
  const emailKeys = (await keysUnder(shared.redis, `${shared.prefix}sign-in:email:`));
  assert.equal(emailKeys.length, 1);
  assert.doesNotMatch(emailKeys[0], /example/);
  assert.equal(await shared.redis.get(emailKeys[0]), '5');
  assert.equal(await shared.redis.get(`${shared.prefix}sign-in:ip:127.0.0.8`), '5');
  assert.ok((await shared.redis.pttl(emailKeys[0])) > 14 * 60_000);
});

test('a correct password clears the e-mail\'s shared count (on every instance), not the address\'s', async (t) => {
  const shared = await withRedis(t);
  if (!shared) return;
  const [a, b] = await startInstances(t, 2, { REDIS_URL: TEST_REDIS_URL, ROUTEGATE_REDIS_PREFIX: shared.prefix, ROUTEGATE_RATE_LIMIT: '1000' });
  const owner = await new AccountService(a.app.store).create('Loja Quatro', 'quatro@example.com');
  const password = 'owner password 123';
  await a.app.logins.setOwnerPassword(owner.id, password);
  const atA = new DashboardClient(a.url, '127.0.0.10');
  await atA.get('/dashboard/login');
  for (let i = 0; i < 4; i++) assert.equal((await atA.post('/dashboard/login', { email: 'quatro@example.com', password: `guess ${i} guess guess` })).status, 401);
  assert.equal((await new DashboardClient(b.url, '127.0.0.10').login('quatro@example.com', password)).status, 303);
  assert.deepEqual(await keysUnder(shared.redis, `${shared.prefix}sign-in:email:`), []);
  assert.equal(await shared.redis.get(`${shared.prefix}sign-in:ip:127.0.0.10`), '4');
});

/**
 * A TCP proxy to the test Redis that can stall: the connection stays open and nothing gets through until it is
 * released, then everything held is delivered in order (a frozen Redis or a stalled network; TCP loses nothing).
 */
async function stallingProxy(t: TestContext, target: string): Promise<{ url: string; stall(on: boolean): void }> {
  const upstream = new URL(target);
  let stalled = false;
  const held: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const redis = net.connect(Number(upstream.port || 6379), upstream.hostname);
    for (const s of [client, redis]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => { client.destroy(); redis.destroy(); });
    }
    const forward = (to: net.Socket) => (d: Buffer) => (stalled ? held.push(() => to.write(d)) : to.write(d));
    client.on('data', forward(redis));
    redis.on('data', forward(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: (on) => {
      stalled = on;
      if (!on) for (const write of held.splice(0)) write();
    },
  };
}

test('a Redis that stops answering does not hold requests: they go through uncounted (fail open), /ready says so, and counting resumes', async (t) => {
  const shared = await withRedis(t);
  if (!shared) return;
  const proxy = await stallingProxy(t, TEST_REDIS_URL);
  const [a] = await startInstances(t, 1, { REDIS_URL: proxy.url, ROUTEGATE_REDIS_PREFIX: shared.prefix, ROUTEGATE_RATE_LIMIT: '3' });
  const { apiKey, id } = await new AccountService(a.app.store).create('Loja Cinco', 'cinco@example.com');
  const { mappingSet: _set, ...readyBody } = (await call(a.url, 'GET', '/ready')).body;
  assert.deepEqual(readyBody, { status: 'ready', database: 'writable', mappings: 'loaded', redis: 'ok' });
  assert.equal((await me(a.url, apiKey, '127.0.0.11')).status, 200);

  proxy.stall(true);
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    const res = await me(a.url, apiKey, '127.0.0.11');
    assert.equal(res.status, 200, `let through while Redis does not answer: ${res.text}`);
    assert.ok(Date.now() - started < 2_000, `answered in ${Date.now() - started} ms (two Redis calls, 250 ms timeout each)`);
  }
  const ready = await call(a.url, 'GET', '/ready');
  assert.equal(ready.status, 200, 'Redis is reported, not required');
  assert.equal(ready.body.redis, 'unreachable');

  // Released: the held commands reach Redis late (their counts land then) and counting goes on.
  proxy.stall(false);
  const deadline = Date.now() + 10_000;
  while ((await call(a.url, 'GET', '/ready')).body.redis !== 'ok') {
    assert.ok(Date.now() < deadline, 'Redis back within 10 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  let res;
  do res = await me(a.url, apiKey, '127.0.0.11'); while (res.status === 200 && Date.now() < deadline);
  expectError(res, 'RATE_LIMIT_EXCEEDED', 429);
  assert.ok(Number(await shared.redis.get(`${shared.prefix}rate-limit:key:${id}`)) > 3);
});

test('an unreachable REDIS_URL: start-up goes on, requests are answered at once, sign-ins are still throttled per process', async (t) => {
  // No Redis needed: nothing listens on the port.
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const [a] = await startInstances(t, 1, { REDIS_URL: `redis://127.0.0.1:${port}`, ROUTEGATE_RATE_LIMIT: '2' });
  const { apiKey, id } = await new AccountService(a.app.store).create('Loja Seis', 'seis@example.com');
  for (let i = 0; i < 4; i++) {
    const started = Date.now();
    assert.equal((await me(a.url, apiKey, '127.0.0.12')).status, 200, 'uncounted: the limit fails open');
    assert.ok(Date.now() - started < 1_000, `answered in ${Date.now() - started} ms`);
  }
  const ready = await call(a.url, 'GET', '/ready');
  assert.equal(ready.status, 200);
  assert.equal(ready.body.redis, 'unreachable');
  assert.equal(a.logs.filter((l) => /Redis unreachable: rate limits let requests through/.test(l)).length, 1, 'the outage is logged once, not per retry');

  await a.app.logins.setOwnerPassword(id, 'owner password 123');
  const c = new DashboardClient(a.url, '127.0.0.12');
  await c.get('/dashboard/login');
  for (let i = 0; i < 5; i++) assert.equal((await c.post('/dashboard/login', { email: 'seis@example.com', password: `guess ${i} guess guess` })).status, 401);
  assert.equal((await c.login('seis@example.com', 'owner password 123')).status, 429, 'the in-memory count still throttles');
});
