-- Webhooks (issue 12): the account's signing secrets for forwarded events (sealed with the master key like gateway
-- credentials; a rotated one keeps signing until expires_at), gateway events as RouteGate events (unique per
-- account, gateway and the gateway's event id, which is the dedupe), and the outbox: one delivery per forwarding
-- of an event to the merchant backend, written with the event before the first attempt, with every attempt kept.
CREATE TABLE webhook_signing_secrets (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  ciphertext BLOB NOT NULL,
  iv BLOB NOT NULL,
  tag BLOB NOT NULL,
  created_at TEXT NOT NULL,
  expires_at INTEGER
);
CREATE INDEX webhook_signing_secrets_account ON webhook_signing_secrets(account_id, created_at);

CREATE TABLE webhook_events (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  gateway TEXT NOT NULL,
  gateway_event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  charge_id TEXT,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (account_id, gateway, gateway_event_id)
);
CREATE INDEX webhook_events_account_created ON webhook_events(account_id, created_at DESC, id DESC);

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES webhook_events(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  give_up_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX deliveries_event ON deliveries(event_id);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';

CREATE TABLE delivery_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES deliveries(id),
  attempt INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id, attempt);
