-- PostgreSQL dialect of src/store/migrations/003-attempt-external-id.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- The gateway's own id for what an attempt created at the gateway (a refund id), so operators can find it there.
ALTER TABLE charge_attempts ADD COLUMN external_id TEXT COLLATE "C";
