-- PostgreSQL dialect of src/store/migrations/010-dashboard.sql (same number, same tables and columns; INTEGER is BIGINT, BLOB is BYTEA, TEXT compares bytewise as in SQLite).

-- The web dashboard's sign-ins: operators, account owners (one login per account, by e-mail), one-time
-- invitations that let an owner set the password, and server-side session rows, so a logout or a password change
-- ends a session even when a copy of its cookie survives. Passwords are argon2id hashes; tokens and session ids
-- are stored as SHA-256 only.
CREATE TABLE operators (
  id TEXT COLLATE "C" PRIMARY KEY,
  email TEXT COLLATE "C" NOT NULL,
  password_hash TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);

-- SQLite's UNIQUE COLLATE NOCASE: one login per e-mail whatever its case (queries compare lower(email)).
CREATE UNIQUE INDEX operators_email ON operators (lower(email));

CREATE TABLE account_owners (
  account_id TEXT COLLATE "C" PRIMARY KEY REFERENCES accounts(id),
  email TEXT COLLATE "C" NOT NULL,
  password_hash TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);

CREATE UNIQUE INDEX account_owners_email ON account_owners (lower(email));

CREATE TABLE invitations (
  token_hash TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at TEXT COLLATE "C"
);
CREATE INDEX invitations_account ON invitations(account_id);

CREATE TABLE dashboard_sessions (
  id_hash TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('operator', 'owner')),
  subject_id TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX dashboard_sessions_subject ON dashboard_sessions(kind, subject_id);
