-- Strict settlement of creates (docs/charges.md, "Proof of absence").
-- When a create attempt's request last left RouteGate (its first send or a same-key replay), in ms since the epoch:
-- a lookup answering "none" proves the create absent only once the settle horizon has passed since then.
ALTER TABLE charge_attempts ADD COLUMN sent_at INTEGER;

-- 1: the reconciler keeps checking this settled charge at every gateway its create reached (a `failed` or `declined`
-- stored by settlement, or a create that was ambiguous at more than one gateway) until the horizon has passed since
-- its last send; due by reconcile_after as `processing` charges are.
ALTER TABLE charges ADD COLUMN recheck INTEGER NOT NULL DEFAULT 0;
CREATE INDEX charges_recheck ON charges(reconcile_after) WHERE recheck = 1;
-- Charges an earlier version settled on a lookup's "none" (NEVER_TAKEN), or charged at a fallback after an ambiguous
-- attempt elsewhere: checked again once, so a payment the gateway made after all is found.
UPDATE charges SET recheck = 1, reconcile_after = 0 WHERE status <> 'processing' AND (error_code = 'NEVER_TAKEN'
  OR EXISTS (SELECT 1 FROM charge_attempts a WHERE a.charge_id = charges.id AND a.operation = 'charge' AND a.ambiguous = 1
    AND a.gateway <> charges.gateway));

-- A payment found at a gateway with the charge's reference that is not the charge's own (an orphan): recorded,
-- announced as payment.orphaned, and refunded or voided when the account's orphan_policy says so.
CREATE TABLE charge_orphans (
  gateway TEXT NOT NULL,
  external_id TEXT NOT NULL,
  charge_id TEXT NOT NULL REFERENCES charges(id),
  account_id TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  status TEXT NOT NULL,
  amount INTEGER NOT NULL,
  -- found: recorded, not acted on yet; refunded / cancelled: undone at the gateway; notified: left to the merchant
  action TEXT NOT NULL,
  message TEXT,
  found_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (gateway, external_id)
);
CREATE INDEX charge_orphans_charge ON charge_orphans(charge_id);

-- What RouteGate does with an orphan: refund (void or refund it at once) or notify (announce it only).
ALTER TABLE settings ADD COLUMN orphan_policy TEXT NOT NULL DEFAULT 'refund';
