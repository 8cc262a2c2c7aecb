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
