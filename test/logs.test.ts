import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startE2E, CARD, CUSTOMER } from './helpers/e2e';
import { ExternalWrites, ReadCache } from '../src/store/read-cache';
import Database from 'better-sqlite3';

/** Every key of every object in a JSON text, to find one written twice (JSON.parse keeps only the last). */
function duplicateKeys(text: string): string[] {
  let i = 0;
  const dups: string[] = [];
  const ws = () => {
    while (/\s/.test(text[i])) i++;
  };
  const str = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): void => {
    ws();
    if (text[i] === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      while (text[i] !== '}') {
        ws();
        const key = str();
        if (seen.has(key)) dups.push(key);
        seen.add(key);
        ws();
        i++; // :
        value();
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (text[i] === '[') {
      i++;
      ws();
      while (text[i] !== ']') {
        value();
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (text[i] === '"') str();
    else while (i < text.length && !/[,}\]\s]/.test(text[i])) i++;
  };
  value();
  return dups;
}

test('log lines: one msg each, no key written twice, and the request id on every line of a request', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const e2e = await startE2E({}, { level: 'info', stream });
  try {
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const before = lines.length;
    const ids = new Set<string>();
    const send = async (method: string, path: string, opts: Parameters<typeof e2e.call>[2] = {}) => {
      const res = await e2e.call(method, path, { key, ...opts });
      ids.add(String(res.headers['x-request-id']));
      return res;
    };
    await send('POST', '/api/v1/charges', { body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER }, headers: { 'x-request-id': 'order-1001-create' } });
    await send('POST', '/api/v1/charges', { body: { paymentMethod: 'pix', amount: 5 } });
    await send('POST', '/api/v1/charges', { body: { paymentMethod: 'credit_card', amount: 1999, creditCard: { ...CARD, number: '4000000000000002' } } });
    const closed = await e2e.closedPortUrl();
    const failed = await e2e.withGatewayUrl('pagarme', closed, () => send('POST', '/api/v1/charges', { body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER } }));
    assert.equal(failed.status, 502);
    await send('GET', '/api/v1/nowhere');
    await send('GET', '/api/v1/clients/me', { key: 'tk_wrong' });
    assert.ok(ids.has('order-1001-create'), 'a well-formed x-request-id is kept');

    const during = lines.slice(before);
    // One line per request, written when it is answered; `incoming request` is a debug line.
    const completed = during.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');
    assert.equal(completed.length, 6, during.join('\n'));
    assert.ok(!during.some((l) => l.includes('incoming request')));
    for (const l of completed) {
      assert.equal(typeof l.req.method, 'string');
      assert.match(l.req.url, /^\/api\/v1\//);
      assert.equal(typeof l.res.statusCode, 'number');
      assert.equal(typeof l.responseTime, 'number');
    }
    const created = completed.find((l) => l.reqId === 'order-1001-create');
    assert.equal(created.res.statusCode, 201);
    assert.match(created.chargeId, /^chg_/, 'a charge answer names its charge and gateway');
    assert.equal(created.gateway, 'pagarme');
    for (const line of during) {
      assert.deepEqual(duplicateKeys(line), [], line);
      const entry = JSON.parse(line);
      assert.equal(typeof entry.msg, 'string', line);
      assert.ok(entry.reqId, `no request id: ${line}`);
      assert.ok(ids.has(entry.reqId), `the line's reqId is the answer's x-request-id: ${line}`);
    }
    const failure = during.map((l) => JSON.parse(l)).find((l) => l.msg === 'gateway failure' && l.code === 'GATEWAY_UNREACHABLE');
    assert.ok(failure, 'the gateway failure is logged');
    assert.match(failure.reason, /pagarme/);
  } finally {
    await e2e.close();
  }
});

test('GET /charges/{id}?refresh=true answers the charge with its attempts, like a plain read', async () => {
  const e2e = await startE2E();
  try {
    const key = await e2e.account({ primaryGateway: 'pagarme' });
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const plain = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
    const refreshed = await e2e.call('GET', `/api/v1/charges/${id}?refresh=true`, { key });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.headers['x-rg-charge-id'], id);
    assert.ok(Array.isArray(refreshed.body.data.attempts), refreshed.text);
    assert.deepEqual(refreshed.body.data.attempts.map((a: { operation: string }) => a.operation), ['charge', 'retrieve']);
    assert.deepEqual(refreshed.body.data.attempts[0], plain.body.data.attempts[0]);
  } finally {
    await e2e.close();
  }
});

test('the read cache is bounded: least recently used entries go first', () => {
  const db = new Database(':memory:');
  const cache = new ReadCache<{ n: number }>(new ExternalWrites(db), 3);
  let loads = 0;
  const get = (k: string) => cache.get(k, () => (loads++, { n: Number(k) }));
  for (const k of ['1', '2', '3']) get(k);
  get('1'); // 1 is now the most recent
  for (let i = 4; i < 100; i++) get(String(i));
  assert.equal(cache.size, 3);
  const before = loads;
  get('99');
  assert.equal(loads, before, 'a recent entry is served from the cache');
  get('1');
  assert.equal(loads, before + 1, 'an old one was evicted and is read again');
  assert.equal(cache.get('missing', () => undefined), undefined);
  assert.equal(cache.get('missing', () => ({ n: -1 })), undefined, 'a miss is cached too');
  db.close();
});
