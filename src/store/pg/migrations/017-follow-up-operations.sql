-- PostgreSQL dialect of src/store/migrations/017-follow-up-operations.sql (same number, same tables and columns; INTEGER is BIGINT).

-- Each money-moving follow-up is its charge_attempts row, written before its gateway call: the client's
-- Idempotency-Key it was asked under and the amount asked for (NULL: all that remained) let a retry settle it.
ALTER TABLE charge_attempts ADD COLUMN client_key TEXT COLLATE "C";
ALTER TABLE charge_attempts ADD COLUMN requested_amount BIGINT;
-- A client Idempotency-Key on a follow-up is bound to its charge and its operation number before the gateway call.
ALTER TABLE idempotency_keys ADD COLUMN operation_seq BIGINT;
-- The follow-ups whose outcome is not known, for the reconciler's sweep (a partial index of only those rows).
CREATE INDEX charge_attempts_unsettled ON charge_attempts(charge_id)
  WHERE outcome IN ('in_flight', 'unknown') AND operation IN ('capture', 'cancel', 'refund');
