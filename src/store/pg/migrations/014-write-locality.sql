-- PostgreSQL dialect of src/store/migrations/014-write-locality.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- 1. The list indexes ascend: a new charge is appended at the right end of its account's range (B-tree scans read
--    them backwards for ORDER BY created_at DESC, id DESC).
DROP INDEX charges_account_created;
CREATE INDEX charges_account_created ON charges(account_id, created_at, id);
DROP INDEX charges_account_status_created;
CREATE INDEX charges_account_status_created ON charges(account_id, status, created_at, id);
DROP INDEX charges_account_gateway_created;
CREATE INDEX charges_account_gateway_created ON charges(account_id, gateway, created_at, id);
DROP INDEX webhook_events_account_created;
CREATE INDEX webhook_events_account_created ON webhook_events(account_id, created_at, id);

-- 2. One index of the gateways' ids: charge_native_ids keyed by the id first also finds a webhook's charge, which
--    names no account; charges_external indexed the same ids again.
ALTER TABLE charge_native_ids DROP CONSTRAINT charge_native_ids_pkey, ADD PRIMARY KEY (native_id, account_id);
DROP INDEX charges_external;
