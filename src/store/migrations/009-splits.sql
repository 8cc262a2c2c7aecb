-- Split payments (issue 13): coproducers (one per e-mail per account, with a recipient id per gateway, a JSON
-- object keyed by canonical gateway id) and the split a charge was made with, as applied on its gateway
-- (resolved recipient ids and cents; a JSON array).
CREATE TABLE coproducers (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  name TEXT NOT NULL,
  recipients TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX coproducers_account_email ON coproducers(account_id, email);
CREATE INDEX coproducers_account_created ON coproducers(account_id, created_at DESC, id DESC);
ALTER TABLE charges ADD COLUMN split TEXT;
