import type { DB } from './db';

export interface StoredResponse {
  requestHash: string;
  statusCode: number | null; // null while the first request is still running
  headers: Record<string, string>;
  body: string | null;
  expiresAt: number;
  createdAt: number;
  /** The charge the request created, linked when the charge row was written; for a follow-up, the charge it acts on. */
  chargeId: string | null;
  /** A follow-up's operation number on that charge, bound before its gateway call (null: a create, or nothing ran yet). */
  operationSeq: number | null;
}

/** Responses kept per (account, Idempotency-Key) for replay. */
export class IdempotencyRepository {
  private readonly getStmt;
  private readonly claimStmt;
  private readonly completeStmt;
  private readonly releaseStmt;
  private readonly purgeStmt;
  private readonly linkStmt;
  private readonly takeOverStmt;
  private readonly linkOperationStmt;
  private readonly reopenStmt;

  constructor(db: DB) {
    this.getStmt = db.prepare('SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?');
    this.claimStmt = db.prepare(`INSERT INTO idempotency_keys (account_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, status_code = NULL, response_headers = NULL,
        response_body = NULL, charge_id = NULL, operation_seq = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE idempotency_keys.expires_at <= excluded.created_at`);
    this.completeStmt = db.prepare('UPDATE idempotency_keys SET status_code = ?, response_headers = ?, response_body = ? WHERE account_id = ? AND key = ?');
    this.releaseStmt = db.prepare('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND status_code IS NULL');
    // A batch at a time through idempotency_keys_expires: one purge never holds the write lock for long.
    this.purgeStmt = db.prepare(`DELETE FROM idempotency_keys WHERE rowid IN
      (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`);
    this.linkStmt = db.prepare('UPDATE idempotency_keys SET charge_id = ? WHERE account_id = ? AND key = ?');
    this.takeOverStmt = db.prepare(`UPDATE idempotency_keys SET created_at = ? WHERE account_id = ? AND key = ? AND request_hash = ?
      AND status_code IS NULL AND charge_id IS NULL AND created_at <= ?`);
    this.linkOperationStmt = db.prepare('UPDATE idempotency_keys SET charge_id = ?, operation_seq = ? WHERE account_id = ? AND key = ?');
    this.reopenStmt = db.prepare(`UPDATE idempotency_keys SET status_code = NULL, response_headers = NULL, response_body = NULL, created_at = ?
      WHERE account_id = ? AND key = ? AND request_hash = ? AND operation_seq IS NOT NULL
        AND ((status_code IS NULL AND created_at <= ?) OR status_code >= 500 OR status_code = 202)`);
  }

  async get(accountId: string, key: string): Promise<StoredResponse | undefined> {
    const r = this.getStmt.get(accountId, key) as Record<string, unknown> | undefined;
    return r && {
      requestHash: r.request_hash as string, statusCode: r.status_code as number | null,
      headers: r.response_headers ? JSON.parse(r.response_headers as string) : {}, body: r.response_body as string | null, expiresAt: r.expires_at as number,
      createdAt: r.created_at as number, chargeId: (r.charge_id as string | null) ?? null, operationSeq: (r.operation_seq as number | null) ?? null,
    };
  }

  /** Claim the key for a new request; false when a live entry already holds it. Expired entries are taken over. */
  async claim(accountId: string, key: string, requestHash: string, now: number, ttlMs: number): Promise<boolean> {
    return this.claimStmt.run(accountId, key, requestHash, now, now + ttlMs).changes === 1;
  }

  async complete(accountId: string, key: string, statusCode: number, headers: Record<string, string>, body: string): Promise<void> {
    this.completeStmt.run(statusCode, JSON.stringify(headers), body, accountId, key);
  }

  /** Bind the key to the charge its request created (in the charge insert's transaction). */
  async linkCharge(accountId: string, key: string, chargeId: string): Promise<void> {
    this.linkStmt.run(chargeId, accountId, key);
  }

  /** Bind a follow-up's key to its charge and operation number (in the transaction that writes the operation's row). */
  async linkOperation(accountId: string, key: string, chargeId: string, seq: number): Promise<void> {
    this.linkOperationStmt.run(chargeId, seq, accountId, key);
  }

  /**
   * Re-open a follow-up's key whose operation may not be settled: its request died (no answer, older than any live
   * request can be) or it was answered with a 5xx. True when this caller now owns it and settles that operation.
   */
  async reopenOperation(accountId: string, key: string, requestHash: string, now: number, staleBefore: number): Promise<boolean> {
    return this.reopenStmt.run(now, accountId, key, requestHash, staleBefore).changes === 1;
  }

  /**
   * Take over a claim whose request died before creating anything (no charge linked, older than any live
   * request can be); true when this caller now owns it.
   */
  async takeOverStale(accountId: string, key: string, requestHash: string, now: number, staleBefore: number): Promise<boolean> {
    return this.takeOverStmt.run(now, accountId, key, requestHash, staleBefore).changes === 1;
  }

  /** Forget an unfinished claim so the client may retry with the same key. */
  async release(accountId: string, key: string): Promise<void> {
    this.releaseStmt.run(accountId, key);
  }

  /** Delete up to `limit` entries that expired by `now` (the oldest first); answers how many went. */
  async purgeExpired(now: number, limit = 1_000): Promise<number> {
    return this.purgeStmt.run(now, limit).changes;
  }
}
