-- PostgreSQL dialect of src/store/migrations/015-attempts-by-charge.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- charge_attempts keyed by (charge_id, seq), the key every read and update of an attempt names; the identity column
-- and the separate index on the same two columns go.
ALTER TABLE charge_attempts DROP CONSTRAINT charge_attempts_pkey;
ALTER TABLE charge_attempts DROP COLUMN id;
ALTER TABLE charge_attempts ADD PRIMARY KEY (charge_id, seq);
DROP INDEX charge_attempts_charge;
