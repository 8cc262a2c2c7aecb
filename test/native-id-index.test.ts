import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChargeRecord } from '../src/store/charges';
import type { SqliteStore, Store } from '../src/store';
import { openSqliteStore } from '../src/store';
import { PgStore } from '../src/store/pg/index';
import { PgChargesRepository } from '../src/store/pg/charges';
import { newChargeId } from '../src/charges/orchestrator';
import { migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Which gateway ids a charge is found by (docs/compatibility.md, "Which gateway ids are indexed"): the gateway's id,
// unless the charge's gateway's webhooks name RouteGate's charge id (gatewaysNamingChargeId, which the service sets
// and these stores leave empty until the last tests); the ids in refs, and that gateway's id too, while the account's
// compatibility mode is the charge's gateway, and from the moment the mode is turned on, for the charges settled
// before.

let pgDb: MigratedPgDatabase;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-native-ids-'));
const stores: Array<{ name: string; store: Store }> = [{ name: 'SQLite', store: openSqliteStore(path.join(dir, 'ids.db')) }];

before(async () => {
  if (NO_PG) return;
  pgDb = await migratedPgDatabase();
  stores.push({ name: 'PostgreSQL', store: await PgStore.open(pgDb.url) });
});

after(async () => {
  for (const s of stores) await s.store.close();
  await pgDb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let accounts = 0;
async function account(store: Store): Promise<string> {
  const n = ++accounts;
  return (await store.accounts.create({ id: `acc_ids_${n}`, name: `Loja ${n}`, email: `ids${n}@example.com`, webhookToken: `whk_ids_${n}` })).id;
}

async function setMode(store: Store, accountId: string, mode: string | null): Promise<void> {
  await store.accounts.saveSettings(accountId, { ...(await store.accounts.settings(accountId)), compatibilityMode: mode });
}

function charge(accountId: string, gateway: string): ChargeRecord {
  return {
    id: newChargeId(), accountId, gateway, primaryGateway: gateway, fallbackUsed: false, externalId: null,
    paymentMethod: 'credit_card', status: 'processing', amount: 1999, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null,
    description: null, customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
    boletoBarcodeNumber: null, pixExpiresAt: null, boletoDueDate: null, card: null, metadata: null, split: null, dispute: null, installments: null, declineCode: null,
    errorCode: null, errorMessage: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
  };
}

/** A charge settled with a gateway id and two refs ids, as Pagar.me's and PagBank's answers give them. */
async function settled(store: Store, accountId: string, gateway = 'pagarme'): Promise<ChargeRecord> {
  const c = charge(accountId, gateway);
  await store.charges.insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
  await store.charges.settle(c.id, { status: 'approved', paidAmount: 1999, externalId: `or_${c.id}`, refs: { chargeId: `ch_${c.id}`, qrCodeId: `qr_${c.id}` } }, 'creator');
  return c;
}

const found = async (store: Store, accountId: string, id: string) => (await store.charges.findByAnyId(accountId, id))?.id;

test('without compatibility mode a charge is found by the gateway\'s id, not by its refs ids', async () => {
  for (const { name, store } of stores) {
    const acc = await account(store);
    const c = await settled(store, acc);
    assert.equal(await found(store, acc, `or_${c.id}`), c.id, `${name}: the gateway's id (webhooks look it up)`);
    assert.equal(await found(store, acc, `ch_${c.id}`), undefined, `${name}: a refs id is not indexed`);
    assert.equal(await found(store, acc, c.id), c.id, `${name}: RouteGate's own id`);
  }
});

test('while the mode is the charge\'s gateway, settle and update index the refs ids; another gateway\'s charge keeps only its gateway id', async () => {
  for (const { name, store } of stores) {
    const acc = await account(store);
    await setMode(store, acc, 'pagarme');
    const c = await settled(store, acc);
    for (const id of [`or_${c.id}`, `ch_${c.id}`, `qr_${c.id}`]) assert.equal(await found(store, acc, id), c.id, `${name}: ${id}`);
    const other = await settled(store, acc, 'pagbank');
    assert.equal(await found(store, acc, `or_${other.id}`), other.id, name);
    assert.equal(await found(store, acc, `ch_${other.id}`), undefined, `${name}: a PagBank charge's refs, in Pagar.me's mode`);
    const later = charge(acc, 'pagarme');
    await store.charges.insert(later, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
    await store.charges.update(later.id, { externalId: `or_${later.id}`, refs: { chargeId: `ch_${later.id}` } });
    assert.equal(await found(store, acc, `ch_${later.id}`), later.id, `${name}: update() too`);
  }
});

test('turning the mode on indexes the refs ids of the charges at that gateway settled before; turning it off keeps them', async () => {
  for (const { name, store } of stores) {
    const acc = await account(store);
    const before = await settled(store, acc);
    const pagbank = await settled(store, acc, 'pagbank');
    await setMode(store, acc, 'pagarme');
    assert.equal(await found(store, acc, `ch_${before.id}`), before.id, `${name}: backfilled`);
    assert.equal(await found(store, acc, `qr_${before.id}`), before.id, name);
    assert.equal(await found(store, acc, `ch_${pagbank.id}`), undefined, `${name}: only the mode's gateway`);
    await setMode(store, acc, 'pagbank');
    assert.equal(await found(store, acc, `ch_${pagbank.id}`), pagbank.id, `${name}: switching to another gateway backfills its charges`);
    await setMode(store, acc, null);
    const off = await settled(store, acc);
    assert.equal(await found(store, acc, `ch_${before.id}`), before.id, `${name}: ids indexed stay indexed`);
    assert.equal(await found(store, acc, `ch_${off.id}`), undefined, `${name}: mode off again: not indexed`);
    const other = await account(store);
    await setMode(store, other, 'pagarme');
    assert.equal(await found(store, other, `ch_${before.id}`), undefined, `${name}: only the account's own charges`);
  }
});

test('PostgreSQL: turning the mode on waits for a settle in flight that read the mode off, then indexes its refs', { skip: NO_PG }, async () => {
  const { store } = stores.find((s) => s.name === 'PostgreSQL')!;
  const acc = await account(store);
  const c = charge(acc, 'pagarme');
  await store.charges.insert(c, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
  const client = await pgDb.pool.connect();
  try {
    await client.query('BEGIN');
    await new PgChargesRepository(client, {}).settle(c.id, { status: 'approved', externalId: `or_${c.id}`, refs: { chargeId: `ch_${c.id}` } }, 'creator');
    let saved = false;
    const saving = setMode(store, acc, 'pagarme').then(() => { saved = true; });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(saved, false, 'the mode change waits for the transaction writing charges');
    await client.query('COMMIT');
    await saving;
  } finally {
    client.release();
  }
  assert.equal(await found(store, acc, `ch_${c.id}`), c.id, 'the settle that read the mode off is backfilled');
});

/** The rows charge_native_ids holds for a charge, as either store keeps them. */
async function indexedIds(name: string, store: Store, chargeId: string): Promise<string[]> {
  if (name === 'PostgreSQL') {
    return (await pgDb.pool.query({ text: 'SELECT native_id FROM charge_native_ids WHERE charge_id = $1 ORDER BY native_id', values: [chargeId] })).rows.map((r) => r.native_id);
  }
  return (store as SqliteStore).db.prepare('SELECT native_id FROM charge_native_ids WHERE charge_id = ? ORDER BY native_id').pluck().all(chargeId) as string[];
}

test('at a gateway whose webhooks name the charge, its gateway id is indexed only for compatibility mode, and backfilled when the mode turns to it', async () => {
  for (const { name, store } of stores) {
    store.charges.gatewaysNamingChargeId = new Set(['pagarme']);
    try {
      const acc = await account(store);
      const c = await settled(store, acc);
      assert.deepEqual(await indexedIds(name, store, c.id), [], `${name}: no random page for a charge webhooks find by RouteGate's id`);
      assert.equal(await found(store, acc, c.id), c.id, `${name}: RouteGate's own id`);
      const pagbank = await settled(store, acc, 'pagbank');
      assert.deepEqual(await indexedIds(name, store, pagbank.id), [`or_${pagbank.id}`], `${name}: another gateway's id stays indexed for its webhooks`);
      const updated = charge(acc, 'pagarme');
      await store.charges.insert(updated, { owner: 'creator', expiresAt: Date.now() + 60_000 }, 1);
      await store.charges.update(updated.id, { externalId: `or_${updated.id}` });
      assert.deepEqual(await indexedIds(name, store, updated.id), [], `${name}: update() as settle()`);

      await setMode(store, acc, 'pagarme');
      for (const id of [`or_${c.id}`, `ch_${c.id}`, `qr_${c.id}`]) assert.equal(await found(store, acc, id), c.id, `${name}: ${id} backfilled with the mode`);
      assert.equal(await found(store, acc, `or_${updated.id}`), updated.id, `${name}: a gateway id without refs is backfilled too`);
      const during = await settled(store, acc);
      assert.equal(await found(store, acc, `or_${during.id}`), during.id, `${name}: while the mode is its gateway, settle indexes it`);

      const other = await account(store);
      const plain = await settled(store, other);
      await setMode(store, other, 'pagbank');
      assert.deepEqual(await indexedIds(name, store, plain.id), [], `${name}: another gateway's mode backfills nothing of it`);
    } finally {
      store.charges.gatewaysNamingChargeId = new Set();
    }
  }
});
