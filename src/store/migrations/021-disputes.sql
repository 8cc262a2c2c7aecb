-- Issue 42 item 4: a chargeback is never a refund. dispute: the charge's chargeback as JSON
-- ({status: open|won|lost, amount (cents), reason, openedAt, priorStatus}), null when it never had one. The charge's
-- status is `disputed` while it is open and `charged_back` once lost; refunded_amount never moves with it.
ALTER TABLE charges ADD COLUMN dispute TEXT;
