import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { freshPgDatabase, type FreshPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

// On PostgreSQL a create's normal path costs two database round trips (one before the gateway call, one
// after). A follow-up's writes are one before its call and one after; before them come its reads: the charge (for
// the capability check), the lock, and the charge with its attempts under the lock in one statement. Counted on a real PostgreSQL: every query any pg client of this
// process sends (pg.Client.prototype.query, under the pool's own query) is one round trip, and this records each
// one's statement name while one request is served. The background workers are off, so nothing else queries.

const NO_PG = unlessAvailable('postgres');

/** The statements pg clients sent while `work` ran: each a round trip. */
async function roundTrips(work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  // A wrapper with the original's signature: pg's pool calls it with a config object or text, values and callback.
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { name?: string; text?: string };
    // The change feed's heartbeat runs on its own connection every second, whatever the request does.
    if (first === 'SELECT 1') return (original as (...a: unknown[]) => unknown).apply(this, args);
    sent.push(typeof first === 'string' ? first.slice(0, 60) : first.name ?? (first.text ?? '').slice(0, 60));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

/** A statement's name without the shape number a patch statement's name ends with. */
const statement = (name: string) => name.replace(/\.\d+$/, '');
const FOLLOW_UP = ['charges.get', 'charges.lock', 'charges.get-with-attempts', 'charges.begin-operation', 'charges.settle-operation'];

describe('PostgreSQL round trips per charge', { skip: NO_PG }, () => {
  let db: FreshPgDatabase;
  let e2e: E2E;
  let key: string;
  const charge = (extra: Record<string, unknown> = {}) => ({
    gateway: 'pagarme', paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, ...extra,
  });

  before(async () => {
    db = await freshPgDatabase();
    e2e = await startE2E({
      DATABASE_URL: db.url, ROUTEGATE_RECONCILE_INTERVAL_MS: '0', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '0',
    });
    key = await e2e.account({}, ['pagarme', 'stripe']);
    // The first charge fills the read caches (the API key, the account's settings, the credentials).
    assert.equal((await e2e.call('POST', '/api/v1/charges', { key, body: charge() })).status, 201);
  });
  after(async () => {
    await e2e?.close();
    await db?.drop();
  });

  test('a create: its birth before the gateway call and its settle after, one round trip each', async () => {
    let status = 0;
    const sent = await roundTrips(async () => {
      status = (await e2e.call('POST', '/api/v1/charges', { key, body: charge() })).status;
    });
    assert.equal(status, 201);
    assert.ok(sent.length <= 2, `a create sent ${sent.length} statements: ${sent.join(', ')}`);
    assert.equal(sent[0], 'charges.birth');
    assert.match(sent[1], /^charges\.settle-operation\./);
  });

  test('a capture: its reads, then one write before the gateway call and one after', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge({ gateway: 'stripe', capture: false }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.captured, false);
    let status = 0;
    const sent = await roundTrips(async () => {
      status = (await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/capture`, { key, body: {} })).status;
    });
    assert.equal(status, 200);
    assert.deepEqual(sent.map(statement), FOLLOW_UP, `a capture sent ${sent.length} statements: ${sent.join(', ')}`);
  });

  test('a refund: its reads, then one write before the gateway call and one after', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    assert.equal(created.status, 201, created.text);
    let status = 0;
    const sent = await roundTrips(async () => {
      status = (await e2e.call('POST', `/api/v1/charges/${created.body.data.id}/refunds`, { key, body: { amount: 1000 } })).status;
    });
    assert.equal(status, 201);
    assert.deepEqual(sent.map(statement), FOLLOW_UP, `a refund sent ${sent.length} statements: ${sent.join(', ')}`);
  });

  test('the charge and its attempt are stored as the money-safety rules require', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    assert.equal(created.status, 201);
    const rows = await e2e.sandbox.app.store.query('SELECT outcome, idempotency_key, sent_at FROM charge_attempts WHERE charge_id = ?', [created.body.data.id]);
    assert.deepEqual(rows.map((r) => [r.outcome, r.idempotency_key]), [['success', `${created.body.data.id}-1`]]);
    assert.ok(Number(rows[0].sent_at) > 0, 'the send time is recorded before the call');
    const [row] = await e2e.sandbox.app.store.query('SELECT status, lock_owner FROM charges WHERE id = ?', [created.body.data.id]);
    assert.deepEqual([row.status, row.lock_owner], ['approved', null]);
  });
});
