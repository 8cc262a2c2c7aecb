import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayHttp } from '../src/gateways/http-client';
import { GatewayFailure } from '../src/gateways/types';
import { startEmulators } from '../src/sandbox/emulators';

/** A local server that counts the connections it accepts; `answer` decides what each request gets. */
async function countingServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(answer);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// undici hands a finished connection back to its pool on the next turn of the event loop; calls made on later turns
// (as separate client requests are) find it free.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('calls to one gateway origin reuse one keep-alive connection; another origin gets its own', async () => {
  const emulators = await startEmulators();
  let accepted = 0;
  emulators.app.server.on('connection', () => accepted++);
  const other = await countingServer((_req, res) => res.end('{"ok":true}'));
  const client = new GatewayHttp();
  try {
    const call = (url: string) => client.send({ gateway: 'pagarme', method: 'GET', url, headers: { accept: 'application/json' }, timeoutMs: 5_000 });
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      const reply = await call(`${emulators.gatewayUrl('pagarme')}/core/v5/orders/or_missing${i}`);
      assert.equal(typeof reply.status, 'number');
      assert.equal(reply.jsonError, false, reply.text);
    }
    assert.equal(accepted, 1, 'five sequential calls to the emulator, one connection');
    assert.deepEqual((await call(`${other.url}/x`)).json, { ok: true });
    await nextTurn();
    assert.deepEqual((await call(`${other.url}/y?z=1`)).json, { ok: true });
    assert.equal(other.connections(), 1, 'the second origin has a pool of its own, reused too');
    assert.equal(accepted, 1);
  } finally {
    await client.close();
    await other.close();
    await emulators.close();
  }
});

test('an answer slower than the timeout is a timeout failure (ambiguous for a write); a finished call leaves no timer behind', async () => {
  const server = await countingServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end('{"id":"ch_1"}');
  });
  const client = new GatewayHttp();
  try {
    const before = timeouts();
    const ok = await client.send({ gateway: 'stripe', method: 'POST', url: `${server.url}/fast`, body: '{}', timeoutMs: 60_000 });
    assert.deepEqual(ok.json, { id: 'ch_1' });
    assert.equal(timeouts(), before, 'the 60 s deadline of a call that has finished is cleared, not left to run out');

    const slow = await client.send({ gateway: 'stripe', method: 'POST', url: `${server.url}/slow`, body: '{}', timeoutMs: 150 }).then(() => undefined, (err: unknown) => err);
    assert.ok(slow instanceof GatewayFailure, String(slow));
    assert.equal(slow.kind, 'timeout');
    assert.equal(slow.info.ambiguous, true, 'the request was written: the gateway may have acted on it');
    const past = await client.send({ gateway: 'stripe', method: 'GET', url: `${server.url}/fast`, timeoutMs: 1_000, deadline: Date.now() - 1 }).then(() => undefined, (err: unknown) => err);
    assert.ok(past instanceof GatewayFailure && past.kind === 'timeout' && past.info.ambiguous === false, String(past));
  } finally {
    await client.close();
    await server.close();
  }
});

test('a refused connection is unreachable and never ambiguous', async () => {
  const server = await countingServer(() => undefined);
  const url = server.url;
  await server.close();
  const client = new GatewayHttp();
  try {
    const err = await client.send({ gateway: 'asaas', method: 'POST', url: `${url}/v3/payments`, body: '{}', timeoutMs: 2_000 }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof GatewayFailure, String(err));
    assert.equal(err.kind, 'unreachable');
    assert.equal(err.info.ambiguous, false);
  } finally {
    await client.close();
  }
});
