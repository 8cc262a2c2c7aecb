import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteStore as openStore } from '../src/store';

// Every list query pages through an index: a full scan or a temporary b-tree for the ORDER BY would make a page
// cost grow with the number of stored rows (a million charges). The SQL is the repositories' own, captured as
// they prepare it, and each is checked with EXPLAIN QUERY PLAN.

test('every list query (charges, coproducers, events) searches an index: no full scan, no temp b-tree', async () => {
  const store = openStore(':memory:');
  const seen: string[] = [];
  const prepare = store.db.prepare.bind(store.db);
  (store.db as { prepare: typeof prepare }).prepare = ((sql: string) => {
    if (/ORDER BY created_at DESC, id DESC LIMIT/.test(sql)) seen.push(sql);
    return prepare(sql);
  }) as typeof prepare;

  const after = { createdAt: '2030-01-01T00:00:00.000Z', id: 'chg_x' };
  for (const status of [undefined, 'approved']) {
    for (const gateway of [undefined, 'pagarme']) {
      for (const a of [undefined, after]) await store.charges.list('acc_1', { status, gateway, limit: 20, after: a });
    }
  }
  await store.coproducers.list('acc_1', 20);
  await store.coproducers.list('acc_1', 20, after);
  await store.webhookEvents.list('acc_1', 20);
  await store.webhookEvents.list('acc_1', 20, after);
  assert.equal(seen.length, 12, 'each list query shape was prepared');

  for (const sql of seen) {
    const params = { accountId: 'acc_1', status: 'approved', gateway: 'pagarme', limit: 20, offset: 0, afterCreated: 'x', afterId: 'y', createdAt: 'x', id: 'y' };
    const used = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes(`@${k}`)));
    const plan = (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(used) as Array<{ detail: string }>).map((r) => r.detail);
    assert.ok(plan.some((d) => /^SEARCH \w+ USING (COVERING )?INDEX/.test(d)), `${sql}\n${plan.join('\n')}`);
    assert.ok(!plan.some((d) => /^SCAN|TEMP B-TREE/.test(d)), `${sql}\n${plan.join('\n')}`);
    // The cursor is part of the index search, not a filter on rows read after it.
    if (/afterCreated|@createdAt/.test(sql)) assert.ok(plan.some((d) => d.includes('(created_at,id)<(?,?)')), `${sql}\n${plan.join('\n')}`);
  }
  await store.close();
});
