-- PostgreSQL dialect of src/store/migrations/004-money-safety.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Money safety: a per-charge lock kept in the database (so it holds across processes on one file), an atomic
-- per-charge operation counter (each gateway call gets its own idempotency key), the reconciler's schedule,
-- and the link from a client's Idempotency-Key to the charge it created.
ALTER TABLE charges ADD COLUMN lock_owner TEXT COLLATE "C";
ALTER TABLE charges ADD COLUMN lock_expires_at BIGINT;
ALTER TABLE charges ADD COLUMN op_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE charges ADD COLUMN reconcile_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE charges ADD COLUMN reconcile_after BIGINT NOT NULL DEFAULT 0;
UPDATE charges SET op_seq = (SELECT COALESCE(MAX(seq), 0) FROM charge_attempts WHERE charge_id = charges.id);
CREATE INDEX charges_processing ON charges(reconcile_after) WHERE status = 'processing';

-- The gateway idempotency key an attempt sent, so an operator can find the call at the gateway.
ALTER TABLE charge_attempts ADD COLUMN idempotency_key TEXT COLLATE "C";

ALTER TABLE idempotency_keys ADD COLUMN charge_id TEXT COLLATE "C";
