-- installment_quotes: a gateway's own installment quote (GET /api/v1/installments with a gateway and a bin), kept so a
-- charge can name it (creditCard.installmentsQuoteId) and be charged exactly its plan (docs/installments.md). plans is
-- JSON [{count, installmentAmount, totalAmount, interestFree, issuerId?}] in cents; expires_at an ISO timestamp.
CREATE TABLE installment_quotes (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  amount INTEGER NOT NULL,
  gateway TEXT NOT NULL,
  bin TEXT NOT NULL,
  plans TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
-- The purge of expired quotes reads by expiry.
CREATE INDEX installment_quotes_expiry ON installment_quotes(expires_at);
