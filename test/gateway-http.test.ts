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

test('an answer sent in pieces is read whole: UTF-8 across chunk boundaries, a byte order mark dropped, repeated headers kept', async () => {
  const server = await countingServer((req, res) => {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ descricao: 'ação número 1', itens: 'x'.repeat(70_000) }))]);
    // Split inside the multi-byte "ç" so a chunk-wise decode would break it.
    const cut = body.indexOf(Buffer.from('ç')) + 1;
    res.write(body.subarray(0, cut));
    setTimeout(() => res.end(body.subarray(cut)), 20);
  });
  const client = new GatewayHttp();
  try {
    const reply = await client.send({ gateway: 'pagarme', method: 'GET', url: `${server.url}/core/v5/orders/or_1`, timeoutMs: 5_000 });
    assert.equal(reply.status, 200);
    assert.equal(reply.jsonError, false);
    assert.equal((reply.json as { descricao: string }).descricao, 'ação número 1');
    assert.equal((reply.json as { itens: string }).itens.length, 70_000);
    assert.deepEqual(reply.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  } finally {
    await client.close();
    await server.close();
  }
});

test('a body that stalls past the deadline is a timeout; a connection cut mid-body and an oversized answer are ambiguous for a write', async () => {
  const server = await countingServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/stall') {
      res.write('{"id":');
      return; // the rest never comes
    }
    if (req.url === '/cut') {
      res.setHeader('content-length', '1000');
      res.write('{"id":"ch_1"');
      setTimeout(() => req.socket.destroy(), 10);
      return;
    }
    res.end(JSON.stringify({ blob: 'x'.repeat(3 * 1024 * 1024) }));
  });
  const client = new GatewayHttp();
  try {
    const call = (path: string, timeoutMs = 5_000) => client.send({ gateway: 'stripe', method: 'POST', url: `${server.url}${path}`, body: '{}', timeoutMs })
      .then(() => assert.fail(`${path} answered`), (err: unknown) => err as GatewayFailure);
    const stalled = await call('/stall', 200);
    assert.ok(stalled instanceof GatewayFailure, String(stalled));
    assert.deepEqual([stalled.kind, stalled.info.ambiguous], ['timeout', true]);
    const cut = await call('/cut');
    assert.deepEqual([cut.kind, cut.info.ambiguous], ['unreachable', true]);
    assert.match(cut.message, /connection was lost/);
    const big = await call('/big');
    assert.deepEqual([big.kind, big.info.ambiguous], ['bad_response', true]);
  } finally {
    await client.close();
    await server.close();
  }
});
