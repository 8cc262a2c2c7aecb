-- PostgreSQL dialect of src/store/migrations/021-disputes.sql (same number, same column).

-- dispute: the charge's chargeback as JSON text, null when it never had one; refunded_amount never moves with it.
ALTER TABLE charges ADD COLUMN dispute TEXT COLLATE "C";
