import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { defaultSettings, type AccountsRepository, type SettingsRow } from '../src/store/accounts';
import type { ApiKeysRepository } from '../src/store/api-keys';
import type { CredentialsRepository } from '../src/store/credentials';
import { gatewaySettingNames } from '../src/gateways/account-settings';
import { PgAccountsRepository } from '../src/store/pg/accounts';
import { PgApiKeysRepository } from '../src/store/pg/api-keys';
import { createPgReadCaches } from '../src/store/pg/read-caches';
import { atomically, type Queryable } from '../src/store/pg/queryable';
import type { PgCredentialsRepository } from '../src/store/pg/credentials';
import { seal, sha256Hex } from '../src/lib/crypto';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import { pgProcess, type PgProcess } from './helpers/pg-process';
import type { SameAsync } from './helpers/async-contract';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the PostgreSQL accounts, API keys and credentials repositories keep the SQLite ones' contract.

// Compile-time: the same public methods, parameters and results, each returning a Promise.
const contracts: [
  SameAsync<PgAccountsRepository, AccountsRepository>,
  SameAsync<PgApiKeysRepository, ApiKeysRepository>,
  SameAsync<PgCredentialsRepository, CredentialsRepository>,
] = [true, true, true];

let db: ScratchDatabase;
let p: PgProcess;

before(async () => {
  if (NO_PG) return;
  db = await scratchPgDatabase();
  p = await pgProcess(db);
});

after(async () => {
  await p?.close();
  await db?.drop();
});

const newAccount = (over: Partial<{ id: string; name: string; email: string; webhookToken: string }> = {}) =>
  p.accounts.create({ id: `acc_${randomUUID()}`, name: 'Loja', email: 'loja@example.com', webhookToken: `wh_${randomUUID()}`, ...over });

test('the repositories have the SQLite public methods, each async (checked by the compiler)', () => {
  assert.deepEqual(contracts, [true, true, true]);
});

test('create returns the active account and gives it default settings; get and getByWebhookToken find it', { skip: NO_PG }, async () => {
  const a = await newAccount({ name: 'Loja Criada', email: 'Criada@Example.com' });
  assert.equal(a.active, true);
  assert.equal(a.name, 'Loja Criada');
  assert.equal(a.email, 'Criada@Example.com');
  assert.match(a.createdAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(a.updatedAt, a.createdAt);
  assert.deepEqual(await p.accounts.get(a.id), a);
  assert.deepEqual(await p.accounts.getByWebhookToken(a.webhookToken), a);
  assert.equal(await p.accounts.getByWebhookToken('wh_nope'), undefined);
  assert.equal(await p.accounts.get('acc_nope'), undefined);
  assert.deepEqual(await p.accounts.settings(a.id), defaultSettings());
  const { rows } = await db.pool.query('SELECT gateway_fallbacks, response_format FROM settings WHERE account_id = $1', [a.id]);
  assert.deepEqual(rows, [{ gateway_fallbacks: '[]', response_format: 'full' }]);
});

test('create is one statement: a refused account leaves no settings row behind', { skip: NO_PG }, async () => {
  const a = await newAccount();
  await assert.rejects(newAccount({ webhookToken: a.webhookToken }), { code: '23505' });
  const { rows } = await db.pool.query('SELECT COUNT(*) AS n FROM settings s LEFT JOIN accounts a ON a.id = s.account_id WHERE a.id IS NULL');
  assert.equal(rows[0].n, 0);
});

test('list is ordered by creation, then id (bytewise)', { skip: NO_PG }, async () => {
  const made = [await newAccount({ id: 'acc_B' }), await newAccount({ id: 'acc_a' })];
  await db.pool.query("UPDATE accounts SET created_at = '2000-01-01T00:00:00.000Z' WHERE id IN ('acc_B', 'acc_a')");
  const listed = (await p.accounts.list()).filter((a) => made.some((m) => m.id === a.id)).map((a) => a.id);
  assert.deepEqual(listed, ['acc_B', 'acc_a'], "'B' < 'a' bytewise, as in SQLite");
  assert.deepEqual((await p.accounts.list()).slice(0, 2).map((a) => a.id), ['acc_B', 'acc_a']);
});

test('setActive answers whether the account exists, and get sees the change at once', { skip: NO_PG }, async () => {
  const a = await newAccount();
  assert.equal((await p.accounts.get(a.id))?.active, true);
  assert.equal(await p.accounts.setActive(a.id, false), true);
  assert.equal((await p.accounts.get(a.id))?.active, false);
  assert.equal(await p.accounts.setActive(a.id, true), true);
  assert.equal((await p.accounts.get(a.id))?.active, true);
  assert.equal(await p.accounts.setActive('acc_nope', false), false);
});

test('saveSettings round-trips core and gateway-declared settings; unknown keys are not stored', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const before = await p.accounts.settings(a.id);
  const declared = gatewaySettingNames();
  const s: SettingsRow = { ...defaultSettings(), primaryGateway: 'gw_one', gatewayFallbacks: ['gw_two', 'gw_three'], compatibilityMode: 'gw_one', responseFormat: 'raw' as const, webhookForwardUrl: 'https://m.example/hook', notASetting: 1 };
  for (const name of declared) s[name] = `value-of-${name}`;
  await p.accounts.saveSettings(a.id, s);
  const saved = await p.accounts.settings(a.id);
  const { notASetting: _ignored, ...expected } = s;
  assert.deepEqual(saved, expected);
  assert.notDeepEqual(saved, before);
  const { rows } = await db.pool.query('SELECT gateway_settings FROM settings WHERE account_id = $1', [a.id]);
  assert.deepEqual(Object.keys(JSON.parse(rows[0].gateway_settings)).sort(), [...declared].sort());
});

test('settings of an account with no settings row are the defaults', { skip: NO_PG }, async () => {
  assert.deepEqual(await p.accounts.settings('acc_without_settings'), defaultSettings());
});

test('cached reads are frozen, so no caller can change what the next request reads', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const got = (await p.accounts.get(a.id))!;
  assert.throws(() => { (got as { active: boolean }).active = false; }, TypeError);
  const settings = await p.accounts.settings(a.id);
  assert.throws(() => { settings.gatewayFallbacks.push('x'); }, TypeError);
  assert.equal((await p.accounts.get(a.id))?.active, true);
});

test('a second read of an account, its settings, a key or a credential is served from the cache', { skip: NO_PG }, async () => {
  const a = await newAccount();
  await p.apiKeys.replace(a.id, sha256Hex('tk_cached'), 'tk_…ched');
  await p.credentials.upsert(a.id, 'gw_one', seal(Buffer.alloc(32, 1), 'secret', 'aad'), { secretKey: 'sk_…1234' });
  const reads = [() => p.accounts.get(a.id), () => p.accounts.settings(a.id), () => p.apiKeys.findByHash(sha256Hex('tk_cached')), () => p.credentials.get(a.id, 'gw_one'),
    () => p.apiKeys.findByHash(sha256Hex('tk_missing'))];
  // This process's own notifications come back through its listener and empty the caches once more.
  await p.feed.sync();
  for (const read of reads) await read();
  const before = p.queries();
  for (const read of reads) await read();
  assert.equal(p.queries(), before, 'no statement ran for the second reads');
});

test('replace revokes every live key of the account and stores the new hash; findByHash and live follow', { skip: NO_PG }, async () => {
  const a = await newAccount();
  assert.equal(await p.apiKeys.live(a.id), undefined);
  await p.apiKeys.replace(a.id, sha256Hex('tk_one'), 'tk_…_one');
  const one = (await p.apiKeys.findByHash(sha256Hex('tk_one')))!;
  assert.deepEqual({ accountId: one.accountId, revoked: one.revoked }, { accountId: a.id, revoked: false });
  assert.equal((await p.apiKeys.live(a.id))?.hint, 'tk_…_one');
  // Two live keys (a state replace never leaves) are both revoked by the next replace.
  await db.pool.query("INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES ('k_extra', $1, $2, 'x', '2000-01-01T00:00:00.000Z')", [a.id, sha256Hex('tk_extra')]);
  await p.apiKeys.replace(a.id, sha256Hex('tk_two'), 'tk_…_two');
  assert.equal((await p.apiKeys.findByHash(sha256Hex('tk_one')))?.revoked, true);
  assert.equal((await p.apiKeys.findByHash(sha256Hex('tk_two')))?.revoked, false);
  const live = (await p.apiKeys.live(a.id))!;
  assert.equal(live.hint, 'tk_…_two');
  assert.match(live.createdAt, /^\d{4}-/);
  const { rows } = await db.pool.query('SELECT key_hint FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [a.id]);
  assert.deepEqual(rows, [{ key_hint: 'tk_…_two' }]);
  assert.equal(await p.apiKeys.findByHash(sha256Hex('tk_unknown')), undefined);
});

test('replace is atomic: a hash already taken fails the rotation and the old key keeps working', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const b = await newAccount();
  await p.apiKeys.replace(a.id, sha256Hex('tk_a'), 'a');
  await p.apiKeys.replace(b.id, sha256Hex('tk_b'), 'b');
  await assert.rejects(p.apiKeys.replace(a.id, sha256Hex('tk_b'), 'dup'), { code: '23505' });
  assert.equal((await p.apiKeys.findByHash(sha256Hex('tk_a')))?.revoked, false);
  assert.equal((await p.apiKeys.live(a.id))?.hint, 'a');
});

test('concurrent rotations of one account from three pools leave exactly one live key', { skip: NO_PG }, async () => {
  const pools = [db.newPool(), db.newPool(), db.newPool()];
  const others = pools.map(pgProcessOn);
  try {
    for (let round = 0; round < 8; round++) {
      const a = await newAccount();
      await p.apiKeys.replace(a.id, sha256Hex(`tk_${a.id}_0`), 'first');
      await Promise.all(others.map((o, i) => o.replace(a.id, sha256Hex(`tk_${a.id}_${i + 1}`), `hint${i + 1}`)));
      const { rows } = await db.pool.query('SELECT key_hint FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [a.id]);
      assert.equal(rows.length, 1, `round ${round}: live keys ${JSON.stringify(rows)}`);
      assert.equal((await p.apiKeys.live(a.id))?.hint, rows[0].key_hint);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

function pgProcessOn(pool: import('pg').Pool): PgApiKeysRepository {
  return new PgApiKeysRepository(pool, createPgReadCaches({ current: () => 0, bump: () => undefined }));
}

test('credentials: upsert stores the sealed bytes as they were; a second upsert replaces them and keeps createdAt', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const key = Buffer.alloc(32, 7);
  const first = seal(key, 'sk_live_first', `${a.id}:gw_one`);
  await p.credentials.upsert(a.id, 'gw_one', first, { secretKey: 'sk_…irst' });
  const got = (await p.credentials.get(a.id, 'gw_one'))!;
  assert.ok(Buffer.isBuffer(got.ciphertext) && Buffer.isBuffer(got.iv) && Buffer.isBuffer(got.tag));
  assert.deepEqual([got.ciphertext, got.iv, got.tag], [first.ciphertext, first.iv, first.tag]);
  assert.deepEqual(got.masked, { secretKey: 'sk_…irst' });
  assert.equal(got.gateway, 'gw_one');

  await new Promise((r) => setTimeout(r, 5));
  const second = seal(key, 'sk_live_second', `${a.id}:gw_one`);
  await p.credentials.upsert(a.id, 'gw_one', second, { secretKey: 'sk_…cond' });
  const replaced = (await p.credentials.get(a.id, 'gw_one'))!;
  assert.deepEqual(replaced.ciphertext, second.ciphertext);
  assert.deepEqual(replaced.masked, { secretKey: 'sk_…cond' });
  assert.equal(replaced.createdAt, got.createdAt);
  assert.ok(replaced.updatedAt > got.updatedAt);
});

test('credentials: list by gateway, get by account and gateway, delete answers whether a row went', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const b = await newAccount();
  const sealed = seal(Buffer.alloc(32, 3), 'x', 'aad');
  for (const g of ['gw_z', 'gw_B', 'gw_a']) await p.credentials.upsert(a.id, g, sealed, { k: g });
  await p.credentials.upsert(b.id, 'gw_a', sealed, { k: 'b' });
  assert.deepEqual((await p.credentials.list(a.id)).map((c) => c.gateway), ['gw_B', 'gw_a', 'gw_z']);
  assert.equal(await p.credentials.get(b.id, 'gw_z'), undefined);
  assert.equal(await p.credentials.delete(a.id, 'gw_a'), true);
  assert.equal(await p.credentials.get(a.id, 'gw_a'), undefined);
  assert.equal(await p.credentials.delete(a.id, 'gw_a'), false);
  assert.deepEqual((await p.credentials.get(b.id, 'gw_a'))?.masked, { k: 'b' });
  assert.deepEqual(await p.credentials.list('acc_nope'), []);
});

test('replace in a store transaction is part of it: rolled back with it, the old key still works', { skip: NO_PG }, async () => {
  const a = await newAccount();
  await p.apiKeys.replace(a.id, sha256Hex(`tk_${a.id}_old`), 'old');
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await new PgApiKeysRepository(client, p.caches).replace(a.id, sha256Hex(`tk_${a.id}_new`), 'new');
    assert.equal(client.getTransactionStatus(), 'T', 'no COMMIT of its own');
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
  assert.equal((await p.apiKeys.live(a.id))?.hint, 'old');
  assert.equal(await p.apiKeys.findByHash(sha256Hex(`tk_${a.id}_new`)), undefined);
});

test('atomically: its own transaction on the pool or an idle client; nothing stays of work that failed', { skip: NO_PG }, async () => {
  const a = await newAccount();
  const insertKey = (q: Queryable, n: string) => q.query("INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES ($1, $2, $1, 'h', 'now')", [n, a.id]);
  const boom = new Error('boom');
  await assert.rejects(atomically(db.pool, async (tx) => { await insertKey(tx, `k_${a.id}_1`); throw boom; }), boom);
  const client = await db.pool.connect();
  try {
    await assert.rejects(atomically(client, async (tx) => { await insertKey(tx, `k_${a.id}_2`); throw boom; }), boom);
    assert.equal(client.getTransactionStatus(), 'I');
    await atomically(client, (tx) => insertKey(tx, `k_${a.id}_3`));
    assert.equal(client.getTransactionStatus(), 'I', 'committed');
  } finally {
    client.release();
  }
  await atomically(db.pool, (tx) => insertKey(tx, `k_${a.id}_4`));
  const { rows } = await db.pool.query('SELECT id FROM api_keys WHERE account_id = $1 ORDER BY id', [a.id]);
  assert.deepEqual(rows.map((r) => r.id), [`k_${a.id}_3`, `k_${a.id}_4`]);
  assert.equal(db.pool.idleCount, db.pool.totalCount, 'every client went back to the pool');
});

test("a transaction reads its own writes, and what it read is not kept for others: a rollback leaves no phantom key or account state", { skip: NO_PG }, async () => {
  const a = await newAccount();
  await p.accounts.setActive(a.id, false);
  await p.apiKeys.replace(a.id, sha256Hex(`tk_${a.id}_old`), 'old');
  await p.feed.sync();
  assert.equal((await p.accounts.get(a.id))?.active, false);
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const tx = { accounts: new PgAccountsRepository(client, p.caches), apiKeys: new PgApiKeysRepository(client, p.caches) };
    await tx.accounts.setActive(a.id, true);
    assert.equal((await tx.accounts.get(a.id))?.active, true, 'its own write');
    await tx.apiKeys.replace(a.id, sha256Hex(`tk_${a.id}_new`), 'new');
    assert.equal((await tx.apiKeys.findByHash(sha256Hex(`tk_${a.id}_new`)))?.revoked, false);
    assert.equal((await tx.apiKeys.findByHash(sha256Hex(`tk_${a.id}_old`)))?.revoked, true);
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
  assert.equal((await p.accounts.get(a.id))?.active, false, 'the deactivated account stays refused');
  assert.equal(await p.apiKeys.findByHash(sha256Hex(`tk_${a.id}_new`)), undefined, 'a key that was never committed does not authenticate');
  assert.equal((await p.apiKeys.findByHash(sha256Hex(`tk_${a.id}_old`)))?.revoked, false);
});
