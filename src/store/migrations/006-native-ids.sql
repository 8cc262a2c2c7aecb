-- Compatibility mode (issue 11): a native follow-up names a charge by any id RouteGate returned for it: its own id,
-- the gateway's id (external_id) or an extra gateway id in refs (a charge id beside a payment id). This table indexes
-- the gateway ids per account; RouteGate's own ids are the charges' primary key.
CREATE TABLE charge_native_ids (
  account_id TEXT NOT NULL,
  native_id TEXT NOT NULL,
  charge_id TEXT NOT NULL REFERENCES charges(id),
  PRIMARY KEY (account_id, native_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO charge_native_ids (account_id, native_id, charge_id)
  SELECT account_id, external_id, id FROM charges WHERE external_id IS NOT NULL;
INSERT OR IGNORE INTO charge_native_ids (account_id, native_id, charge_id)
  SELECT c.account_id, j.value, c.id FROM charges c, json_each(c.refs) j WHERE c.refs IS NOT NULL AND j.type = 'text';
