-- PostgreSQL dialect of src/store/migrations/018-settlement.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

ALTER TABLE charge_attempts ADD COLUMN sent_at BIGINT;

ALTER TABLE charges ADD COLUMN recheck BIGINT NOT NULL DEFAULT 0;
CREATE INDEX charges_recheck ON charges(reconcile_after) WHERE recheck = 1;
UPDATE charges SET recheck = 1, reconcile_after = 0 WHERE status <> 'processing' AND (error_code = 'NEVER_TAKEN'
  OR EXISTS (SELECT 1 FROM charge_attempts a WHERE a.charge_id = charges.id AND a.operation = 'charge' AND a.ambiguous = 1
    AND a.gateway <> charges.gateway));

CREATE TABLE charge_orphans (
  gateway TEXT COLLATE "C" NOT NULL,
  external_id TEXT COLLATE "C" NOT NULL,
  charge_id TEXT COLLATE "C" NOT NULL REFERENCES charges(id),
  account_id TEXT COLLATE "C" NOT NULL,
  payment_method TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  amount BIGINT NOT NULL,
  action TEXT COLLATE "C" NOT NULL,
  message TEXT COLLATE "C",
  found_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (gateway, external_id)
);
CREATE INDEX charge_orphans_charge ON charge_orphans(charge_id);

ALTER TABLE settings ADD COLUMN orphan_policy TEXT COLLATE "C" NOT NULL DEFAULT 'refund';
