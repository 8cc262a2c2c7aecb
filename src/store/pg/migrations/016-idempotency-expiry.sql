-- PostgreSQL dialect of src/store/migrations/016-idempotency-expiry.sql (same number, same index).

-- The purge of expired idempotency keys finds them through this index instead of a scan of the whole table.
CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
