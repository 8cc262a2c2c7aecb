-- A refund its gateway holds "in process" (or refused for now, to be sent again) is a follow-up whose outcome is
-- `pending` (docs/charges.md, "Refund lifecycle"): the reconciler's sweep settles it as it settles unknown ones, so
-- the sweep's partial index takes those rows too.
DROP INDEX charge_attempts_unsettled;
CREATE INDEX charge_attempts_unsettled ON charge_attempts(charge_id)
  WHERE outcome IN ('in_flight', 'unknown', 'pending') AND operation IN ('capture', 'cancel', 'refund');
