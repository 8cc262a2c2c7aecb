-- Idempotency keys are kept 24 hours (DESIGN.md); each stored answer is about 2.4 KB. The purge
-- (src/http/idempotency-purge.ts) deletes what expired in batches, each found through this index instead of a scan
-- of the whole table. expires_at is the claim's time plus a fixed TTL, so new entries are appended at its end.
CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
