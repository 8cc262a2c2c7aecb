-- Charges, every gateway attempt, customers created at gateways, and stored idempotent responses.
-- No card number, CVV or token is ever stored: only what the normalized response shows.
CREATE TABLE charges (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  gateway TEXT,
  primary_gateway TEXT,
  fallback_used INTEGER NOT NULL DEFAULT 0,
  external_id TEXT,
  payment_method TEXT NOT NULL,
  status TEXT NOT NULL,
  amount INTEGER NOT NULL,
  paid_amount INTEGER NOT NULL DEFAULT 0,
  refunded_amount INTEGER NOT NULL DEFAULT 0,
  currency TEXT NOT NULL,
  captured INTEGER,
  description TEXT,
  customer_id TEXT,
  refs TEXT,
  pix_qr_code TEXT,
  pix_copy_paste TEXT,
  boleto_url TEXT,
  boleto_barcode TEXT,
  decline_code TEXT,
  error_code TEXT,
  error_message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX charges_account_created ON charges(account_id, created_at DESC, id DESC);
CREATE INDEX charges_external ON charges(gateway, external_id);

CREATE TABLE charge_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
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
  created_at TEXT NOT NULL
);
CREATE INDEX charge_attempts_charge ON charge_attempts(charge_id, seq);

CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  gateway TEXT NOT NULL,
  external_id TEXT NOT NULL,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  document TEXT NOT NULL,
  phone TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX customers_external ON customers(account_id, external_id);

CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status_code INTEGER,
  response_headers TEXT,
  response_body TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
);
