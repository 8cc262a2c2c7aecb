import { nowIso } from '../db';
import type { DeliveryAttemptRecord, DeliveryRecord, DeliveryStatus } from '../deliveries';
import type { Queryable } from './queryable';

type Int = number | string;

interface Raw {
  id: string; event_id: string; account_id: string; status: DeliveryStatus; attempts: Int; next_attempt_at: Int; give_up_at: Int;
  created_at: string; updated_at: string;
}

interface RawAttempt { attempt: Int; outcome: 'delivered' | 'failed'; status_code: Int | null; duration_ms: Int; error: string | null; created_at: string }

// BIGINT columns: numbers whether or not the pool parses int8 (epoch ms and counts stay far below 2^53).
const toRecord = (r: Raw): DeliveryRecord => ({
  id: r.id, eventId: r.event_id, accountId: r.account_id, status: r.status, attempts: Number(r.attempts), nextAttemptAt: Number(r.next_attempt_at),
  giveUpAt: Number(r.give_up_at), createdAt: r.created_at, updatedAt: r.updated_at,
});

const COLUMNS = 'id, event_id, account_id, status, attempts, next_attempt_at, give_up_at, created_at, updated_at';
const CLAIMABLE = "status = 'pending' AND next_attempt_at <= $1 AND (lease_owner IS NULL OR lease_expires_at <= $1)";

const SQL = {
  insert: `INSERT INTO deliveries (id, event_id, account_id, status, attempts, next_attempt_at, give_up_at, lease_owner, lease_expires_at, created_at, updated_at)
    VALUES ($1, $2, $3, 'pending', 0, $4, $5, $6, $7, $8, $8)`,
  claim: `UPDATE deliveries SET lease_owner = $1, lease_expires_at = $2 WHERE id = $3 AND status = 'pending'
    AND (lease_owner IS NULL OR lease_expires_at <= $4)`,
  // Rows another process is claiming are skipped, not waited for; a row it claimed and committed meanwhile is
  // re-checked against the WHERE once locked (its lease is live) and left out.
  claimDue: `WITH due AS (
      SELECT id FROM deliveries WHERE ${CLAIMABLE} ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED),
    claimed AS (
      UPDATE deliveries d SET lease_owner = $2, lease_expires_at = $3 FROM due WHERE d.id = due.id RETURNING d.id, d.next_attempt_at)
    SELECT id FROM claimed ORDER BY next_attempt_at, id`,
  release: 'UPDATE deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2',
  // The attempt is recorded only if the update, as holder, went through: one statement, so both or neither.
  finish: `WITH f AS (
      UPDATE deliveries SET status = $3, attempts = $4, next_attempt_at = $5, lease_owner = NULL, lease_expires_at = NULL, updated_at = $6
      WHERE id = $1 AND lease_owner = $2 RETURNING id)
    INSERT INTO delivery_attempts (delivery_id, attempt, outcome, status_code, duration_ms, error, created_at)
    SELECT id, $4, $7::text, $8::bigint, $9::bigint, $10::text, $11::text FROM f`,
  byId: `SELECT ${COLUMNS} FROM deliveries WHERE id = $1`,
  byEvent: `SELECT ${COLUMNS} FROM deliveries WHERE event_id = $1 ORDER BY created_at, id`,
  attempts: 'SELECT attempt, outcome, status_code, duration_ms, error, created_at FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
  due: `SELECT id FROM deliveries WHERE ${CLAIMABLE} ORDER BY next_attempt_at LIMIT $2`,
  backlog: "SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'",
};

/**
 * The outbox (PostgreSQL; the contract of DeliveriesRepository, asynchronous, plus claimDue). A delivery is
 * worked on by one holder at a time: a lease kept on the row, so it holds across processes; a holder that died
 * leaves a lease that expires, and the delivery is taken up again.
 */
export class PgDeliveriesRepository {
  constructor(private readonly q: Queryable) {}

  /** A new pending delivery; with `lease`, held by its creator for the first attempt. */
  async insert(d: { id: string; eventId: string; accountId: string; nextAttemptAt: number; giveUpAt: number }, lease?: { owner: string; expiresAt: number }): Promise<void> {
    const values = [d.id, d.eventId, d.accountId, d.nextAttemptAt, d.giveUpAt, lease?.owner ?? null, lease?.expiresAt ?? null, nowIso()];
    await this.q.query({ name: 'deliveries.insert', text: SQL.insert, values });
  }

  /** Take a pending delivery unless a live holder has it. */
  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const res = await this.q.query({ name: 'deliveries.claim', text: SQL.claim, values: [owner, now + leaseMs, id, now] });
    return res.rowCount === 1;
  }

  /**
   * Take up to `limit` due deliveries nobody holds, in one statement, oldest due first; returns their ids.
   * Processes claiming at once get disjoint sets, so each delivery is attempted by exactly one of them.
   */
  async claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<string[]> {
    const { rows } = await this.q.query<{ id: string }>({ name: 'deliveries.claimDue', text: SQL.claimDue, values: [now, owner, now + leaseMs, limit] });
    return rows.map((r) => r.id);
  }

  async release(id: string, owner: string): Promise<void> {
    await this.q.query({ name: 'deliveries.release', text: SQL.release, values: [id, owner] });
  }

  /** Record one attempt and where the delivery stands after it, as its holder; false if the lease was lost. */
  async finishAttempt(id: string, owner: string, attempt: DeliveryAttemptRecord, next: { status: DeliveryStatus; nextAttemptAt: number }): Promise<boolean> {
    const values = [id, owner, next.status, attempt.attempt, next.nextAttemptAt, nowIso(), attempt.outcome, attempt.statusCode, attempt.durationMs, attempt.error, attempt.createdAt];
    const res = await this.q.query({ name: 'deliveries.finish', text: SQL.finish, values });
    return res.rowCount === 1;
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const { rows } = await this.q.query<Raw>({ name: 'deliveries.byId', text: SQL.byId, values: [id] });
    return rows[0] && toRecord(rows[0]);
  }

  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    const { rows } = await this.q.query<Raw>({ name: 'deliveries.byEvent', text: SQL.byEvent, values: [eventId] });
    return rows.map(toRecord);
  }

  async attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    const { rows } = await this.q.query<RawAttempt>({ name: 'deliveries.attempts', text: SQL.attempts, values: [deliveryId] });
    return rows.map((r) => ({
      attempt: Number(r.attempt), outcome: r.outcome, statusCode: r.status_code === null ? null : Number(r.status_code),
      durationMs: Number(r.duration_ms), error: r.error, createdAt: r.created_at,
    }));
  }

  /** Pending deliveries whose next attempt is due and that nobody holds. */
  async due(now: number, limit: number): Promise<string[]> {
    const { rows } = await this.q.query<{ id: string }>({ name: 'deliveries.due', text: SQL.due, values: [now, limit] });
    return rows.map((r) => r.id);
  }

  async backlog(): Promise<number> {
    const { rows } = await this.q.query<{ n: Int }>({ name: 'deliveries.backlog', text: SQL.backlog });
    return Number(rows[0].n);
  }
}
