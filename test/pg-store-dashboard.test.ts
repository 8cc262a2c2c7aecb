import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openDatabase, type DB } from '../src/store/db';
import { LoginsRepository } from '../src/store/logins';
import type { SessionsRepository } from '../src/store/sessions';
import { PgLoginsRepository } from '../src/store/pg/logins';
import { PgSessionsRepository } from '../src/store/pg/sessions';
import { sha256Hex } from '../src/lib/crypto';
import { scratchPgDatabase, type ScratchDatabase } from './helpers/pg-scratch';
import type { SameAsync } from './helpers/async-contract';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// Issue 17: the PostgreSQL dashboard sign-ins and sessions keep the SQLite contract; e-mails match whatever
// their ASCII case, exactly as SQLite's COLLATE NOCASE does.

const contracts: [SameAsync<PgLoginsRepository, LoginsRepository>, SameAsync<PgSessionsRepository, SessionsRepository>] = [true, true];

let db: ScratchDatabase;
let logins: PgLoginsRepository;
let sessions: PgSessionsRepository;
let lite: DB;
let liteLogins: LoginsRepository;

before(async () => {
  if (NO_PG) return;
  db = await scratchPgDatabase();
  logins = new PgLoginsRepository(db.pool);
  sessions = new PgSessionsRepository(db.pool);
  lite = openDatabase(':memory:');
  liteLogins = new LoginsRepository(lite);
});

after(async () => {
  lite?.close();
  await db?.drop();
});

/** An account in both stores (owners and invitations reference one). */
async function account(): Promise<string> {
  const id = `acc_${randomUUID()}`;
  await db.pool.query("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES ($1, 'Loja', 'l@example.com', $2, 'now', 'now')", [id, `wh_${id}`]);
  lite.prepare("INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES (?, 'Loja', 'l@example.com', ?, 'now', 'now')").run(id, `wh_${id}`);
  return id;
}

test('the repositories have the SQLite public methods, each async (checked by the compiler)', () => {
  assert.deepEqual(contracts, [true, true]);
});

const STORED = ['Admin@Example.com', 'JOSÉ@exemplo.com.br', 'ñandú@exemplo.com.br'];
// [lookup, stored address it finds (or null)], the same in both stores.
const LOOKUPS: Array<[string, string | null]> = [
  ['Admin@Example.com', 'Admin@Example.com'],
  ['admin@example.com', 'Admin@Example.com'],
  ['ADMIN@EXAMPLE.COM', 'Admin@Example.com'],
  ['admin@example.com ', null],
  ['JOSÉ@exemplo.com.br', 'JOSÉ@exemplo.com.br'],
  ['jOSÉ@EXEMPLO.com.BR', 'JOSÉ@exemplo.com.br'],
  ['josé@exemplo.com.br', null], // NOCASE folds ASCII letters only: É is not é
  ['ÑANDÚ@exemplo.com.br', null],
  ['ñandú@EXEMPLO.com.br', 'ñandú@exemplo.com.br'],
  ['%@example.com', null],
];

test('operator e-mails match whatever their ASCII case, as in SQLite (NOCASE), non-ASCII letters as typed', { skip: NO_PG }, async () => {
  for (const [i, email] of STORED.entries()) {
    await logins.createOperator(`op_${i}`, email, `hash_${i}`);
    await liteLogins.createOperator(`op_${i}`, email, `hash_${i}`);
  }
  for (const [lookup, found] of LOOKUPS) {
    const pg = await logins.operator(lookup);
    assert.equal(pg?.email ?? null, found, `PostgreSQL: ${lookup}`);
    assert.deepEqual(pg, await liteLogins.operator(lookup), `same as SQLite: ${lookup}`);
  }
  assert.deepEqual(await logins.operator('admin@example.com'), { id: 'op_0', email: 'Admin@Example.com', passwordHash: 'hash_0' });
});

test('one operator per e-mail whatever its ASCII case; an address differing in a non-ASCII letter is another one', { skip: NO_PG }, async () => {
  await assert.rejects(logins.createOperator('op_dup', 'ADMIN@example.COM', 'h'), { code: '23505' });
  await assert.rejects(liteLogins.createOperator('op_dup', 'ADMIN@example.COM', 'h'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  await logins.createOperator('op_jose', 'josé@exemplo.com.br', 'h');
  await liteLogins.createOperator('op_jose', 'josé@exemplo.com.br', 'h');
  assert.equal((await logins.operator('josé@exemplo.com.br'))?.id, 'op_jose');
  assert.equal((await logins.operator('JOSÉ@exemplo.com.br'))?.id, 'op_1');
});

test('operatorById and setOperatorPassword', { skip: NO_PG }, async () => {
  await logins.createOperator('op_pw', 'pw@example.com', 'old');
  assert.deepEqual(await logins.operatorById('op_pw'), { id: 'op_pw', email: 'pw@example.com', passwordHash: 'old' });
  await logins.setOperatorPassword('op_pw', 'new');
  assert.equal((await logins.operator('PW@example.com'))?.passwordHash, 'new');
  const { rows } = await db.pool.query('SELECT created_at < updated_at OR created_at = updated_at AS ok FROM operators WHERE id = $1', ['op_pw']);
  assert.equal(rows[0].ok, true);
  assert.equal(await logins.operatorById('op_nope'), undefined);
});

test('owners: setOwner creates then replaces the login; owner(email) matches ASCII case; ownerOf by account', { skip: NO_PG }, async () => {
  const acc = await account();
  assert.equal(await logins.ownerOf(acc), undefined);
  await logins.setOwner(acc, 'Dono@Loja.com', 'h1');
  assert.deepEqual(await logins.owner('dono@loja.com'), { id: acc, email: 'Dono@Loja.com', passwordHash: 'h1' });
  await logins.setOwner(acc, 'novo@loja.com', 'h2');
  assert.equal(await logins.owner('dono@loja.com'), undefined);
  assert.deepEqual(await logins.ownerOf(acc), { id: acc, email: 'novo@loja.com', passwordHash: 'h2' });
  assert.deepEqual(await logins.owner('NOVO@LOJA.COM'), await logins.ownerOf(acc));

  const other = await account();
  await assert.rejects(logins.setOwner(other, 'Novo@Loja.com', 'h3'), { code: '23505' }, 'another account cannot take the address in another case');
  await liteLogins.setOwner(acc, 'novo@loja.com', 'h2');
  await assert.rejects(liteLogins.setOwner(other, 'Novo@Loja.com', 'h3'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  for (const [lookup] of LOOKUPS) assert.deepEqual(await logins.owner(lookup), await liteLogins.owner(lookup));
});

test('invitations: a new one ends the earlier unused ones; used once only', { skip: NO_PG }, async () => {
  const acc = await account();
  await logins.invite(acc, sha256Hex('first'), 1_000_000);
  const first = (await logins.invitation(sha256Hex('first')))!;
  assert.deepEqual(first, { accountId: acc, expiresAt: 1_000_000, usedAt: null });
  assert.equal(typeof first.expiresAt, 'number');
  await logins.invite(acc, sha256Hex('second'), 2_000_000);
  assert.notEqual((await logins.invitation(sha256Hex('first')))?.usedAt, null, 'the earlier link stopped working');
  assert.equal(await logins.useInvitation(sha256Hex('first')), false);
  assert.equal(await logins.useInvitation(sha256Hex('second')), true);
  assert.equal(await logins.useInvitation(sha256Hex('second')), false, 'a second tab loses');
  assert.match((await logins.invitation(sha256Hex('second')))!.usedAt!, /^\d{4}-/);
  assert.equal(await logins.invitation(sha256Hex('unknown')), undefined);
});

test('invitations made at once by three pools leave exactly one working link', { skip: NO_PG }, async () => {
  const pools = [db.newPool(), db.newPool(), db.newPool()];
  try {
    for (let round = 0; round < 8; round++) {
      const acc = await account();
      await logins.invite(acc, sha256Hex(`${acc}-0`), 1_000_000);
      await Promise.all(pools.map((pool, i) => new PgLoginsRepository(pool).invite(acc, sha256Hex(`${acc}-${i + 1}`), 1_000_000)));
      const { rows } = await db.pool.query('SELECT token_hash FROM invitations WHERE account_id = $1 AND used_at IS NULL', [acc]);
      assert.equal(rows.length, 1, `round ${round}: ${rows.length} working links`);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('two tabs using one invitation link at once from two pools: exactly one wins', { skip: NO_PG }, async () => {
  const pools = [db.newPool(), db.newPool()];
  try {
    for (let round = 0; round < 5; round++) {
      const acc = await account();
      const token = sha256Hex(`race-${acc}`);
      await logins.invite(acc, token, 1_000_000);
      const wins = await Promise.all(pools.map((pool) => new PgLoginsRepository(pool).useInvitation(token)));
      assert.deepEqual(wins.filter(Boolean).length, 1, `round ${round}`);
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('sessions: create, get, revoke one, revoke all of a subject (of that kind only)', { skip: NO_PG }, async () => {
  const day = 86_400_000;
  await sessions.create('h_op1', 'operator', 'op_1', 1000, 1000 + day);
  await sessions.create('h_op2', 'operator', 'op_1', 2000, 2000 + day);
  await sessions.create('h_owner', 'owner', 'op_1', 3000, 3000 + day);
  assert.deepEqual(await sessions.get('h_op1'), { kind: 'operator', subjectId: 'op_1', expiresAt: 1000 + day, revokedAt: null });
  await sessions.revoke('h_op1', 5000);
  await sessions.revoke('h_op1', 6000);
  assert.equal((await sessions.get('h_op1'))?.revokedAt, 5000, 'the first revocation stands');
  await sessions.revokeAll('operator', 'op_1', 7000);
  assert.equal((await sessions.get('h_op2'))?.revokedAt, 7000);
  assert.equal((await sessions.get('h_op1'))?.revokedAt, 5000);
  assert.equal((await sessions.get('h_owner'))?.revokedAt, null, "an owner session with the same subject id is another's");
  assert.equal(await sessions.get('h_nope'), undefined);
  await assert.rejects(sessions.create('h_bad', 'admin' as never, 'x', 1, 2), { code: '23514' });
});

test('sessions: a new session drops rows more than a day past their expiry, and only those', { skip: NO_PG }, async () => {
  const day = 86_400_000;
  const now = 100 * day;
  await sessions.create('h_long_gone', 'owner', 'acc_1', 0, now - day - 1);
  await sessions.create('h_recent', 'owner', 'acc_1', 0, now - day + 1);
  await sessions.create('h_new', 'owner', 'acc_1', now, now + day);
  assert.equal(await sessions.get('h_long_gone'), undefined);
  assert.equal((await sessions.get('h_recent'))?.expiresAt, now - day + 1);
  assert.equal((await sessions.get('h_new'))?.expiresAt, now + day);
  await assert.rejects(sessions.create('h_new', 'owner', 'acc_1', 10 * now, 10 * now), { code: '23505' });
  assert.notEqual(await sessions.get('h_recent'), undefined, 'a refused session purges nothing');
});
