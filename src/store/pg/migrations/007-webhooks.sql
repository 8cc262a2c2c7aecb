-- PostgreSQL dialect of src/store/migrations/007-webhooks.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Webhooks (issue 12): the account's signing secrets for forwarded events (sealed with the master key like gateway
-- credentials; a rotated one keeps signing until expires_at), gateway events as RouteGate events (unique per
-- account, gateway and the gateway's event id, which is the dedupe), and the outbox: one delivery per forwarding
-- of an event to the merchant backend, written with the event before the first attempt, with every attempt kept.
CREATE TABLE webhook_signing_secrets (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  ciphertext BYTEA NOT NULL,
  iv BYTEA NOT NULL,
  tag BYTEA NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at BIGINT
);
CREATE INDEX webhook_signing_secrets_account ON webhook_signing_secrets(account_id, created_at);

CREATE TABLE webhook_events (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  gateway TEXT COLLATE "C" NOT NULL,
  gateway_event_id TEXT COLLATE "C" NOT NULL,
  type TEXT COLLATE "C" NOT NULL,
  charge_id TEXT COLLATE "C",
  payload TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  UNIQUE (account_id, gateway, gateway_event_id)
);
CREATE INDEX webhook_events_account_created ON webhook_events(account_id, created_at DESC, id DESC);

CREATE TABLE deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  event_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_events(id),
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  status TEXT COLLATE "C" NOT NULL,
  attempts BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  give_up_at BIGINT NOT NULL,
  lease_owner TEXT COLLATE "C",
  lease_expires_at BIGINT,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX deliveries_event ON deliveries(event_id);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';

CREATE TABLE delivery_attempts (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id TEXT COLLATE "C" NOT NULL REFERENCES deliveries(id),
  attempt BIGINT NOT NULL,
  outcome TEXT COLLATE "C" NOT NULL,
  status_code BIGINT,
  duration_ms BIGINT NOT NULL,
  error TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id, attempt);
