-- PostgreSQL dialect of src/store/migrations/023-pending-refunds.sql (same number, same index).

-- Pending refunds (in process at the gateway, or refused for now) are settled by the reconciler's sweep too.
DROP INDEX charge_attempts_unsettled;
CREATE INDEX charge_attempts_unsettled ON charge_attempts(charge_id)
  WHERE outcome IN ('in_flight', 'unknown', 'pending') AND operation IN ('capture', 'cancel', 'refund');
