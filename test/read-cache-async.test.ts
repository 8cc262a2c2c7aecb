import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadCache } from '../src/store/read-cache';

// Issue 17: ReadCache follows any version source (SQLite's data_version, PostgreSQL's change feed) and loads
// asynchronously with getAsync, never keeping a value that may have been read before a write.

function source() {
  const s = { version: 0, current: () => s.version };
  return s;
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('getAsync loads once, then serves the frozen value; a miss is cached too', async () => {
  const cache = new ReadCache<{ n: number; tags: string[] }>(source());
  let loads = 0;
  const load = async () => ({ n: ++loads, tags: ['a'] });
  const first = await cache.getAsync('k', load);
  assert.deepEqual(first, { n: 1, tags: ['a'] });
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first!.tags));
  assert.equal(await cache.getAsync('k', load), first);
  assert.equal(loads, 1);

  let missLoads = 0;
  assert.equal(await cache.getAsync('missing', async () => { missLoads++; return undefined; }), undefined);
  assert.equal(await cache.getAsync('missing', async () => { missLoads++; return { n: 0, tags: [] }; }), undefined);
  assert.equal(missLoads, 1);
});

test('a new version empties the cache, as for get', async () => {
  const versions = source();
  const cache = new ReadCache<number>(versions);
  await cache.getAsync('k', async () => 1);
  versions.version++;
  assert.equal(await cache.getAsync('k', async () => 2), 2);
  assert.equal(cache.get('k', () => 3), 2, 'get and getAsync share the entries');
});

test('a value loaded while the version changed is returned but not kept', async () => {
  const versions = source();
  const cache = new ReadCache<string>(versions);
  const gate = deferred<string>();
  const pending = cache.getAsync('k', () => gate.promise);
  versions.version++; // a write committed while the row was being read
  gate.resolve('maybe-old');
  assert.equal(await pending, 'maybe-old');
  assert.equal(await cache.getAsync('k', async () => 'new'), 'new');
  assert.equal(await cache.getAsync('k', async () => 'newer'), 'new');
});

test('a value loaded across a clear() (this process wrote) is not kept', async () => {
  const cache = new ReadCache<string>(source());
  const gate = deferred<string>();
  const pending = cache.getAsync('k', () => gate.promise);
  cache.clear();
  gate.resolve('maybe-old');
  await pending;
  assert.equal(await cache.getAsync('k', async () => 'new'), 'new');
});

test('a load that started before another caller saw a new version is not kept under it', async () => {
  const versions = source();
  const cache = new ReadCache<string>(versions);
  const gate = deferred<string>();
  const slow = cache.getAsync('k', () => gate.promise);
  versions.version++;
  assert.equal(await cache.getAsync('k', async () => 'fresh'), 'fresh');
  gate.resolve('stale');
  assert.equal(await slow, 'stale');
  assert.equal(await cache.getAsync('k', async () => 'other'), 'fresh');
});

test('a source that answers a new number on every call (a change feed that is down) caches nothing', async () => {
  let n = 0;
  const cache = new ReadCache<number>({ current: () => ++n });
  let loads = 0;
  for (let i = 0; i < 3; i++) await cache.getAsync('k', async () => ++loads);
  assert.equal(loads, 3);
  for (let i = 0; i < 3; i++) cache.get('j', () => ++loads);
  assert.equal(loads, 6);
});

test('a failed load caches nothing and rejects', async () => {
  const cache = new ReadCache<number>(source());
  await assert.rejects(cache.getAsync('k', async () => { throw new Error('connection lost'); }), /connection lost/);
  assert.equal(await cache.getAsync('k', async () => 7), 7);
});
