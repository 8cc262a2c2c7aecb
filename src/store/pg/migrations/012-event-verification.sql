-- PostgreSQL dialect of src/store/migrations/012-event-verification.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Whether the gateway's signature was checked for each stored event: 1 verified, 0 accepted without validation
-- (no webhookSecret stored for that gateway, as SPEC allows with a warning). Events stored before this column
-- existed are NULL: not known.
ALTER TABLE webhook_events ADD COLUMN verified BIGINT;
