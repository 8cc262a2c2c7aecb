import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AttemptRecord, ChargeRecord } from '../src/store/charges';
import { openSqliteStore } from '../src/store/index';
import { PgChargesRepository } from '../src/store/pg/charges';
import { PgWebhookEventsRepository } from '../src/store/pg/webhook-events';
import type { EventCharge } from '../src/store/webhook-events';
import { REFUSED_FOR_NOW } from '../src/charges/pending-refunds';
import { insertPgAccount, migratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

// hasRefundInProcess, and the same flag as findCharge reads it with the charge a notification names: what decides
// whether a verified notification about a charge settles refunds in process. Only a refund its gateway holds in process counts: not one refused for now (nothing at the
// gateway to read), not a pending capture, not a refund that ended.

type Repo = { insert(c: ChargeRecord, lock: { owner: string; expiresAt: number }): Promise<void>; addAttempt(id: string, a: AttemptRecord): Promise<void>;
  finishAttempt(id: string, a: AttemptRecord): Promise<void>; hasRefundInProcess(id: string): Promise<boolean> };

let serial = 0;
const charge = (accountId: string): ChargeRecord => ({
  id: `chg_probe${++serial}`, accountId, gateway: 'mercadopago', primaryGateway: 'mercadopago', fallbackUsed: false, externalId: `mp_${serial}`,
  paymentMethod: 'pix', status: 'approved', amount: 5_000, paidAmount: 5_000, refundedAmount: 0, currency: 'BRL', captured: true,
  description: null, customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
  declineCode: null, errorCode: null, errorMessage: null, createdAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z',
});
const attempt = (seq: number, operation: string, outcome: AttemptRecord['outcome'], failureKind: string | null = null): AttemptRecord => ({
  seq, operation, gateway: 'mercadopago', outcome, failureKind, durationMs: 1, createdAt: '2026-12-01T10:00:01.000Z',
});

type FindCharge = (gateway: string, externalId: unknown, reference: unknown, accountId?: string) => Promise<EventCharge | undefined>;

async function probe(repo: Repo, accountId: string, findCharge: FindCharge): Promise<void> {
  // What a notification's lookup of the charge says at once (WebhookEventsRepository.findCharge), beside the probe.
  const seen = async (c: ChargeRecord) => {
    const found = await findCharge('mercadopago', c.externalId, undefined, accountId);
    assert.equal(found?.externalId, c.externalId);
    return found?.refundInProcess;
  };
  const none = charge(accountId);
  await repo.insert(none, { owner: 'creator', expiresAt: 0 });
  await repo.addAttempt(none.id, attempt(1, 'create', 'success'));
  await repo.addAttempt(none.id, attempt(2, 'refund', 'success'));
  assert.equal(await repo.hasRefundInProcess(none.id), false, 'a refund that ended');
  await repo.addAttempt(none.id, attempt(3, 'refund', 'pending', REFUSED_FOR_NOW));
  assert.equal(await repo.hasRefundInProcess(none.id), false, 'a refund refused for now is not in process at the gateway');
  assert.equal(await seen(none), false);
  await repo.addAttempt(none.id, attempt(4, 'capture', 'unknown'));
  assert.equal(await repo.hasRefundInProcess(none.id), false, 'an unsettled capture is not a refund');

  const held = charge(accountId);
  await repo.insert(held, { owner: 'creator', expiresAt: 0 });
  await repo.addAttempt(held.id, attempt(1, 'refund', 'pending'));
  assert.equal(await repo.hasRefundInProcess(held.id), true, 'a refund the gateway holds in process');
  assert.equal(await seen(held), true);
  assert.equal(await repo.hasRefundInProcess(none.id), false, 'only the charge asked about');
  await repo.finishAttempt(held.id, attempt(1, 'refund', 'success'));
  assert.equal(await repo.hasRefundInProcess(held.id), false, 'settled');
  assert.equal(await seen(held), false);
  assert.equal(await repo.hasRefundInProcess('chg_missing'), false);
}

test('SQLite: only a refund held in process at its gateway counts', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-probe-'));
  const store = openSqliteStore(path.join(dir, 'rg.db'));
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const account = await store.accounts.create({ id: 'acc_probe', name: 'Probe', email: 'probe@example.com', webhookToken: 'wh_probe' });
  await probe(store.charges, account.id, (...args) => store.webhookEvents.findCharge(...args));
});

test('PostgreSQL: the same answers', { skip: unlessAvailable('postgres') }, async (t) => {
  const db = await migratedPgDatabase();
  t.after(() => db.close());
  await insertPgAccount(db.pool, 'acc_probe');
  const events = new PgWebhookEventsRepository(db.pool);
  await probe(new PgChargesRepository(db.pool, {}), 'acc_probe', (...args) => events.findCharge(...args));
});
