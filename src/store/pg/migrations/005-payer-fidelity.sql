-- PostgreSQL dialect of src/store/migrations/005-payer-fidelity.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Real-API fidelity (issue 9): payer address and metadata on customers, the account settings a gateway declares
-- for itself (a JSON object, e.g. whether the account may send that gateway raw card data),
-- and the normalized fields every gateway now fills (boleto barcode number, pix expiry, boleto due date, card
-- facts, metadata). JSON columns hold small objects; no card number or CVV is ever among them.
ALTER TABLE customers ADD COLUMN address TEXT COLLATE "C";
ALTER TABLE customers ADD COLUMN metadata TEXT COLLATE "C";
ALTER TABLE settings ADD COLUMN gateway_settings TEXT COLLATE "C" NOT NULL DEFAULT '{}';
ALTER TABLE charges ADD COLUMN boleto_barcode_number TEXT COLLATE "C";
ALTER TABLE charges ADD COLUMN pix_expires_at TEXT COLLATE "C";
ALTER TABLE charges ADD COLUMN boleto_due_date TEXT COLLATE "C";
ALTER TABLE charges ADD COLUMN card TEXT COLLATE "C";
ALTER TABLE charges ADD COLUMN metadata TEXT COLLATE "C";
