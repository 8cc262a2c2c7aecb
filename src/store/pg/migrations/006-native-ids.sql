-- PostgreSQL dialect of src/store/migrations/006-native-ids.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Compatibility mode (issue 11): a native follow-up names a charge by any id RouteGate returned for it: its own id,
-- the gateway's id (external_id) or an extra gateway id in refs (a charge id beside a payment id). This table indexes
-- the gateway ids per account; RouteGate's own ids are the charges' primary key.
CREATE TABLE charge_native_ids (
  account_id TEXT COLLATE "C" NOT NULL,
  native_id TEXT COLLATE "C" NOT NULL,
  charge_id TEXT COLLATE "C" NOT NULL REFERENCES charges(id),
  PRIMARY KEY (account_id, native_id)
);
INSERT INTO charge_native_ids (account_id, native_id, charge_id)
  SELECT account_id, external_id, id FROM charges WHERE external_id IS NOT NULL ON CONFLICT DO NOTHING;
INSERT INTO charge_native_ids (account_id, native_id, charge_id)
  SELECT c.account_id, j.value #>> '{}', c.id FROM charges c, jsonb_each(c.refs::jsonb) j
  WHERE c.refs IS NOT NULL AND jsonb_typeof(j.value) = 'string' ON CONFLICT DO NOTHING;
