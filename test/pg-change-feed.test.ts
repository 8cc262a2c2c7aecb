import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PgChangeFeed } from '../src/store/pg/change-feed';
import { createPgReadCaches } from '../src/store/pg/read-caches';
import { PgAccountsRepository } from '../src/store/pg/accounts';
import { seal, sha256Hex } from '../src/lib/crypto';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import { pgProcess, waitFor, type PgProcess } from './helpers/pg-process';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: a key revoked or an account deactivated by one RouteGate process on PostgreSQL is refused by every
// other within a bounded wait, and never served stale once the other's change feed has reported the write.

let db: ScratchDatabase;
let a: PgProcess;
let b: PgProcess;

before(async () => {
  if (NO_PG) return;
  db = await scratchPgDatabase();
  a = await pgProcess(db);
  b = await pgProcess(db);
});

after(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

async function account(): Promise<string> {
  const id = `acc_${randomUUID()}`;
  await a.accounts.create({ id, name: 'Loja', email: 'loja@example.com', webhookToken: `wh_${randomUUID()}` });
  await a.apiKeys.replace(id, sha256Hex(`tk_${id}_1`), 'one');
  await a.credentials.upsert(id, 'gw_one', seal(Buffer.alloc(32, 1), 'first', 'aad'), { secretKey: 'first' });
  // Every notification of the setup has reached b (so none arrives in the middle of what follows).
  await b.feed.sync();
  return id;
}

test('caches hold: a write behind the store (no notification) is not seen by a process that cached the row', { skip: NO_PG }, async () => {
  const id = await account();
  assert.equal((await b.accounts.get(id))?.active, true);
  await db.pool.query('UPDATE accounts SET active = 0 WHERE id = $1', [id]);
  const q = b.queries();
  assert.equal((await b.accounts.get(id))?.active, true, 'served from the cache');
  assert.equal(b.queries(), q);
  b.feed.bump();
  assert.equal((await b.accounts.get(id))?.active, false);
});

const scenarios: Array<{ name: string; read: (p: PgProcess, id: string) => Promise<unknown>; write: (id: string) => Promise<unknown>; stale: unknown; fresh: unknown }> = [
  {
    name: 'an API key rotated away', read: async (p, id) => (await p.apiKeys.findByHash(sha256Hex(`tk_${id}_1`)))?.revoked,
    write: (id) => a.apiKeys.replace(id, sha256Hex(`tk_${id}_2`), 'two'), stale: false, fresh: true,
  },
  {
    name: 'a new API key (a miss was cached)', read: async (p, id) => (await p.apiKeys.findByHash(sha256Hex(`tk_${id}_2`)))?.revoked,
    write: (id) => a.apiKeys.replace(id, sha256Hex(`tk_${id}_2`), 'two'), stale: undefined, fresh: false,
  },
  { name: 'an account deactivated', read: async (p, id) => (await p.accounts.get(id))?.active, write: (id) => a.accounts.setActive(id, false), stale: true, fresh: false },
  {
    name: 'settings saved', read: async (p, id) => (await p.accounts.settings(id)).primaryGateway,
    write: async (id) => a.accounts.saveSettings(id, { ...(await a.accounts.settings(id)), primaryGateway: 'gw_two' }), stale: null, fresh: 'gw_two',
  },
  {
    name: 'credentials replaced', read: async (p, id) => (await p.credentials.get(id, 'gw_one'))?.masked.secretKey,
    write: (id) => a.credentials.upsert(id, 'gw_one', seal(Buffer.alloc(32, 1), 'second', 'aad'), { secretKey: 'second' }), stale: 'first', fresh: 'second',
  },
  { name: 'credentials deleted', read: async (p, id) => (await p.credentials.get(id, 'gw_one'))?.gateway, write: (id) => a.credentials.delete(id, 'gw_one'), stale: 'gw_one', fresh: undefined },
];

for (const s of scenarios) {
  test(`${s.name} in one process is seen by another within the 3 s staleness bound, and never stale once its feed reported it`, { skip: NO_PG }, async (t) => {
    const id = await account();
    assert.equal(await s.read(b, id), s.stale);
    const q = b.queries();
    assert.equal(await s.read(b, id), s.stale, 'b serves it from its cache');
    assert.equal(b.queries(), q);

    const version = b.feed.current();
    await s.write(id);
    assert.equal(await s.read(a, id), s.fresh, 'the writer sees its write at once');
    const reported = await waitFor(() => b.feed.current() !== version);
    assert.ok(reported.ok, 'b was notified within the 3 s bound');
    t.diagnostic(`notified after ${reported.elapsed} ms`);
    for (let i = 0; i < 5; i++) assert.equal(await s.read(b, id), s.fresh, 'never stale after the feed moved');
  });
}

test('a change is delivered on commit: a transaction that rolls back notifies no one, one that commits does', { skip: NO_PG }, async () => {
  const id = await account();
  assert.equal((await b.accounts.get(id))?.active, true);
  for (const end of ['ROLLBACK', 'COMMIT']) {
    const client = await a.pool.connect();
    try {
      await client.query('BEGIN');
      assert.equal(await new PgAccountsRepository(client, a.caches).setActive(id, false), true);
      const version = b.feed.current();
      await b.feed.sync();
      assert.equal(b.feed.current(), version, 'nothing delivered before the end of the transaction');
      assert.equal((await b.accounts.get(id))?.active, true);
      await client.query(end);
      await b.feed.sync();
      assert.equal(b.feed.current() !== version, end === 'COMMIT', `${end}: notified`);
      assert.equal((await b.accounts.get(id))?.active, end !== 'COMMIT');
    } finally {
      client.release();
    }
  }
});

test("a write is seen by the writing process at once, before its own notification (the local bump)", { skip: NO_PG }, async () => {
  // A version source that only this process's bumps move: no notification can help.
  const version = { n: 0, current: () => version.n, bump: () => void version.n++ };
  const accounts = new PgAccountsRepository(db.pool, createPgReadCaches(version));
  const id = await account();
  assert.equal((await accounts.get(id))?.active, true);
  assert.equal((await accounts.settings(id)).primaryGateway, null);
  await accounts.setActive(id, false);
  assert.equal((await accounts.get(id))?.active, false);
  await accounts.saveSettings(id, { ...(await accounts.settings(id)), primaryGateway: 'gw_two' });
  assert.equal((await accounts.settings(id)).primaryGateway, 'gw_two');
  assert.equal(version.n, 2);
});

test('while the listener is down nothing is cached: a write is seen at once; caching resumes on reconnection', { skip: NO_PG }, async () => {
  const id = await account();
  assert.equal((await b.accounts.get(id))?.active, true);
  const pid = b.feed.backendPid;
  assert.ok(pid);
  const { rows } = await db.pool.query('SELECT pg_terminate_backend($1) AS done', [pid]);
  assert.equal(rows[0].done, true);
  assert.ok((await waitFor(() => !b.feed.listening)).ok, 'the feed noticed its connection went');

  await db.pool.query('UPDATE accounts SET active = 0 WHERE id = $1', [id]); // no notification
  assert.equal((await b.accounts.get(id))?.active, false, 'seen at once');
  const q = b.queries();
  await b.accounts.get(id);
  await b.accounts.get(id);
  assert.equal(b.queries(), q + 2, 'every read goes to the database');

  assert.ok((await waitFor(() => b.feed.listening, 5000)).ok, 'reconnected');
  assert.notEqual(b.feed.backendPid, pid);
  await b.accounts.get(id);
  const cached = b.queries();
  assert.equal((await b.accounts.get(id))?.active, false);
  assert.equal(b.queries(), cached, 'cached again');
  const version = b.feed.current();
  await a.accounts.setActive(id, true);
  assert.ok((await waitFor(() => b.feed.current() !== version)).ok, 'notified again');
  assert.equal((await b.accounts.get(id))?.active, true);
});

/** A TCP relay to PostgreSQL whose open connections can be frozen: bytes stop, nothing is closed. */
async function freezableRelay(target: { host: string; port: number }) {
  const pairs: Array<[net.Socket, net.Socket]> = [];
  const server = net.createServer((inbound) => {
    const outbound = net.connect(target);
    inbound.pipe(outbound).pipe(inbound);
    const kill = () => { inbound.destroy(); outbound.destroy(); };
    inbound.on('error', kill).on('close', kill);
    outbound.on('error', kill).on('close', kill);
    pairs.push([inbound, outbound]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      for (const [i, o] of pairs) {
        i.unpipe(o); o.unpipe(i); i.pause(); o.pause();
      }
    },
    async close() {
      for (const [i, o] of pairs) { i.destroy(); o.destroy(); }
      await new Promise((r) => server.close(r));
    },
  };
}

test('a listener that goes silent (no error, no close) counts as down within maxSilenceMs: nothing stale past the bound', { skip: NO_PG }, async () => {
  const url = new URL(db.url);
  const relay = await freezableRelay({ host: url.hostname, port: Number(url.port) });
  url.host = `127.0.0.1:${relay.port}`;
  const feed = new PgChangeFeed({ connectionString: url.toString() }, { heartbeatMs: 100, maxSilenceMs: 400, onError: () => undefined });
  try {
    await feed.start();
    const accounts = new PgAccountsRepository(db.pool, createPgReadCaches(feed));
    const id = await account();
    assert.equal((await accounts.get(id))?.active, true);
    assert.ok((await waitFor(() => feed.listening)).ok);

    relay.freeze();
    const frozenAt = performance.now();
    await db.pool.query('UPDATE accounts SET active = 0 WHERE id = $1', [id]); // no notification either
    // The bound is checked on the feed's own word, not on how soon this test looked: the last moment it still
    // vouched for its cache is at most maxSilenceMs after the freeze (plus a proof already in flight), however
    // late a busy machine runs this loop.
    let lastVouched = frozenAt;
    const down = await waitFor(() => {
      const at = performance.now();
      if (!feed.listening) return true;
      lastVouched = at;
      return false;
    }, 2000);
    assert.ok(down.ok, 'the feed stopped vouching for its cache');
    assert.ok(lastVouched - frozenAt <= 400 + 50, `within the bound (vouched ${Math.round(lastVouched - frozenAt)} ms after the freeze)`);
    assert.equal((await accounts.get(id))?.active, false, 'the write is seen');
    assert.ok((await waitFor(() => feed.listening, 5000)).ok, 'listening again on a new connection');
  } finally {
    await feed.close();
    await relay.close();
  }
});

test('start() rejects when PostgreSQL cannot be reached, so boot fails loudly', { skip: NO_PG }, async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const feed = new PgChangeFeed({ host: '127.0.0.1', port, user: 'nobody', database: 'nothing' });
  await assert.rejects(feed.start(), { code: 'ECONNREFUSED' });
  assert.equal(feed.listening, false);
  assert.notEqual(feed.current(), feed.current(), 'a feed that is down answers a new version each time');
});

test('fromPool listens with the pool\'s settings, its hidden password included, on a connection of its own', { skip: NO_PG }, async () => {
  const pool = new pg.Pool({ connectionString: db.url, password: 'unused-with-trust-auth', max: 1 });
  const feed = PgChangeFeed.fromPool(pool);
  try {
    assert.equal((feed as unknown as { config: pg.ClientConfig }).config.password, 'unused-with-trust-auth');
    await feed.start();
    assert.equal(pool.totalCount, 0, 'no client taken from the pool');
    const { rows } = await db.pool.query('SELECT application_name, query FROM pg_stat_activity WHERE pid = $1', [feed.backendPid]);
    assert.equal(rows[0].application_name, 'routegate-change-feed');
  } finally {
    await feed.close();
    await pool.end();
  }
});

test('maxSilenceMs must leave room for a heartbeat', () => {
  assert.throws(() => new PgChangeFeed({}, { heartbeatMs: 1000, maxSilenceMs: 1000 }), /maxSilenceMs/);
});
