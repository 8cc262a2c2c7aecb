import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteStore } from '../src/store';
import { databaseAtVersion, insertAccount } from './helpers/older-database';

/** The charge findCharge names (its other fields are the receiver's shortcuts, checked where they matter). */
const whose = (c: { id: string; accountId: string } | undefined) => c && { id: c.id, accountId: c.accountId };

// Migration 014 (write locality) rebuilds charge_native_ids keyed by the gateway's id first and drops
// charges_external: a database written before it must find its charges by every gateway id afterwards, from a
// webhook (no account) and from a native follow-up (the account's).

function databaseAt(version: number): string {
  return databaseAtVersion(version, (db) => {
    const now = '2030-01-01T00:00:00.000Z';
    insertAccount(db, 'acc_a');
    insertAccount(db, 'acc_b');
    const charge = db.prepare(`INSERT INTO charges (id, account_id, gateway, external_id, refs, payment_method, status, amount, currency, created_at, updated_at)
      VALUES (?, ?, 'pagarme', ?, ?, 'pix', 'pending', 1000, 'BRL', ?, ?)`);
    const native = db.prepare('INSERT INTO charge_native_ids (account_id, native_id, charge_id) VALUES (?, ?, ?)');
    charge.run('chg_1', 'acc_a', 'ch_111', JSON.stringify({ orderId: 'or_111' }), now, now);
    native.run('acc_a', 'ch_111', 'chg_1');
    native.run('acc_a', 'or_111', 'chg_1');
    charge.run('chg_2', 'acc_b', 'ch_222', null, '2030-01-02T00:00:00.000Z', '2030-01-02T00:00:00.000Z');
    native.run('acc_b', 'ch_222', 'chg_2');
  });
}

test('after migration 014 every gateway id stored before it still finds its charge, with or without the account', async () => {
  const store = openSqliteStore(databaseAt(13));
  try {
    assert.deepEqual(whose(await store.webhookEvents.findCharge('pagarme', 'ch_111', undefined)), { id: 'chg_1', accountId: 'acc_a' });
    assert.deepEqual(whose(await store.webhookEvents.findCharge('pagarme', 'or_111', undefined)), { id: 'chg_1', accountId: 'acc_a' });
    assert.deepEqual(whose(await store.webhookEvents.findCharge('pagarme', 'ch_222', undefined)), { id: 'chg_2', accountId: 'acc_b' });
    assert.equal(await store.webhookEvents.findCharge('stripe', 'ch_111', undefined), undefined, "another gateway's event is not this charge's");
    assert.equal((await store.charges.findByAnyId('acc_a', 'or_111'))?.id, 'chg_1');
    assert.equal(await store.charges.findByAnyId('acc_b', 'or_111'), undefined, "another account's gateway id finds nothing");

    const keys = store.db.prepare("SELECT name FROM pragma_index_xinfo('sqlite_autoindex_charge_native_ids_1') WHERE key = 1 ORDER BY seqno").pluck().all();
    assert.deepEqual(keys, ['native_id', 'account_id']);
    const indexes = store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'charges'").pluck().all();
    assert.ok(!indexes.includes('charges_external'), 'charges_external is gone');
    for (const name of ['charges_account_created', 'charges_account_status_created', 'charges_account_gateway_created']) {
      const desc = store.db.prepare(`SELECT count(*) FROM pragma_index_xinfo('${name}') WHERE key = 1 AND desc = 1`).pluck().get();
      assert.equal(desc, 0, `${name} ascends`);
    }
  } finally {
    await store.close();
  }
});

test('a settled charge is found by its gateway id from a webhook and a native follow-up, by its refs ids in compatibility mode', async () => {
  const store = openSqliteStore(databaseAt(14));
  try {
    const now = new Date().toISOString();
    await store.commit(async (tx) => {
      await tx.charges.insert({
        id: 'chg_new', accountId: 'acc_a', gateway: 'pagarme', primaryGateway: 'pagarme', fallbackUsed: false, externalId: null, paymentMethod: 'pix',
        status: 'processing', amount: 500, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null, description: null, customerId: null,
        refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null, errorMessage: null,
        createdAt: now, updatedAt: now,
      }, { owner: 'me', expiresAt: Date.now() + 60_000 }, 1);
    });
    await store.commit(async (tx) => {
      await tx.charges.settle('chg_new', { status: 'pending', externalId: 'ch_new', refs: { orderId: 'or_new' } }, 'me');
    });
    assert.deepEqual(whose(await store.webhookEvents.findCharge('pagarme', 'ch_new', undefined)), { id: 'chg_new', accountId: 'acc_a' });
    assert.equal((await store.charges.findByAnyId('acc_a', 'ch_new'))?.id, 'chg_new');
    // Refs ids are indexed in the charge's gateway's compatibility mode (test/native-id-index.test.ts).
    assert.equal(await store.charges.findByAnyId('acc_a', 'or_new'), undefined);
    await store.accounts.saveSettings('acc_a', { ...(await store.accounts.settings('acc_a')), compatibilityMode: 'pagarme' });
    assert.equal((await store.charges.findByAnyId('acc_a', 'or_new'))?.id, 'chg_new');
  } finally {
    await store.close();
  }
});
