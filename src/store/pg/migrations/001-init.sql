-- PostgreSQL dialect of src/store/migrations/001-init.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Accounts, API keys (SHA-256 only), settings and encrypted gateway credentials.
CREATE TABLE accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  email TEXT COLLATE "C" NOT NULL,
  active BIGINT NOT NULL DEFAULT 1,
  webhook_token TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE api_keys (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  key_hash TEXT COLLATE "C" NOT NULL UNIQUE,
  key_hint TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  revoked_at TEXT COLLATE "C"
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE settings (
  account_id TEXT COLLATE "C" PRIMARY KEY REFERENCES accounts(id),
  primary_gateway TEXT COLLATE "C",
  gateway_fallbacks TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  compatibility_mode TEXT COLLATE "C",
  response_format TEXT COLLATE "C" NOT NULL DEFAULT 'full',
  webhook_forward_url TEXT COLLATE "C",
  updated_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE credentials (
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  gateway TEXT COLLATE "C" NOT NULL,
  ciphertext BYTEA NOT NULL,
  iv BYTEA NOT NULL,
  tag BYTEA NOT NULL,
  masked TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (account_id, gateway)
);

CREATE TABLE meta (
  key TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL
);
