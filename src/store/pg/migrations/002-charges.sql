-- PostgreSQL dialect of src/store/migrations/002-charges.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Charges, every gateway attempt, customers created at gateways, and stored idempotent responses.
-- No card number, CVV or token is ever stored: only what the normalized response shows.
CREATE TABLE charges (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  gateway TEXT COLLATE "C",
  primary_gateway TEXT COLLATE "C",
  fallback_used BIGINT NOT NULL DEFAULT 0,
  external_id TEXT COLLATE "C",
  payment_method TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  amount BIGINT NOT NULL,
  paid_amount BIGINT NOT NULL DEFAULT 0,
  refunded_amount BIGINT NOT NULL DEFAULT 0,
  currency TEXT COLLATE "C" NOT NULL,
  captured BIGINT,
  description TEXT COLLATE "C",
  customer_id TEXT COLLATE "C",
  refs TEXT COLLATE "C",
  pix_qr_code TEXT COLLATE "C",
  pix_copy_paste TEXT COLLATE "C",
  boleto_url TEXT COLLATE "C",
  boleto_barcode TEXT COLLATE "C",
  decline_code TEXT COLLATE "C",
  error_code TEXT COLLATE "C",
  error_message TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX charges_account_created ON charges(account_id, created_at DESC, id DESC);
CREATE INDEX charges_external ON charges(gateway, external_id);

CREATE TABLE charge_attempts (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  charge_id TEXT COLLATE "C" NOT NULL REFERENCES charges(id),
  seq BIGINT NOT NULL,
  operation TEXT COLLATE "C" NOT NULL,
  gateway TEXT COLLATE "C" NOT NULL,
  outcome TEXT COLLATE "C" NOT NULL,
  error_code TEXT COLLATE "C",
  failure_kind TEXT COLLATE "C",
  gateway_status BIGINT,
  message TEXT COLLATE "C",
  ambiguous BIGINT NOT NULL DEFAULT 0,
  duration_ms BIGINT NOT NULL DEFAULT 0,
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX charge_attempts_charge ON charge_attempts(charge_id, seq);

CREATE TABLE customers (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  gateway TEXT COLLATE "C" NOT NULL,
  external_id TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  email TEXT COLLATE "C" NOT NULL,
  document TEXT COLLATE "C" NOT NULL,
  phone TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX customers_external ON customers(account_id, external_id);

CREATE TABLE idempotency_keys (
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  key TEXT COLLATE "C" NOT NULL,
  request_hash TEXT COLLATE "C" NOT NULL,
  status_code BIGINT,
  response_headers TEXT COLLATE "C",
  response_body TEXT COLLATE "C",
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, key)
);
