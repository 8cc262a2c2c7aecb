-- Real-API fidelity (issue 9): payer address and metadata on customers, the account settings a gateway declares
-- for itself (a JSON object, e.g. whether the account may send that gateway raw card data),
-- and the normalized fields every gateway now fills (boleto barcode number, pix expiry, boleto due date, card
-- facts, metadata). JSON columns hold small objects; no card number or CVV is ever among them.
ALTER TABLE customers ADD COLUMN address TEXT;
ALTER TABLE customers ADD COLUMN metadata TEXT;
ALTER TABLE settings ADD COLUMN gateway_settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE charges ADD COLUMN boleto_barcode_number TEXT;
ALTER TABLE charges ADD COLUMN pix_expires_at TEXT;
ALTER TABLE charges ADD COLUMN boleto_due_date TEXT;
ALTER TABLE charges ADD COLUMN card TEXT;
ALTER TABLE charges ADD COLUMN metadata TEXT;
