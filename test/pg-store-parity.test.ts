import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type DB } from '../src/store/db';
import { ChargesRepository, type ChargeRecord } from '../src/store/charges';
import { ChargeStatsRepository } from '../src/store/charge-stats';
import { CoproducersRepository } from '../src/store/coproducers';
import { CustomersRepository } from '../src/store/customers';
import { IdempotencyRepository } from '../src/store/idempotency';
import { MetaRepository } from '../src/store/meta';
import { InstallmentQuotesRepository } from '../src/store/installment-quotes';
import { PgChargesRepository } from '../src/store/pg/charges';
import { PgChargeStatsRepository } from '../src/store/pg/charge-stats';
import { PgCoproducersRepository } from '../src/store/pg/coproducers';
import { PgCustomersRepository } from '../src/store/pg/customers';
import { PgIdempotencyRepository } from '../src/store/pg/idempotency';
import { PgMetaRepository } from '../src/store/pg/meta';
import { PgInstallmentQuotesRepository } from '../src/store/pg/installment-quotes';
import { insertPgAccount, migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: each PostgreSQL repository is the SQLite one with every method async. The types say so at compile time
// (same names, same parameters, the same result in a Promise), and one scenario run on both stores gives the same
// answers, orderings and booleans included.

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends (<T>() => T extends Y ? 1 : 2) ? true : false;
type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
/** The public members where Pg is not Lite made async (`Props` compared as they are; `Extra` only on Pg). */
type Mismatched<Lite, Pg, Props extends keyof Lite = never, Extra extends keyof Pg = never> = {
  [K in keyof Lite | Exclude<keyof Pg, Extra>]: K extends keyof Lite
    ? K extends keyof Pg
      ? (K extends Props ? Equal<Lite[K], Pg[K]> : Equal<Async<Lite[K]>, Pg[K]>) extends true ? never : K
      : K
    : K
}[keyof Lite | Exclude<keyof Pg, Extra>];
/** true, or the names of the members that differ (a compile error at the assignment below). */
type Contract<Lite, Pg, Props extends keyof Lite = never, Extra extends keyof Pg = never> =
  [Mismatched<Lite, Pg, Props, Extra>] extends [never] ? true : Mismatched<Lite, Pg, Props, Extra>;

const PAIRS = {
  charges: [ChargesRepository, PgChargesRepository, []],
  idempotency: [IdempotencyRepository, PgIdempotencyRepository, []],
  customers: [CustomersRepository, PgCustomersRepository, []],
  coproducers: [CoproducersRepository, PgCoproducersRepository, []],
  chargeStats: [ChargeStatsRepository, PgChargeStatsRepository, []],
  meta: [MetaRepository, PgMetaRepository, []],
  installmentQuotes: [InstallmentQuotesRepository, PgInstallmentQuotesRepository, []],
} as const;

test('every PostgreSQL repository has exactly the SQLite methods, async (checked by the compiler, then by name)', () => {
  const compiled: Record<keyof typeof PAIRS, true> = {
    charges: true as Contract<ChargesRepository, PgChargesRepository, 'attemptListener' | 'gatewaysNamingChargeId'>,
    idempotency: true as Contract<IdempotencyRepository, PgIdempotencyRepository>,
    customers: true as Contract<CustomersRepository, PgCustomersRepository>,
    coproducers: true as Contract<CoproducersRepository, PgCoproducersRepository>,
    chargeStats: true as Contract<ChargeStatsRepository, PgChargeStatsRepository>,
    meta: true as Contract<MetaRepository, PgMetaRepository>,
    installmentQuotes: true as Contract<InstallmentQuotesRepository, PgInstallmentQuotesRepository>,
  };
  assert.equal(Object.keys(compiled).length, 7);
  const methods = (proto: object) => Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, n)!.value === 'function').sort();
  for (const [name, [Lite, Pg, extra]] of Object.entries(PAIRS)) {
    assert.deepEqual(methods(Pg.prototype).filter((m) => m !== 'notify' && !(extra as readonly string[]).includes(m)), methods(Lite.prototype).filter((m) => m !== 'notify'), name);
  }
  assert.ok(Object.getOwnPropertyDescriptor(PgChargesRepository.prototype, 'attemptListener')?.set, 'attemptListener is settable');
  assert.ok(Object.getOwnPropertyDescriptor(PgChargesRepository.prototype, 'gatewaysNamingChargeId')?.set, 'gatewaysNamingChargeId is settable');
});

interface Repos {
  charges: PgChargesRepository;
  idempotency: PgIdempotencyRepository;
  customers: PgCustomersRepository;
  coproducers: PgCoproducersRepository;
  chargeStats: PgChargeStatsRepository;
  meta: PgMetaRepository;
  installmentQuotes: PgInstallmentQuotesRepository;
}

/** A small deterministic PRNG (mulberry32): the same "random" data for both stores. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same calls on either store; every answer is logged (updatedAt, set from the clock by update, left out). */
async function scenario(r: Repos): Promise<unknown[]> {
  const log: unknown[] = [];
  const out = (label: string, value: unknown) => log.push([label, JSON.parse(JSON.stringify(value ?? null, (k, v) => (k === 'updatedAt' ? undefined : v)))]);
  const rand = prng(17);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const ids = ['chg_A1', 'chg_a1', 'chg_B', 'chg_b', 'chg_é', 'chg_e', 'chg_Z', 'chg_~', 'chg_0', 'chg_ação', ...Array.from({ length: 30 }, (_, i) => `chg_${i.toString(36)}x`)];
  const times = ['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z', '2024-01-02T12:00:00.000Z', '2024-01-02T23:59:59.999Z', '2024-01-03T00:00:00.000Z'];
  for (const id of ids) {
    const gateway = pick(['gw_a', 'gw_b', null]);
    const c: ChargeRecord = {
      id, accountId: pick(['acc_p', 'acc_p', 'acc_p', 'acc_q']), gateway, primaryGateway: gateway, fallbackUsed: rand() < 0.3, externalId: null,
      paymentMethod: pick(['pix', 'boleto', 'credit_card']), status: pick(['approved', 'declined', 'processing', 'refunded', 'failed']),
      amount: Math.floor(rand() * 1e12), paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: pick([null, true, false]),
      description: pick([null, 'Pedido nº 1', '']), customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
      metadata: pick([null, { pedido: 'ação', n: '1' }]), split: null, installments: pick([null, { count: 3, installmentAmount: 334, totalAmount: 1000, interestFree: true }]), card: null, declineCode: null, errorCode: null, errorMessage: null,
      createdAt: pick(times), updatedAt: '2024-01-01T00:00:00.000Z',
    };
    await r.charges.insert(c, { owner: 'creator', expiresAt: Math.floor(rand() * 3) * 1_000 });
    if (rand() < 0.5) await r.charges.update(id, { externalId: `ext_${id}`, refs: { other: `ref_${id}` }, paidAmount: c.amount, status: pick(['approved', 'processing']) });
    if (rand() < 0.3) await r.charges.scheduleReconcile(id, Math.floor(rand() * 5), Math.floor(rand() * 3) * 1_000);
  }
  for (const id of ids) out(`get ${id}`, await r.charges.getById(id));
  for (const accountId of ['acc_p', 'acc_q']) {
    for (const status of [undefined, 'approved', 'processing']) {
      for (const gateway of [undefined, 'gw_a']) {
        let after: { createdAt: string; id: string } | undefined;
        for (let page = 0; page < 20; page++) {
          const rows = await r.charges.list(accountId, { status, gateway, limit: 3, after, offset: page % 2 });
          out(`list ${accountId} ${status} ${gateway} ${page}`, rows.map((x) => x.id));
          if (rows.length < 3) break;
          after = { createdAt: rows[2].createdAt, id: rows[2].id };
        }
      }
    }
  }
  for (const id of ['chg_B', 'ext_chg_B', 'ref_chg_é', 'ext_chg_0', 'chg_none', 'ext_chg_Z', ...ids.slice(10, 20).map((i) => `ref_${i}`)]) {
    out(`findByAnyId ${id}`, (await r.charges.findByAnyId('acc_p', id))?.id);
  }
  for (const id of ids.slice(0, 6)) {
    out(`seq ${id}`, [await r.charges.nextSeq(id), await r.charges.nextSeq(id)]);
    out(`lock ${id}`, [await r.charges.tryLock(id, 'w1', 1_500, 1_000), await r.charges.tryLock(id, 'w2', 2_000, 1_000), await r.charges.tryLock(id, 'w2', 2_500, 1_000)]);
    await r.charges.unlock(id, 'w2');
    await r.charges.addAttempt(id, { seq: 1, operation: 'create', gateway: 'gw_a', outcome: 'in_flight', durationMs: 1.4, idempotencyKey: 'k', createdAt: times[0] });
    await r.charges.finishAttempt(id, { seq: 1, operation: 'create', gateway: 'gw_a', outcome: 'decline', durationMs: 7.5, errorCode: 'CARD_DECLINED', gatewayStatus: 402 });
    await r.charges.addAttempt(id, { seq: 2, operation: 'refund', gateway: 'gw_a', outcome: 'success', durationMs: 3, externalId: 're_1', amount: 10, createdAt: times[1] });
    out(`attempts ${id}`, await r.charges.attempts(id));
    out(`reconcileAttempts ${id}`, await r.charges.reconcileAttempts(id));
  }
  out('due', await r.charges.dueForReconcile(2_000, 100));
  out('processing', await r.charges.processingCount());
  out('stats', await r.chargeStats.dailyByGateway('acc_p', '2024-01-01T00:00:00.001Z'));

  for (let i = 0; i < 12; i++) {
    await r.customers.insert({
      id: `cus_rg_${pick(['A', 'a', 'é'])}${i}`, accountId: 'acc_p', gateway: pick(['gw_a', 'gw_b']), externalId: `cus_${i}`, name: 'Zé', email: 'ze@example.com',
      document: pick(['111', '222']), phone: pick([null, '+55']), address: pick([null, { city: 'São Paulo' }]), metadata: null, createdAt: pick(times),
    });
  }
  out('customers', await r.customers.list('acc_p', 50));
  out('customers page', await r.customers.list('acc_p', 4, 3));
  out('byDocument', [await r.customers.byDocument('acc_p', 'gw_a', '111'), await r.customers.byDocument('acc_p', 'gw_b', '222')]);
  out('customer any', [await r.customers.findByAnyId('acc_p', 'cus_3'), await r.customers.byExternalId('acc_p', 'cus_4')]);

  for (let i = 0; i < 8; i++) {
    await r.coproducers.insert({
      id: `cop_${pick(['A', 'a'])}${i}`, accountId: 'acc_p', email: `p${i}@example.com`, name: `P${i}`, recipients: { gw_a: `re_${i}` },
      createdAt: pick(times), updatedAt: times[0],
    });
  }
  let after: { createdAt: string; id: string } | undefined;
  for (let page = 0; page < 5; page++) {
    const rows = await r.coproducers.list('acc_p', 3, after);
    out(`coproducers ${page}`, rows);
    if (rows.length < 3) break;
    after = { createdAt: rows[2].createdAt, id: rows[2].id };
  }
  out('coproducer by email', await r.coproducers.byEmail('acc_p', 'P3@EXAMPLE.com'));

  out('claims', [
    await r.idempotency.claim('acc_p', 'k1', 'h1', 1_000, 100), await r.idempotency.claim('acc_p', 'k1', 'h2', 1_050, 100),
    await r.idempotency.claim('acc_p', 'k1', 'h3', 1_100, 100), await r.idempotency.takeOverStale('acc_p', 'k1', 'h3', 1_200, 1_100),
    await r.idempotency.claim('acc_p', 'k2', 'h1', 1_000, 5_000),
  ]);
  await r.idempotency.complete('acc_p', 'k2', 201, { 'x-a': 'b' }, '{"ok":true}');
  await r.idempotency.linkCharge('acc_p', 'k2', 'chg_B');
  await r.idempotency.release('acc_p', 'k1');
  out('stored', [await r.idempotency.get('acc_p', 'k1'), await r.idempotency.get('acc_p', 'k2')]);
  out('purged', [await r.idempotency.purgeExpired(6_000), await r.idempotency.get('acc_p', 'k2')]);

  await r.meta.set('m', 'v1');
  await r.meta.set('m', 'v2');
  out('meta', [await r.meta.get('m'), await r.meta.get('absent')]);

  for (const [i, expiresAt] of times.entries()) {
    await r.installmentQuotes.insert({
      id: `iq_${i}`, accountId: pick(['acc_p', 'acc_q']), amount: Math.floor(rand() * 1e12), gateway: 'gw_a', bin: '424242', createdAt: times[0], expiresAt,
      plans: [{ count: 1, installmentAmount: 1000, totalAmount: 1000, interestFree: true }, { count: 4, installmentAmount: 265, totalAmount: 1060, interestFree: false, issuerId: '25' }],
    });
  }
  out('quotes', await Promise.all(times.map((_, i) => r.installmentQuotes.get('acc_p', `iq_${i}`))));
  out('quotes purged', [await r.installmentQuotes.purgeExpired(times[2], 2), await r.installmentQuotes.purgeExpired(times[2], 2)]);
  out('quotes left', await Promise.all(times.map((_, i) => r.installmentQuotes.get('acc_q', `iq_${i}`))));
  return log;
}

let pgdb: MigratedPgDatabase;
let lite: DB;

before(async () => {
  if (NO_PG) return;
  pgdb = await migratedPgDatabase();
  lite = openDatabase(':memory:');
});

after(async () => {
  lite?.close();
  await pgdb?.close();
});

test('one scenario on SQLite and on PostgreSQL gives the same answers, call by call', { skip: NO_PG }, async () => {
  for (const id of ['acc_p', 'acc_q']) {
    await insertPgAccount(pgdb.pool, id);
    lite.prepare("INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES (?, 'x', 'x@example.com', 1, ?, 'x', 'x')").run(id, `whk_${id}`);
  }
  // acc_p in gw_a's compatibility mode: its gw_a charges' refs ids are indexed, its other charges' are not.
  const compat = "INSERT INTO settings (account_id, gateway_fallbacks, compatibility_mode, response_format, updated_at) VALUES ('acc_p', '[]', 'gw_a', 'full', 'x')";
  lite.prepare(compat).run();
  await pgdb.pool.query(compat);
  // SQLite's repositories answer synchronously today; awaiting a plain value gives the value, so one scenario serves both.
  const fromLite = await scenario({
    charges: new ChargesRepository(lite), idempotency: new IdempotencyRepository(lite), customers: new CustomersRepository(lite),
    coproducers: new CoproducersRepository(lite), chargeStats: new ChargeStatsRepository(lite), meta: new MetaRepository(lite),
    installmentQuotes: new InstallmentQuotesRepository(lite),
  } as unknown as Repos);
  const q = pgdb.pool;
  const fromPg = await scenario({
    charges: new PgChargesRepository(q, {}), idempotency: new PgIdempotencyRepository(q), customers: new PgCustomersRepository(q),
    coproducers: new PgCoproducersRepository(q), chargeStats: new PgChargeStatsRepository(q), meta: new PgMetaRepository(q),
    installmentQuotes: new PgInstallmentQuotesRepository(q),
  });
  assert.ok(fromLite.length > 100, `the scenario ran (${fromLite.length} answers)`);
  const pages = fromLite.filter((e) => String((e as [string])[0]).startsWith('list ')).map((e) => (e as [string, string[]])[1]);
  assert.ok(pages.some((p) => p.length === 3) && pages.some((p) => p.length === 0), 'lists had full and empty pages');
  for (let i = 0; i < Math.max(fromLite.length, fromPg.length); i++) assert.deepEqual(fromPg[i], fromLite[i], `answer ${i}`);
});
