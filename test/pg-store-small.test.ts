import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChargeRecord } from '../src/store/charges';
import type { CoproducerRecord } from '../src/store/coproducers';
import type { CustomerRecord } from '../src/store/customers';
import { PgChargeStatsRepository } from '../src/store/pg/charge-stats';
import { PgChargesRepository } from '../src/store/pg/charges';
import { PgCoproducersRepository } from '../src/store/pg/coproducers';
import { PgCustomersRepository } from '../src/store/pg/customers';
import { PgMetaRepository } from '../src/store/pg/meta';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the contracts of CustomersRepository, CoproducersRepository, ChargeStatsRepository and MetaRepository on a
// real PostgreSQL, one database for this file.

let db: MigratedPgDatabase;

before(async () => {
  if (NO_PG) return;
  db = await migratedPgDatabase();
  for (const id of ['acc_1', 'acc_2']) await insertPgAccount(db.pool, id);
});

after(async () => {
  await db?.close();
});

function customer(over: Partial<CustomerRecord>): CustomerRecord {
  return {
    id: 'cus_rg_x', accountId: 'acc_1', gateway: 'gw_a', externalId: 'cus_x', name: 'Maria', email: 'maria@example.com',
    document: '12345678909', phone: null, address: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z', ...over,
  };
}

test('customers: insert and read back by gateway id, by own or gateway id, newest by document, listed newest first', { skip: NO_PG }, async () => {
  const customers = new PgCustomersRepository(db.pool);
  const full = customer({
    id: 'cus_rg_1', externalId: 'cus_g1', phone: '+5511999990000', createdAt: '2024-01-01T00:00:01.000Z',
    address: { street: 'Rua São João', number: '10', city: 'São Paulo', state: 'SP', postalCode: '01000-000' }, metadata: { origem: 'loja' },
  });
  const bare = customer({ id: 'cus_rg_2', externalId: 'cus_g2', createdAt: '2024-01-01T00:00:02.000Z' });
  const otherGateway = customer({ id: 'cus_rg_3', externalId: 'cus_g3', gateway: 'gw_b', createdAt: '2024-01-01T00:00:03.000Z' });
  const tie = customer({ id: 'cus_rg_0', externalId: 'cus_g0', createdAt: '2024-01-01T00:00:02.000Z' });
  const foreign = customer({ id: 'cus_rg_9', accountId: 'acc_2', externalId: 'cus_g9', createdAt: '2024-01-01T00:00:09.000Z' });
  for (const c of [full, bare, otherGateway, tie, foreign]) await customers.insert(c);

  assert.deepEqual(await customers.byExternalId('acc_1', 'cus_g1'), full);
  assert.deepEqual(await customers.byExternalId('acc_1', 'cus_g2'), bare);
  assert.equal(await customers.byExternalId('acc_2', 'cus_g1'), undefined, 'another account');
  assert.deepEqual(await customers.findByAnyId('acc_1', 'cus_rg_1'), full);
  assert.deepEqual(await customers.findByAnyId('acc_1', 'cus_g1'), full);
  assert.equal(await customers.findByAnyId('acc_1', 'cus_rg_9'), undefined);
  assert.equal(await customers.findByAnyId('acc_1', 'nobody'), undefined);
  // Same document at gw_a: full (00:01), bare and tie (00:02, ids 2 > 0): the newest, ties by id descending.
  assert.equal((await customers.byDocument('acc_1', 'gw_a', '12345678909'))?.id, 'cus_rg_2');
  assert.equal((await customers.byDocument('acc_1', 'gw_b', '12345678909'))?.id, 'cus_rg_3');
  assert.equal(await customers.byDocument('acc_1', 'gw_c', '12345678909'), undefined);
  assert.deepEqual((await customers.list('acc_1', 10)).map((c) => c.id), ['cus_rg_3', 'cus_rg_2', 'cus_rg_0', 'cus_rg_1']);
  assert.deepEqual((await customers.list('acc_1', 2, 1)).map((c) => c.id), ['cus_rg_2', 'cus_rg_0']);
  assert.deepEqual((await customers.list('acc_1', 2, 4)), []);
  assert.deepEqual((await customers.list('acc_2', 10)), [foreign]);
});

function coproducer(over: Partial<CoproducerRecord>): CoproducerRecord {
  return {
    id: 'cop_x', accountId: 'acc_1', email: 'ana@example.com', name: 'Ana', recipients: { gw_a: 're_1' },
    createdAt: '2024-02-01T00:00:00.000Z', updatedAt: '2024-02-01T00:00:00.000Z', ...over,
  };
}

test('coproducers: insert, get, by e-mail in any case, delete', { skip: NO_PG }, async () => {
  const coproducers = new PgCoproducersRepository(db.pool);
  const ana = coproducer({ id: 'cop_ana', recipients: { gw_a: 're_1', gw_b: 'acc_b_1' } });
  await coproducers.insert(ana);
  assert.deepEqual(await coproducers.get('acc_1', 'cop_ana'), ana);
  assert.equal(await coproducers.get('acc_2', 'cop_ana'), undefined);
  assert.deepEqual(await coproducers.byEmail('acc_1', 'ANA@Example.com'), ana);
  assert.equal(await coproducers.byEmail('acc_2', 'ana@example.com'), undefined);
  assert.equal(await coproducers.delete('acc_2', 'cop_ana'), false, "another account's id");
  assert.equal(await coproducers.delete('acc_1', 'cop_ana'), true);
  assert.equal(await coproducers.delete('acc_1', 'cop_ana'), false, 'already gone');
  assert.equal(await coproducers.get('acc_1', 'cop_ana'), undefined);
});

test('coproducers: an e-mail taken in the account fails insert and update with unique_violation (23505); update sets only what it is given', { skip: NO_PG }, async () => {
  const coproducers = new PgCoproducersRepository(db.pool);
  await coproducers.insert(coproducer({ id: 'cop_1', email: 'um@example.com', name: 'Um' }));
  await coproducers.insert(coproducer({ id: 'cop_2', email: 'dois@example.com', name: 'Dois', recipients: { gw_b: 're_2' } }));
  await coproducers.insert(coproducer({ id: 'cop_other', accountId: 'acc_2', email: 'um@example.com' })); // another account: allowed
  await assert.rejects(coproducers.insert(coproducer({ id: 'cop_3', email: 'um@example.com' })), { code: '23505', constraint: 'coproducers_account_email' });
  await assert.rejects(coproducers.update('acc_1', 'cop_2', { email: 'um@example.com', updatedAt: '2024-03-01T00:00:00.000Z' }), { code: '23505' });

  await coproducers.update('acc_1', 'cop_2', { name: 'Dois Novo', updatedAt: '2024-03-01T00:00:00.000Z' });
  assert.deepEqual(await coproducers.get('acc_1', 'cop_2'), coproducer({
    id: 'cop_2', email: 'dois@example.com', name: 'Dois Novo', recipients: { gw_b: 're_2' }, updatedAt: '2024-03-01T00:00:00.000Z',
  }));
  await coproducers.update('acc_1', 'cop_2', { recipients: { gw_a: 're_9' }, email: 'dois2@example.com', updatedAt: '2024-03-02T00:00:00.000Z' });
  const got = (await coproducers.get('acc_1', 'cop_2'))!;
  assert.deepEqual([got.email, got.name, got.recipients, got.updatedAt, got.createdAt], ['dois2@example.com', 'Dois Novo', { gw_a: 're_9' }, '2024-03-02T00:00:00.000Z', '2024-02-01T00:00:00.000Z']);
  await coproducers.update('acc_2', 'cop_2', { name: 'not mine', updatedAt: '2024-03-03T00:00:00.000Z' });
  assert.equal((await coproducers.get('acc_1', 'cop_2'))!.name, 'Dois Novo', "another account's update touches nothing");
});

test('coproducers: listed newest first, ties by id bytewise, paged by cursor', { skip: NO_PG }, async () => {
  await insertPgAccount(db.pool, 'acc_cop_list');
  const coproducers = new PgCoproducersRepository(db.pool);
  const specs: Array<[string, string]> = [['cop_a', '01'], ['cop_B', '01'], ['cop_c', '02'], ['cop_d', '03'], ['cop_E', '03']];
  for (const [id, s] of specs) {
    await coproducers.insert(coproducer({ id, accountId: 'acc_cop_list', email: `${id}@example.com`, createdAt: `2024-02-01T00:00:${s}.000Z` }));
  }
  const want = ['cop_d', 'cop_E', 'cop_c', 'cop_a', 'cop_B'];
  assert.deepEqual((await coproducers.list('acc_cop_list', 10)).map((c) => c.id), want);
  const paged: string[] = [];
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = await coproducers.list('acc_cop_list', 2, after);
    paged.push(...page.map((c) => c.id));
    if (page.length < 2) break;
    after = { createdAt: page[1].createdAt, id: page[1].id };
  }
  assert.deepEqual(paged, want);
});

test('charge stats: per calendar day in Brazil (UTC-3) and gateway since an instant, approved counting refunded, ordered by day then gateway', { skip: NO_PG }, async () => {
  await insertPgAccount(db.pool, 'acc_stats');
  const charges = new PgChargesRepository(db.pool, {});
  const stats = new PgChargeStatsRepository(db.pool);
  let n = 0;
  const add = async (createdAt: string, gateway: string | null, status: string) => {
    n += 1;
    const c = {
      id: `chg_stat_${n}`, accountId: 'acc_stats', gateway, primaryGateway: gateway, fallbackUsed: false, externalId: null, paymentMethod: 'pix', status,
      amount: 100, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null, description: null, customerId: null, refs: null, pixQrCode: null,
      pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null, errorMessage: null, createdAt, updatedAt: createdAt,
    } satisfies ChargeRecord;
    await charges.insert(c, { owner: 'x', expiresAt: 0 });
  };
  // 1 April in São Paulo runs from 03:00 UTC on the 1st to 03:00 UTC on the 2nd.
  await add('2024-04-01T02:59:59.999Z', 'gw_a', 'approved'); // before `since`: 31 March, 23:59 in Brazil
  await add('2024-04-01T03:00:00.000Z', 'gw_b', 'approved');
  await add('2024-04-01T10:00:00.000Z', 'gw_b', 'refunded');
  await add('2024-04-01T11:00:00.000Z', 'gw_b', 'declined');
  await add('2024-04-01T12:00:00.000Z', 'gw_a', 'processing');
  await add('2024-04-01T13:00:00.000Z', null, 'failed');
  await add('2024-04-02T02:59:59.999Z', 'gw_a', 'declined'); // 23:59 on the 1st in Brazil, the 2nd in UTC
  await add('2024-04-02T03:00:00.000Z', 'gw_a', 'approved');
  assert.deepEqual(await stats.dailyByGateway('acc_stats', '2024-04-01T03:00:00.000Z'), [
    { day: '2024-04-01', gateway: '', total: 1, approved: 0, declined: 0 },
    { day: '2024-04-01', gateway: 'gw_a', total: 2, approved: 0, declined: 1 },
    { day: '2024-04-01', gateway: 'gw_b', total: 3, approved: 2, declined: 1 },
    { day: '2024-04-02', gateway: 'gw_a', total: 1, approved: 1, declined: 0 },
  ]);
  assert.deepEqual(await stats.dailyByGateway('acc_1', '2024-04-01T03:00:00.000Z'), []);
});

test('meta: absent until set, then the last value set', { skip: NO_PG }, async () => {
  const meta = new PgMetaRepository(db.pool);
  assert.equal(await meta.get('schema.owner'), undefined);
  await meta.set('schema.owner', 'one');
  assert.equal(await meta.get('schema.owner'), 'one');
  await meta.set('schema.owner', 'two');
  assert.equal(await meta.get('schema.owner'), 'two');
  assert.equal(await new PgMetaRepository(db.newPool(1)).get('schema.owner'), 'two', 'seen from another process');
});
