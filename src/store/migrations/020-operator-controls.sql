-- Issue 40. compat_passthrough: untranslated compatibility-mode paths are sent on to the gateway only for accounts an
-- operator turned this on for (CLI `accounts passthrough ID on|off`, the operator's dashboard), never by the account's
-- own API key; and then only the gateway's allowlist (src/gateways/<id>/passthrough.ts).
ALTER TABLE accounts ADD COLUMN compat_passthrough INTEGER NOT NULL DEFAULT 0;

-- A rotated webhook token keeps its URLs working until expires_at (ms since the epoch), beside the account's current
-- accounts.webhook_token, so a merchant can repoint the gateways without losing a notification; a rotation with no
-- overlap deletes the account's rows here.
CREATE TABLE webhook_token_overlaps (
  token TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  expires_at INTEGER NOT NULL
);
CREATE INDEX webhook_token_overlaps_account ON webhook_token_overlaps(account_id);
