-- The web dashboard's sign-ins: operators, account owners (one login per account, by e-mail), one-time
-- invitations that let an owner set the password, and server-side session rows, so a logout or a password change
-- ends a session even when a copy of its cookie survives. Passwords are argon2id hashes; tokens and session ids
-- are stored as SHA-256 only.
CREATE TABLE operators (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE account_owners (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE invitations (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at TEXT
);
CREATE INDEX invitations_account ON invitations(account_id);

CREATE TABLE dashboard_sessions (
  id_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('operator', 'owner')),
  subject_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX dashboard_sessions_subject ON dashboard_sessions(kind, subject_id);
