import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WebhookEventRecord, WebhookEventsRepository } from '../src/store/webhook-events';
import type { SigningSecretsRepository } from '../src/store/signing-secrets';
import { PgWebhookEventsRepository } from '../src/store/pg/webhook-events';
import { PgSigningSecretsRepository } from '../src/store/pg/signing-secrets';
import { seal } from '../src/lib/crypto';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import type { SameAsync } from './helpers/async-contract';
import { unlessAvailable } from './helpers/services';

/** The charge findCharge names (its other fields are the receiver's shortcuts, checked where they matter). */
const whose = (c: { id: string; accountId: string } | undefined) => c && { id: c.id, accountId: c.accountId };

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the PostgreSQL webhook events and signing secrets keep the SQLite contract; a gateway event is
// stored once however many processes receive it.

const contracts: [SameAsync<PgWebhookEventsRepository, WebhookEventsRepository>, SameAsync<PgSigningSecretsRepository, SigningSecretsRepository>] = [true, true];

let db: ScratchDatabase;
let events: PgWebhookEventsRepository;
let secrets: PgSigningSecretsRepository;

before(async () => {
  if (NO_PG) return;
  db = await scratchPgDatabase();
  events = new PgWebhookEventsRepository(db.pool);
  secrets = new PgSigningSecretsRepository(db.pool);
});

after(async () => {
  await db?.drop();
});

async function account(): Promise<string> {
  const id = `acc_${randomUUID()}`;
  await db.pool.query("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES ($1, 'Loja', 'l@example.com', $2, 'now', 'now')", [id, `wh_${id}`]);
  return id;
}

function event(accountId: string, over: Partial<WebhookEventRecord> = {}): WebhookEventRecord {
  return {
    id: `evt_${randomUUID()}`, accountId, gateway: 'gw_one', gatewayEventId: `ge_${randomUUID()}`, type: 'charge.paid', chargeId: null,
    payload: '{"type":"charge.paid"}', createdAt: new Date().toISOString(), verified: true, flag: null, ...over,
  };
}

test('the repositories have the SQLite public methods, each async (checked by the compiler)', () => {
  assert.deepEqual(contracts, [true, true]);
});

test('webhook events: one per (account, gateway, gateway event id); a duplicate writes nothing', { skip: NO_PG }, async () => {
  const acc = await account();
  const other = await account();
  const e = event(acc, { verified: false, chargeId: 'ch_1' });
  assert.equal(await events.insert(e), true);
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, payload: '{"changed":true}' }), false, 'same gateway event again');
  assert.deepEqual(await events.findByGatewayId(acc, 'gw_one', e.gatewayEventId), e, 'the first one kept, as it was');
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, gateway: 'gw_two' }), true, 'same id at another gateway');
  assert.equal(await events.insert({ ...e, id: `evt_${randomUUID()}`, accountId: other }), true, 'same id for another account');
  const { rows } = await db.pool.query('SELECT COUNT(*) AS n FROM webhook_events WHERE gateway_event_id = $1', [e.gatewayEventId]);
  assert.equal(rows[0].n, 3);
});

test('webhook events: the same gateway event stored at once by three pools is stored once', { skip: NO_PG }, async () => {
  const acc = await account();
  const pools = [db.newPool(), db.newPool(), db.newPool()];
  try {
    for (let round = 0; round < 5; round++) {
      const e = event(acc);
      const results = await Promise.all(pools.map((pool) => new PgWebhookEventsRepository(pool).insert({ ...e, id: `evt_${randomUUID()}` })));
      assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results}`);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('webhook events: verified true, false and unknown (null), and a flag, come back as stored; get is scoped to the account', { skip: NO_PG }, async () => {
  const acc = await account();
  const other = await account();
  for (const [verified, flag] of [[true, null], [false, null], [null, null], [true, 'paidAmount 2000 exceeds the charge\'s amount 1000']] as const) {
    const e = event(acc, { verified, flag });
    await events.insert(e);
    assert.deepEqual(await events.get(acc, e.id), e);
    assert.equal(await events.get(other, e.id), undefined);
  }
  assert.equal(await events.findByGatewayId(acc, 'gw_one', 'ge_unknown'), undefined);
});

test('webhook events: list is newest first, by id on equal times, and pages with `after`', { skip: NO_PG }, async () => {
  const acc = await account();
  const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();
  const made = [
    event(acc, { id: 'evt_a', createdAt: at(1) }), event(acc, { id: 'evt_c', createdAt: at(2) }), event(acc, { id: 'evt_b', createdAt: at(2) }),
    event(acc, { id: 'evt_B', createdAt: at(2) }), event(acc, { id: 'evt_d', createdAt: at(3) }),
  ];
  for (const e of made) await events.insert(e);
  const expected = ['evt_d', 'evt_c', 'evt_b', 'evt_B', 'evt_a'];
  assert.deepEqual((await events.list(acc, 10)).map((e) => e.id), expected);
  const pages: string[][] = [];
  let after: WebhookEventRecord | undefined;
  for (;;) {
    const page = await events.list(acc, 2, after && { createdAt: after.createdAt, id: after.id });
    if (page.length === 0) break;
    pages.push(page.map((e) => e.id));
    after = page[page.length - 1];
  }
  assert.deepEqual(pages, [['evt_d', 'evt_c'], ['evt_b', 'evt_B'], ['evt_a']]);
  assert.deepEqual(await events.list(await account(), 10), []);
});

// Issue 39 item 5: the charge an event names only when exactly one charge answers (the account-less URL hands the
// event to that charge's account); the gateway's id is unique per gateway (charges_gateway_external_id), but a refs
// id in charge_native_ids can be shared, and the gateway's id and RouteGate's id can name different charges.
test("webhook events: findCharge by the gateway's id and by RouteGate's id at that gateway, only when one charge answers", { skip: NO_PG }, async () => {
  const acc = await account();
  const other = await account();
  // As the charges repository writes them: the row, and each gateway id in charge_native_ids.
  const charge = async (id: string, gateway: string, externalId: string | null, createdAt: string, owner = acc, nativeIds: string[] = externalId ? [externalId] : []) => {
    await db.pool.query(
      `INSERT INTO charges (id, account_id, gateway, external_id, payment_method, status, amount, currency, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'pix', 'pending', 1000, 'BRL', $5, $5)`, [id, owner, gateway, externalId, createdAt]);
    for (const n of nativeIds) await db.pool.query('INSERT INTO charge_native_ids (native_id, account_id, charge_id) VALUES ($1, $2, $3)', [n, owner, id]);
  };
  await charge('ch_old', 'gw_one', 'ext_1', '2030-01-01T00:00:00.000Z', other);
  await charge('ch_new', 'gw_one', 'ext_9', '2030-01-02T00:00:00.000Z', acc, ['ext_9', 'ext_1']);
  await charge('ch_ref', 'gw_one', null, '2030-01-03T00:00:00.000Z');
  await charge('ch_two', 'gw_two', 'ext_2', '2030-01-03T00:00:00.000Z');
  await charge('ch_three', 'gw_one', 'ext_3', '2030-01-04T00:00:00.000Z', acc, []);
  assert.equal(await events.findCharge('gw_one', 'ext_1', undefined), undefined, 'two charges answer to ext_1: no guess');
  assert.deepEqual(whose(await events.findCharge('gw_one', 'ext_1', undefined, acc)), { id: 'ch_new', accountId: acc }, 'in one account it is one');
  assert.deepEqual(whose(await events.findCharge('gw_one', 'ext_1', undefined, other)), { id: 'ch_old', accountId: other });
  assert.deepEqual(whose(await events.findCharge('gw_one', 'ext_3', undefined)), { id: 'ch_three', accountId: acc }, 'by the charge row, not indexed in native ids');
  assert.deepEqual(whose(await events.findCharge('gw_one', 'ext_unknown', 'ch_ref')), { id: 'ch_ref', accountId: acc });
  assert.deepEqual(whose(await events.findCharge('gw_one', undefined, 'ch_ref')), { id: 'ch_ref', accountId: acc });
  assert.equal(await events.findCharge('gw_one', undefined, 'ch_ref', other), undefined, "another account's charge is not found from this account's URL");
  assert.equal(await events.findCharge('gw_one', 'ext_3', 'ch_ref'), undefined, 'the two ids name two charges: no guess');
  assert.deepEqual(whose(await events.findCharge('gw_one', 'ext_3', 'ch_three')), { id: 'ch_three', accountId: acc });
  assert.equal(await events.findCharge('gw_one', 'ext_2', 'ch_two'), undefined, "another gateway's charge is not this event's");
  assert.equal(await events.findCharge('gw_one', undefined, undefined), undefined);
  await assert.rejects(charge('ch_dup', 'gw_one', 'ext_3', '2030-01-05T00:00:00.000Z', other, []), /charges_gateway_external_id/, "a gateway's id is unique per gateway across accounts");
});

test('signing secrets: sealed bytes as stored; active ones newest first; expireAll brings expiries forward only', { skip: NO_PG }, async () => {
  const acc = await account();
  const other = await account();
  const key = Buffer.alloc(32, 9);
  const secret = (id: string, createdAt: string) => ({ id, accountId: acc, createdAt, ...seal(key, `whsec_${id}`, `${acc}:${id}`) });
  const s1 = secret('ss_1', '2030-01-01T00:00:00.000Z');
  const s2 = secret('ss_2', '2030-01-02T00:00:00.000Z');
  await secrets.insert(s1);
  await secrets.insert(s2);
  await secrets.insert({ ...secret('ss_other', '2030-01-03T00:00:00.000Z'), accountId: other });
  const active = await secrets.active(acc, 1000);
  assert.deepEqual(active, [{ ...s2, expiresAt: null }, { ...s1, expiresAt: null }]);
  assert.ok(Buffer.isBuffer(active[0].ciphertext));

  await secrets.expireAll(acc, 5000); // a rotation: both keep signing until 5 000
  await secrets.insert(secret('ss_3', '2030-01-04T00:00:00.000Z'));
  assert.deepEqual((await secrets.active(acc, 4999)).map((r) => [r.id, r.expiresAt]), [['ss_3', null], ['ss_2', 5000], ['ss_1', 5000]]);
  assert.deepEqual((await secrets.active(acc, 5000)).map((r) => r.id), ['ss_3'], 'expired at 5 000');
  await secrets.expireAll(acc, 7000); // later than the earlier ones' expiry: those are not pushed back
  assert.deepEqual((await secrets.active(acc, 4999)).map((r) => [r.id, r.expiresAt]), [['ss_3', 7000], ['ss_2', 5000], ['ss_1', 5000]]);
  await secrets.expireAll(acc, 3000); // earlier: brought forward
  assert.deepEqual((await secrets.active(acc, 2999)).map((r) => [r.id, r.expiresAt]), [['ss_3', 3000], ['ss_2', 3000], ['ss_1', 3000]]);
  assert.deepEqual((await secrets.active(other, 9_999_999)).map((r) => r.id), ['ss_other']);
});
