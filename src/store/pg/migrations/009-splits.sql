-- PostgreSQL dialect of src/store/migrations/009-splits.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- Split payments (issue 13): coproducers (one per e-mail per account, with a recipient id per gateway, a JSON
-- object keyed by canonical gateway id) and the split a charge was made with, as applied on its gateway
-- (resolved recipient ids and cents; a JSON array).
CREATE TABLE coproducers (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  email TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  recipients TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX coproducers_account_email ON coproducers(account_id, email);
CREATE INDEX coproducers_account_created ON coproducers(account_id, created_at DESC, id DESC);
ALTER TABLE charges ADD COLUMN split TEXT COLLATE "C";
