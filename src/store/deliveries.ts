import type { DB } from './db';
import { nowIso } from './db';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  id: string;
  eventId: string;
  accountId: string;
  status: DeliveryStatus;
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number;
  /** Epoch ms: past it a failing delivery is given up (three days after the event). */
  giveUpAt: number;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryAttemptRecord {
  attempt: number;
  outcome: 'delivered' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: string;
}

interface Raw {
  id: string; event_id: string; account_id: string; status: DeliveryStatus; attempts: number; next_attempt_at: number; give_up_at: number;
  created_at: string; updated_at: string;
}

const toRecord = (r: Raw): DeliveryRecord => ({
  id: r.id, eventId: r.event_id, accountId: r.account_id, status: r.status, attempts: r.attempts, nextAttemptAt: r.next_attempt_at,
  giveUpAt: r.give_up_at, createdAt: r.created_at, updatedAt: r.updated_at,
});

/**
 * The outbox: deliveries of events to merchant backends, each attempt recorded. A delivery is worked on by one
 * holder at a time: a lease kept on the row (so it holds across processes on one file); a holder that died leaves
 * a lease that expires, and the delivery is taken up again.
 */
export class DeliveriesRepository {
  private readonly insertStmt;
  private readonly claimStmt;
  private readonly releaseStmt;
  private readonly finishStmt;
  private readonly attemptStmt;
  private readonly byIdStmt;
  private readonly byEventStmt;
  private readonly attemptsStmt;
  private readonly dueStmt;
  private readonly backlogStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO deliveries (id, event_id, account_id, status, attempts, next_attempt_at, give_up_at, lease_owner, lease_expires_at, created_at, updated_at)
      VALUES (@id, @eventId, @accountId, 'pending', 0, @nextAttemptAt, @giveUpAt, @leaseOwner, @leaseExpiresAt, @now, @now)`);
    this.claimStmt = db.prepare(`UPDATE deliveries SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND status = 'pending'
      AND (lease_owner IS NULL OR lease_expires_at <= ?)`);
    this.releaseStmt = db.prepare('UPDATE deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?');
    this.finishStmt = db.prepare(`UPDATE deliveries SET status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt, lease_owner = NULL,
      lease_expires_at = NULL, updated_at = @now WHERE id = @id AND lease_owner = @owner`);
    this.attemptStmt = db.prepare(`INSERT INTO delivery_attempts (delivery_id, attempt, outcome, status_code, duration_ms, error, created_at)
      VALUES (@deliveryId, @attempt, @outcome, @statusCode, @durationMs, @error, @createdAt)`);
    this.byIdStmt = db.prepare('SELECT * FROM deliveries WHERE id = ?');
    this.byEventStmt = db.prepare('SELECT * FROM deliveries WHERE event_id = ? ORDER BY created_at, id');
    this.attemptsStmt = db.prepare('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt');
    this.dueStmt = db.prepare(`SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_owner IS NULL OR lease_expires_at <= ?)
      ORDER BY next_attempt_at LIMIT ?`).pluck();
    this.backlogStmt = db.prepare("SELECT COUNT(*) FROM deliveries WHERE status = 'pending'").pluck();
  }

  /** A new pending delivery; with `lease`, held by its creator for the first attempt. */
  async insert(d: { id: string; eventId: string; accountId: string; nextAttemptAt: number; giveUpAt: number }, lease?: { owner: string; expiresAt: number }): Promise<void> {
    this.insertStmt.run({ leaseOwner: lease?.owner ?? null, leaseExpiresAt: lease?.expiresAt ?? null, now: nowIso(), ...d });
  }

  /** Take a pending delivery unless a live holder has it. */
  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.claimStmt.run(owner, now + leaseMs, id, now).changes === 1;
  }

  /**
   * Take the lease of up to `limit` due pending deliveries nobody holds, for `owner`. On PostgreSQL one statement
   * with FOR UPDATE SKIP LOCKED (each delivery attempted by exactly one process); here one atomic UPDATE each.
   */
  async claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<string[]> {
    const claimed: string[] = [];
    for (const id of await this.due(now, limit)) if (await this.claim(id, owner, now, leaseMs)) claimed.push(id);
    return claimed;
  }

  async release(id: string, owner: string): Promise<void> {
    this.releaseStmt.run(id, owner);
  }

  /** Record one attempt and where the delivery stands after it, as its holder; false if the lease was lost. */
  async finishAttempt(id: string, owner: string, attempt: DeliveryAttemptRecord, next: { status: DeliveryStatus; nextAttemptAt: number }): Promise<boolean> {
    const changed = this.finishStmt.run({ id, owner, status: next.status, attempts: attempt.attempt, nextAttemptAt: next.nextAttemptAt, now: nowIso() }).changes === 1;
    if (changed) this.attemptStmt.run({ deliveryId: id, ...attempt });
    return changed;
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const r = this.byIdStmt.get(id) as Raw | undefined;
    return r && toRecord(r);
  }

  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    return (this.byEventStmt.all(eventId) as Raw[]).map(toRecord);
  }

  async attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return (this.attemptsStmt.all(deliveryId) as Array<Record<string, unknown>>).map((r) => ({
      attempt: r.attempt as number, outcome: r.outcome as 'delivered' | 'failed', statusCode: (r.status_code as number | null) ?? null,
      durationMs: r.duration_ms as number, error: (r.error as string | null) ?? null, createdAt: r.created_at as string,
    }));
  }

  /** Pending deliveries whose next attempt is due and that nobody holds. */
  async due(now: number, limit: number): Promise<string[]> {
    return this.dueStmt.all(now, now, limit) as string[];
  }

  async backlog(): Promise<number> {
    return this.backlogStmt.get() as number;
  }
}
