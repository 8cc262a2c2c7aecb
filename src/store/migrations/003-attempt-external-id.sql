-- The gateway's own id for what an attempt created at the gateway (a refund id), so operators can find it there.
ALTER TABLE charge_attempts ADD COLUMN external_id TEXT;
