-- Accounts, API keys (SHA-256 only), settings and encrypted gateway credentials.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  webhook_token TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_hash TEXT NOT NULL UNIQUE,
  key_hint TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE settings (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  primary_gateway TEXT,
  gateway_fallbacks TEXT NOT NULL DEFAULT '[]',
  compatibility_mode TEXT,
  response_format TEXT NOT NULL DEFAULT 'full',
  webhook_forward_url TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE credentials (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  gateway TEXT NOT NULL,
  ciphertext BLOB NOT NULL,
  iv BLOB NOT NULL,
  tag BLOB NOT NULL,
  masked TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (account_id, gateway)
);

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
