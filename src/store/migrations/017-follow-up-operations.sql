-- Each money-moving follow-up (refund, capture, cancel) is its charge_attempts row, written before its gateway call
-- (docs/charges.md, "Follow-up idempotency"). The row already holds the operation number (seq), the gateway
-- idempotency key, the outcome (in_flight, then success, failed or unknown), the gateway's own id (a refund id) and
-- the cents moved. These columns add what settling it later needs: the client's Idempotency-Key it was asked under,
-- and the amount asked for (NULL: all that remained), so a retry replays the same call under the same gateway key.
ALTER TABLE charge_attempts ADD COLUMN client_key TEXT;
ALTER TABLE charge_attempts ADD COLUMN requested_amount INTEGER;
-- A client Idempotency-Key on a follow-up is bound to its charge (charge_id) and to its operation number, in the
-- transaction that writes the operation's row: a retry of the key settles that operation, never runs a new one.
ALTER TABLE idempotency_keys ADD COLUMN operation_seq INTEGER;
-- The follow-ups whose outcome is not known (interrupted by a crash, or unanswered), for the reconciler's sweep: a
-- partial index holds only those rows, so the sweep never scans the attempts of settled charges.
CREATE INDEX charge_attempts_unsettled ON charge_attempts(charge_id)
  WHERE outcome IN ('in_flight', 'unknown') AND operation IN ('capture', 'cancel', 'refund');
