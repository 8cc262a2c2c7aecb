import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PgChargesRepository } from '../src/store/pg/charges';
import { PgCoproducersRepository } from '../src/store/pg/coproducers';
import type { Queryable } from '../src/store/pg/pool';
import { atomically } from '../src/store/pg/queryable';
import { migratedPgDatabase, type MigratedPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

/** Why this file's PostgreSQL tests are skipped, or false (test/helpers/services.ts). */
const NO_PG = unlessAvailable('postgres');

// As test/list-query-plans.test.ts for SQLite: every list query of the PostgreSQL store pages through an index in
// its order, so a page costs the same with a million rows as with ten. The SQL is the repositories' own, captured as
// they send it. With sequential scans and sorts priced out, a plan that still has one has no index to use.

let db: MigratedPgDatabase;

before(async () => {
  if (NO_PG) return;
  db = await migratedPgDatabase();
});

after(async () => {
  await db?.close();
});

interface PlanNode { 'Node Type': string; 'Index Cond'?: string; Plans?: PlanNode[] }
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

test('every list query (charges, coproducers) searches an index in order: no sequential scan, no sort', { skip: NO_PG }, async () => {
  const seen: pg.QueryConfig[] = [];
  const recorder: Queryable = {
    query: ((config: pg.QueryConfig) => {
      seen.push(config);
      return db.pool.query(config);
    }) as Queryable['query'],
  };
  const charges = new PgChargesRepository(recorder, {});
  const coproducers = new PgCoproducersRepository(recorder);
  const after = { createdAt: '2030-01-01T00:00:00.000Z', id: 'chg_x' };
  for (const status of [undefined, 'approved']) {
    for (const gateway of [undefined, 'gw_a']) {
      for (const a of [undefined, after]) await charges.list('acc_1', { status, gateway, limit: 20, after: a });
    }
  }
  await charges.list('acc_1', { limit: 20, offset: 40 });
  await coproducers.list('acc_1', 20);
  await coproducers.list('acc_1', 20, after);
  const lists = seen.filter((c) => /ORDER BY created_at DESC, id DESC LIMIT/.test(c.text));
  assert.equal(lists.length, 11, 'each list query shape was sent');

  for (const { text, values } of lists) {
    const plan = await atomically(db.pool, async (client) => {
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      return (await client.query({ text: `EXPLAIN (FORMAT JSON) ${text}`, values })).rows[0]['QUERY PLAN'][0].Plan as PlanNode;
    });
    const all = nodes(plan);
    const types = all.map((n) => n['Node Type']);
    assert.ok(types.some((t) => /^Index( Only)? Scan$/.test(t)), `${text}\n${types.join(' > ')}`);
    assert.ok(!types.some((t) => /Seq Scan|Sort/.test(t)), `${text}\n${types.join(' > ')}`);
    // A filter seeks in an index that leads with it (one of two when both are given), not a walk of all the account's rows.
    const filters = ['status', 'gateway'].filter((c) => text.includes(`${c} = $`));
    if (filters.length) assert.ok(all.some((n) => filters.some((c) => n['Index Cond']?.includes(`${c} = `))), `${text}\n${JSON.stringify(plan)}`);
    // The cursor is part of the index search, not a filter on rows read after it.
    if (/\(created_at, id\) </.test(text)) {
      assert.ok(all.some((n) => n['Index Cond']?.includes('ROW(created_at, id) < ROW(')), `${text}\n${JSON.stringify(plan)}`);
    }
  }
});
