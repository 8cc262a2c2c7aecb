-- charge_attempts keyed by (charge_id, seq), without a rowid (docs/performance.md, fifth round). A charge's first
-- attempt is written with the charge itself; keyed by rowid (AUTOINCREMENT) with an index on (charge_id, seq), each
-- such commit wrote three more pages: the table's last leaf, the index's and sqlite_sequence's row. Keyed by
-- (charge_id, seq) the attempts are one B-tree, whose new rows are appended (charge ids are time-ordered), and an
-- attempt's end is one seek instead of two. (charge_id, seq) is unique: seq is the charge's operation number, taken
-- atomically (004). The rowid `id` named nothing outside this table.
CREATE TABLE charge_attempts_by_charge (
  charge_id TEXT NOT NULL REFERENCES charges(id),
  seq INTEGER NOT NULL,
  operation TEXT NOT NULL,
  gateway TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error_code TEXT,
  failure_kind TEXT,
  gateway_status INTEGER,
  message TEXT,
  ambiguous INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  external_id TEXT,
  idempotency_key TEXT,
  amount INTEGER,
  PRIMARY KEY (charge_id, seq)
) WITHOUT ROWID;
INSERT INTO charge_attempts_by_charge (charge_id, seq, operation, gateway, outcome, error_code, failure_kind, gateway_status, message, ambiguous,
  duration_ms, created_at, external_id, idempotency_key, amount)
  SELECT charge_id, seq, operation, gateway, outcome, error_code, failure_kind, gateway_status, message, ambiguous,
  duration_ms, created_at, external_id, idempotency_key, amount FROM charge_attempts;
DROP TABLE charge_attempts;
ALTER TABLE charge_attempts_by_charge RENAME TO charge_attempts;
