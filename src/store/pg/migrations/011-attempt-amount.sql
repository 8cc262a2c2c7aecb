-- PostgreSQL dialect of src/store/migrations/011-attempt-amount.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- The cents a successful refund attempt moved (compatibility mode lists and reads a charge's refunds one by one,
-- as the gateways' own refund resources do; the charge row keeps only the refunded total).
ALTER TABLE charge_attempts ADD COLUMN amount BIGINT;
