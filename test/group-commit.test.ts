import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore as openStore } from '../src/store/index';

function tempStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-gc-'));
  const store = openStore(path.join(dir, 'rg.db'));
  return { store, done: async () => { await store.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

test('writes queued in one turn commit together; one failing write does not lose its neighbours', async (t) => {
  const { store, done } = tempStore();
  t.after(done);
  store.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const insert = store.db.prepare('INSERT INTO t (k) VALUES (?)');
  const results = await Promise.allSettled([
    store.commit(() => void insert.run('a')),
    store.commit(() => void insert.run('a')), // duplicate key: fails
    store.commit(() => void insert.run('b')),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
  assert.deepEqual(store.db.prepare('SELECT k FROM t ORDER BY k').pluck().all(), ['a', 'b']);
});

test('a write is on disk when its promise resolves, and a closed database rejects instead of hanging', async (t) => {
  const { store, done } = tempStore();
  t.after(done);
  store.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const pending = store.commit(() => void store.db.prepare('INSERT INTO t (k) VALUES (?)').run('x'));
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 0, 'not before the shared commit');
  await pending;
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 1);
  const late = store.commit(() => undefined);
  await store.close();
  await assert.rejects(late, /closed/);
});

test('under load a commit waits one more turn for the next writes; a quiet one does not', async (t) => {
  const { store, done } = tempStore();
  t.after(done);
  store.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const insert = store.db.prepare('INSERT INTO t (k) VALUES (?)');
  const has = (k: string) => store.db.prepare('SELECT COUNT(*) FROM t WHERE k = ?').pluck().get(k) === 1;
  /** Queue `first` now and `second` one turn later; whether `second` is committed by the time `first` is. */
  const sharedWithNextTurn = async (first: string, second: string): Promise<boolean> => {
    const a = store.commit(() => void insert.run(first));
    let b!: Promise<void>;
    setImmediate(() => {
      b = store.commit(() => void insert.run(second));
    });
    await a;
    const together = has(second);
    await b;
    return together;
  };

  await store.commit(() => void insert.run('quiet')); // a batch of one: the service is quiet
  assert.equal(await sharedWithNextTurn('q1', 'q2'), false, 'a quiet service commits at once');

  await Promise.all([store.commit(() => void insert.run('b1')), store.commit(() => void insert.run('b2'))]); // a batch of two
  assert.equal(await sharedWithNextTurn('b3', 'b4'), true, 'a busy one takes the next turn\'s writes along');
  assert.deepEqual(store.db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 7);
});

test('writeOne joins the turn\'s group commit and answers its statement\'s result', async (t) => {
  const { store, done } = tempStore();
  t.after(done);
  store.db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  const claim = store.db.prepare('INSERT INTO t (k) VALUES (?) ON CONFLICT (k) DO NOTHING');
  const count = () => store.db.prepare('SELECT COUNT(*) FROM t').pluck().get();
  const batch = store.commit(() => void claim.run('a'));
  const first = store.writeOne(async () => claim.run('b').changes === 1);
  const again = store.writeOne(async () => claim.run('b').changes === 1);
  // Queued, not run on its own: an idempotency claim or stored answer no longer commits (and writes its pages) alone.
  assert.equal(count(), 0, 'nothing written before the shared commit');
  await batch;
  assert.equal(count(), 2, 'committed with the write queued in the same turn');
  assert.equal(await first, true);
  assert.equal(await again, false, 'the second claim of the key, in the same transaction, sees the first');
});
