-- PostgreSQL dialect of src/store/migrations/020-operator-controls.sql (same number, same columns and tables).

-- compat_passthrough: set only by an operator; untranslated compatibility-mode paths pass only when it is 1.
ALTER TABLE accounts ADD COLUMN compat_passthrough BIGINT NOT NULL DEFAULT 0;

-- A rotated webhook token's URLs keep working until expires_at (ms since the epoch).
CREATE TABLE webhook_token_overlaps (
  token TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
  expires_at BIGINT NOT NULL
);
CREATE INDEX webhook_token_overlaps_account ON webhook_token_overlaps(account_id);
