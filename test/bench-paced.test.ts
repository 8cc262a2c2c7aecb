import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { pacedLatency } from '../bench/latency';
import { pacedLatencyApart } from '../bench/paced-client';

/** A server that counts what it is sent and answers 500 to bodies asking for it. */
async function countingServer() {
  const seen: string[] = [];
  const app = Fastify();
  app.post('/echo', async (request, reply) => {
    const body = request.body as { fail?: boolean; key?: string };
    seen.push(`${request.headers['x-api-key']}:${body.key}`);
    if (body.fail) return reply.code(500).send({ failed: true });
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  return { app, seen, url: `http://127.0.0.1:${address.port}/echo` };
}

const json = { 'content-type': 'application/json', 'x-api-key': 'rg_test_key' };

test('a paced run drops its warm-up times but counts them, and counts failures', async (t) => {
  const server = await countingServer();
  t.after(() => server.app.close());
  const ok = await pacedLatency({ url: server.url, headers: json, body: JSON.stringify({ key: 'a' }) }, 50, 0.4, 0.2);
  assert.equal(ok.warmupCount, 10);
  assert.equal(ok.count, 20);
  assert.equal(ok.failures, 0);
  assert.equal(server.seen.length, 30);
  assert.ok(ok.p50 > 0 && ok.p99 >= ok.p50, `p50 ${ok.p50}, p99 ${ok.p99}`);

  const failing = await pacedLatency({ url: server.url, headers: json, body: JSON.stringify({ key: 'b', fail: true }) }, 50, 0.2);
  assert.equal(failing.count, 0);
  assert.equal(failing.failures, 10);
  assert.ok(Number.isNaN(failing.p99));
});

test('a paced run apart runs in a process of its own and sends what it was given', async (t) => {
  const server = await countingServer();
  t.after(() => server.app.close());
  const result = await pacedLatencyApart({ url: server.url, headers: json, body: JSON.stringify({ key: 'apart' }) }, 50, 0.4, 0.2);
  assert.deepEqual({ count: result.count, failures: result.failures, warmupCount: result.warmupCount }, { count: 20, failures: 0, warmupCount: 10 });
  assert.deepEqual(new Set(server.seen), new Set(['rg_test_key:apart']));
  assert.equal(server.seen.length, 30);
  await assert.rejects(pacedLatencyApart({ url: 'not a url', headers: json }, 50, 0.1, 0), /the paced client exited with 1: Invalid URL/);
});
