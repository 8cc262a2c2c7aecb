-- PostgreSQL dialect of src/store/migrations/013-list-indexes.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Charge lists filtered by status or gateway page through an index that has the filter before the sort keys,
-- so a page costs the same with a million charges as with ten (no scan of the account's other charges).
CREATE INDEX charges_account_status_created ON charges(account_id, status, created_at DESC, id DESC);
CREATE INDEX charges_account_gateway_created ON charges(account_id, gateway, created_at DESC, id DESC);
