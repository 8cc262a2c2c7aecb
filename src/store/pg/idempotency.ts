import type { StoredResponse } from '../idempotency';
import type { Queryable } from './pool';
import { withValues } from './queryable';

const GET = {
  name: 'idempotency.get',
  text: `SELECT request_hash, status_code, response_headers, response_body, expires_at, created_at, charge_id, operation_seq
    FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
};
// One statement whatever the race: concurrent claims of a new key queue on the unique index, and the losers take
// the ON CONFLICT branch, which locks the winner's row and re-checks the WHERE on it (a live entry: no row, false).
const CLAIM = {
  name: 'idempotency.claim',
  text: `INSERT INTO idempotency_keys (account_id, key, request_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = NULL, response_headers = NULL,
      response_body = NULL, charge_id = NULL, operation_seq = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= EXCLUDED.created_at`,
};
const COMPLETE = {
  name: 'idempotency.complete',
  text: 'UPDATE idempotency_keys SET status_code = $1, response_headers = $2, response_body = $3 WHERE account_id = $4 AND key = $5',
};
const RELEASE = { name: 'idempotency.release', text: 'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND status_code IS NULL' };
const PURGE = {
  name: 'idempotency.purge',
  text: `DELETE FROM idempotency_keys WHERE (account_id, key) IN
    (SELECT account_id, key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
};
const LINK = { name: 'idempotency.link', text: 'UPDATE idempotency_keys SET charge_id = $1 WHERE account_id = $2 AND key = $3' };
// A concurrent taker waits for the first one's row lock, then re-checks created_at on the row it left: one wins.
const TAKE_OVER = {
  name: 'idempotency.take-over',
  text: `UPDATE idempotency_keys SET created_at = $1 WHERE account_id = $2 AND key = $3 AND request_hash = $4
    AND status_code IS NULL AND charge_id IS NULL AND created_at <= $5`,
};

const LINK_OPERATION = {
  name: 'idempotency.link-operation', text: 'UPDATE idempotency_keys SET charge_id = $1, operation_seq = $2 WHERE account_id = $3 AND key = $4',
};
// Concurrent retries queue on the row lock; the second re-checks the WHERE on the row the first left (created_at now).
const REOPEN = {
  name: 'idempotency.reopen',
  text: `UPDATE idempotency_keys SET status_code = NULL, response_headers = NULL, response_body = NULL, created_at = $1
    WHERE account_id = $2 AND key = $3 AND request_hash = $4 AND operation_seq IS NOT NULL
      AND ((status_code IS NULL AND created_at <= $5) OR status_code >= 500 OR status_code = 202)`,
};

/** Responses kept per (account, Idempotency-Key) for replay: IdempotencyRepository's contract on PostgreSQL. */
export class PgIdempotencyRepository {
  constructor(private readonly q: Queryable) {}

  async get(accountId: string, key: string): Promise<StoredResponse | undefined> {
    const r = (await this.q.query(withValues(GET, [accountId, key]))).rows[0];
    return r && {
      requestHash: r.request_hash as string, statusCode: r.status_code as number | null,
      headers: r.response_headers ? JSON.parse(r.response_headers as string) : {}, body: r.response_body as string | null, expiresAt: r.expires_at as number,
      createdAt: r.created_at as number, chargeId: (r.charge_id as string | null) ?? null,
      operationSeq: r.operation_seq == null ? null : Number(r.operation_seq),
    };
  }

  /** Claim the key for a new request; false when a live entry already holds it. Expired entries are taken over. */
  async claim(accountId: string, key: string, requestHash: string, now: number, ttlMs: number): Promise<boolean> {
    return (await this.q.query(withValues(CLAIM, [accountId, key, requestHash, now, now + ttlMs]))).rowCount === 1;
  }

  async complete(accountId: string, key: string, statusCode: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.q.query(withValues(COMPLETE, [statusCode, JSON.stringify(headers), body, accountId, key]));
  }

  /** Bind the key to the charge its request created (in the charge insert's transaction). */
  async linkCharge(accountId: string, key: string, chargeId: string): Promise<void> {
    await this.q.query(withValues(LINK, [chargeId, accountId, key]));
  }

  /** Bind a follow-up's key to its charge and operation number (in the transaction that writes the operation's row). */
  async linkOperation(accountId: string, key: string, chargeId: string, seq: number): Promise<void> {
    await this.q.query(withValues(LINK_OPERATION, [chargeId, seq, accountId, key]));
  }

  /**
   * Re-open a follow-up's key whose operation may not be settled: its request died (no answer, older than any live
   * request can be) or it was answered with a 5xx. True when this caller now owns it and settles that operation.
   */
  async reopenOperation(accountId: string, key: string, requestHash: string, now: number, staleBefore: number): Promise<boolean> {
    return (await this.q.query(withValues(REOPEN, [now, accountId, key, requestHash, staleBefore]))).rowCount === 1;
  }

  /**
   * Take over a claim whose request died before creating anything (no charge linked, older than any live
   * request can be); true when this caller now owns it.
   */
  async takeOverStale(accountId: string, key: string, requestHash: string, now: number, staleBefore: number): Promise<boolean> {
    return (await this.q.query(withValues(TAKE_OVER, [now, accountId, key, requestHash, staleBefore]))).rowCount === 1;
  }

  /** Forget an unfinished claim so the client may retry with the same key. */
  async release(accountId: string, key: string): Promise<void> {
    await this.q.query(withValues(RELEASE, [accountId, key]));
  }

  /** Delete up to `limit` entries that expired by `now` (the oldest first); answers how many went. */
  async purgeExpired(now: number, limit = 1_000): Promise<number> {
    return (await this.q.query(withValues(PURGE, [now, limit]))).rowCount ?? 0;
  }
}
