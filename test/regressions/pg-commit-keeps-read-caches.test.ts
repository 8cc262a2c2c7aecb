import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PgStore } from '../../src/store/pg/index';
import { withDefaultUser } from '../../src/store/pg/pool';
import { AccountService } from '../../src/accounts/service';
import { freshPgDatabase } from '../helpers/pg';
import { unlessAvailable } from '../helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17, found by `npm run bench:scale`: PgStore.commit emptied the process's read caches (API keys, accounts,
// settings, credentials) after every transaction, whatever it wrote. Each charge commits twice, so under load the
// caches never served a read: every request read its key, account, settings and credentials from PostgreSQL
// (17 statements per charge instead of 12). Now only a transaction that wrote a cached table empties them.

test('PgStore.commit empties the read caches only after a transaction that wrote a cached table', { skip: NO_PG, timeout: 30_000 }, async (t) => {
  const database = await freshPgDatabase();
  const store = await PgStore.open(database.url);
  // A write outside RouteGate notifies nobody (docs/postgres.md): what the store then reads shows whether it
  // answered from its cache or went to the database.
  const outside = new pg.Client({ connectionString: withDefaultUser(database.url) });
  await outside.connect();
  t.after(async () => {
    await outside.end();
    await store.close();
    await database.drop();
  });
  const { id } = await new AccountService(store).create('Loja Antes', 'antes@example.com');
  // The notification of that create comes back asynchronously: wait until it has been counted.
  await (store as unknown as { feed: { sync(): Promise<void> } }).feed.sync();
  assert.equal((await store.accounts.get(id))!.name, 'Loja Antes');
  await outside.query("UPDATE accounts SET name = 'Loja Depois' WHERE id = $1", [id]);
  assert.equal((await store.accounts.get(id))!.name, 'Loja Antes', 'served from the cache');

  // A transaction on tables nobody caches (charges, the outbox, meta) leaves the caches alone.
  await store.commit(async (tx) => await tx.meta.set('bench', 'x'));
  assert.equal((await store.accounts.get(id))!.name, 'Loja Antes', 'still served from the cache');

  // One that writes a cached table empties them when it commits.
  await store.commit(async (tx) => await tx.accounts.saveSettings(id, { ...(await store.accounts.settings(id)), primaryGateway: 'pagarme' }));
  assert.equal((await store.accounts.get(id))!.name, 'Loja Depois');
  assert.equal((await store.accounts.settings(id)).primaryGateway, 'pagarme');
});
