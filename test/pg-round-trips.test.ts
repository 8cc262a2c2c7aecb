import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { freshPgDatabase, type FreshPgDatabase } from './helpers/pg';
import { unlessAvailable } from './helpers/services';

// On PostgreSQL a create's normal path costs two database round trips (one before the gateway call, one
// after), and so does a follow-up's: it decides on the row its process's last write left (no read), then takes the
// lock and begins its operation in one statement, and settles in one after. A row changed since costs a read and
// the statement again; one an attempt holds goes the full path under the lock. Counted on a real PostgreSQL: every query any pg client of this
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
const FOLLOW_UP = ['charges.begin-on-snapshot', 'charges.settle-operation'];

describe('PostgreSQL round trips per charge', { skip: NO_PG }, () => {
  let db: FreshPgDatabase;
  let e2e: E2E;
  let key: string;
  const charge = (extra: Record<string, unknown> = {}) => ({
    gateway: 'pagarme', paymentMethod: 'credit_card', amount: 2500, customer: CUSTOMER, creditCard: CARD, ...extra,
  });

  /** A refund of `id`, its answer and the statements it sent. */
  const refundCounted = async (id: string, amount: number) => {
    let reply!: Awaited<ReturnType<E2E['call']>>;
    const sent = await roundTrips(async () => {
      reply = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount } });
    });
    return { reply, sent };
  };
  /** What Pagar.me's ledger says was refunded of a charge RouteGate created there. */
  const refundedAtGateway = async (externalId: string) => (await e2e.control.ledger('pagarme')).find((e) => e.id === externalId)!.refundedAmount;

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

  test('a capture: one write before the gateway call and one after', async () => {
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

  test('a refund: one write before the gateway call and one after', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    assert.equal(created.status, 201, created.text);
    const { reply, sent } = await refundCounted(created.body.data.id, 1000);
    assert.equal(reply.status, 201);
    assert.deepEqual(sent.map(statement), FOLLOW_UP, `a refund sent ${sent.length} statements: ${sent.join(', ')}`);
  });

  test('a second refund: the first one\'s settle left the row it decides on', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    const id = created.body.data.id;
    assert.equal((await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 1000 } })).status, 201);
    const { reply, sent } = await refundCounted(id, 1000);
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.data.refundedAmount, 2000);
    assert.deepEqual(sent.map(statement), FOLLOW_UP);
  });

  test('a row changed since this process last wrote it (another process refunded it all): read again, and nothing is sent', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    const id = created.body.data.id;
    await e2e.sandbox.app.store.query("UPDATE charges SET refunded_amount = amount, status = 'refunded' WHERE id = ?", [id]);
    const { reply, sent } = await refundCounted(id, 1000);
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.body.error.message, /cannot be refunded \(status refunded\)/);
    // The kept row failed its xmin: read again, refused on what is stored, then the full path's own checks.
    assert.deepEqual(sent.map(statement).slice(0, 2), ['charges.begin-on-snapshot', 'charges.snapshot']);
    assert.ok(!sent.includes('charges.begin-operation') && sent.filter((s) => s === 'charges.begin-on-snapshot').length === 1, sent.join(', '));
    assert.equal(await refundedAtGateway(created.body.data.externalId), 0, 'no refund reached the gateway');
    const [row] = await e2e.sandbox.app.store.query('SELECT lock_owner FROM charges WHERE id = ?', [id]);
    assert.equal(row.lock_owner, null);
  });

  test('a row changed but still refundable: read again and begun on the new version, four round trips', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    const id = created.body.data.id;
    await e2e.sandbox.app.store.query("UPDATE charges SET description = 'changed elsewhere' WHERE id = ?", [id]);
    const { reply, sent } = await refundCounted(id, 500);
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.data.description, 'changed elsewhere');
    assert.deepEqual(sent.map(statement), ['charges.begin-on-snapshot', 'charges.snapshot', 'charges.begin-on-snapshot', 'charges.settle-operation']);
    assert.equal(await refundedAtGateway(created.body.data.externalId), 500);
  });

  test('a follow-up whose outcome is unknown holds the charge: the lock taken in the one statement, then the full path under it', async () => {
    const created = await e2e.call('POST', '/api/v1/charges', { key, body: charge() });
    const id = created.body.data.id;
    // A refund recorded before its call whose answer never came (a crash), as the begin statement leaves it.
    await e2e.sandbox.app.store.query(`INSERT INTO charge_attempts (charge_id, seq, operation, gateway, outcome, duration_ms, idempotency_key, created_at, requested_amount)
      VALUES (?, 90, 'refund', 'pagarme', 'unknown', 0, ?, ?, 300)`, [id, `${id}-partial_refund-90`, new Date().toISOString()]);
    const { reply, sent } = await refundCounted(id, 700);
    // The unknown refund is settled by its own identity first: Pagar.me keeps keys, so the same call under its key
    // does it once. This request, which may be the client retrying it without its key, then starts nothing.
    assert.equal(sent[0], 'charges.begin-on-snapshot');
    assert.ok(!sent.includes('charges.lock') && !sent.includes('charges.begin-operation'), `the lock was taken once, nothing begun: ${sent.join(', ')}`);
    assert.equal(reply.status, 409, reply.text);
    assert.match(reply.body.error.message, /partial refund \(operation 90\) .* turned out applied; nothing else was started/);
    assert.equal(await refundedAtGateway(created.body.data.externalId), 300);
    assert.equal((await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data.refundedAmount, 300);
    const [row] = await e2e.sandbox.app.store.query('SELECT lock_owner FROM charges WHERE id = ?', [id]);
    assert.equal(row.lock_owner, null);
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
