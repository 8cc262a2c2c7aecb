-- PostgreSQL dialect of src/store/migrations/026-installment-quotes.sql (same number, same table).

-- A gateway's own installment quote, kept so a charge can name it (JSON plans in cents; ISO timestamps).
CREATE TABLE installment_quotes (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL,
  amount BIGINT NOT NULL,
  gateway TEXT COLLATE "C" NOT NULL,
  bin TEXT COLLATE "C" NOT NULL,
  plans TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX installment_quotes_expiry ON installment_quotes(expires_at);
