-- PostgreSQL dialect of src/store/migrations/019-verified-events.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- 1. A charge's gateway id is unique per gateway across accounts (it comes only from the gateway's answer to
--    RouteGate's own call). Duplicates a webhook planted before: the charge created first keeps the id, the others'
--    are moved aside to charge_external_id_conflicts, with their native-id index rows.
CREATE TABLE charge_external_id_conflicts (
  charge_id TEXT COLLATE "C" NOT NULL REFERENCES charges(id),
  account_id TEXT COLLATE "C" NOT NULL,
  gateway TEXT COLLATE "C" NOT NULL,
  external_id TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (charge_id, external_id)
);
INSERT INTO charge_external_id_conflicts (charge_id, account_id, gateway, external_id)
  SELECT id, account_id, gateway, external_id FROM (
    SELECT id, account_id, gateway, external_id, ROW_NUMBER() OVER (PARTITION BY gateway, external_id ORDER BY created_at, id) AS n
    FROM charges WHERE external_id IS NOT NULL
  ) ranked WHERE n > 1;
DELETE FROM charge_native_ids n USING charge_external_id_conflicts x WHERE n.charge_id = x.charge_id AND n.native_id = x.external_id;
UPDATE charges SET external_id = NULL WHERE id IN (SELECT charge_id FROM charge_external_id_conflicts);
CREATE UNIQUE INDEX charges_gateway_external_id ON charges(gateway, external_id) WHERE external_id IS NOT NULL;

-- 2. A verified event that disagrees with its charge is stored with why, and neither applied nor forwarded.
ALTER TABLE webhook_events ADD COLUMN flag TEXT COLLATE "C";
