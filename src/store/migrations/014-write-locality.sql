-- Fewer pages written per charge (docs/performance.md, fourth round). Every commit writes each page it changed to
-- the WAL in full, and the checkpoint copies it again.
--
-- 1. The list indexes ascend. A new charge is the newest: in a DESC index it goes to the left end of its account's
--    range, where SQLite rebalances the full leaf with its siblings on nearly every commit (4 to 5 pages per index
--    per commit); ascending, it is appended at the right end (one page). Lists read them backwards for ORDER BY
--    created_at DESC, id DESC, with the same seek for the cursor (test/list-query-plans.test.ts).
DROP INDEX charges_account_created;
CREATE INDEX charges_account_created ON charges(account_id, created_at, id);
DROP INDEX charges_account_status_created;
CREATE INDEX charges_account_status_created ON charges(account_id, status, created_at, id);
DROP INDEX charges_account_gateway_created;
CREATE INDEX charges_account_gateway_created ON charges(account_id, gateway, created_at, id);
DROP INDEX webhook_events_account_created;
CREATE INDEX webhook_events_account_created ON webhook_events(account_id, created_at, id);

-- 2. One index of the gateways' ids instead of two. charge_native_ids (006) already holds every gateway id of a
--    charge per account; keyed by the id first, it also finds the charge of a gateway's webhook, which names no
--    account. charges_external indexed the same random ids again: a random page per charge.
CREATE TABLE charge_native_ids_by_id (
  native_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  charge_id TEXT NOT NULL REFERENCES charges(id),
  PRIMARY KEY (native_id, account_id)
) WITHOUT ROWID;
INSERT INTO charge_native_ids_by_id (native_id, account_id, charge_id) SELECT native_id, account_id, charge_id FROM charge_native_ids;
DROP TABLE charge_native_ids;
ALTER TABLE charge_native_ids_by_id RENAME TO charge_native_ids;
DROP INDEX charges_external;
