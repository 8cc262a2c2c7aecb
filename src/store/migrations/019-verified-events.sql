-- Only verified events move money (issue 39 item 5).
--
-- 1. A charge's gateway id is unique per gateway across accounts: it comes only from the gateway's answer to
--    RouteGate's own call, and the account-less webhook URL finds an event's charge by it. Until now a webhook could
--    set it (on a charge that had none), so a tenant could plant another tenant's gateway id on its own charge and
--    receive the victim's events. A database with such duplicates keeps the id on the charge created first (the
--    gateway answered RouteGate before anyone could learn the id) and moves the others' aside to
--    charge_external_id_conflicts for the operator (docs/webhooks.md, "Which events move money"); their native-id
--    index rows go with them.
CREATE TABLE charge_external_id_conflicts (
  charge_id TEXT NOT NULL REFERENCES charges(id),
  account_id TEXT NOT NULL,
  gateway TEXT NOT NULL,
  external_id TEXT NOT NULL,
  PRIMARY KEY (charge_id, external_id)
);
INSERT INTO charge_external_id_conflicts (charge_id, account_id, gateway, external_id)
  SELECT id, account_id, gateway, external_id FROM (
    SELECT id, account_id, gateway, external_id, ROW_NUMBER() OVER (PARTITION BY gateway, external_id ORDER BY created_at, id) AS n
    FROM charges WHERE external_id IS NOT NULL
  ) WHERE n > 1;
DELETE FROM charge_native_ids WHERE (charge_id, native_id) IN (SELECT charge_id, external_id FROM charge_external_id_conflicts);
UPDATE charges SET external_id = NULL WHERE id IN (SELECT charge_id FROM charge_external_id_conflicts);
CREATE UNIQUE INDEX charges_gateway_external_id ON charges(gateway, external_id) WHERE external_id IS NOT NULL;

-- 2. A verified event that disagrees with its charge (paid or refunded above the charge's amount, another currency,
--    another payment at the gateway) is stored with why, and neither applied nor forwarded. NULL: nothing to flag.
ALTER TABLE webhook_events ADD COLUMN flag TEXT;
