-- Compatibility mode for gateways whose payment ids are numbers (a typed SDK parses `id` as a number): every charge gets
-- a stable numeric id, answered as its id on that surface when another gateway processed it, and accepted on every
-- native follow-up. Drawn at insert as one more than the highest (charges are never deleted, so none is reused),
-- starting above 5 * 10^15: far above the gateways' own ids and below 2^53, so JavaScript numbers hold it exactly.
ALTER TABLE charges ADD COLUMN numeric_id INTEGER NOT NULL DEFAULT 0;
UPDATE charges SET numeric_id = 5000000000000000 + rowid;
CREATE UNIQUE INDEX charges_numeric_id ON charges(numeric_id);
CREATE TRIGGER charges_numeric_id AFTER INSERT ON charges WHEN NEW.numeric_id = 0
BEGIN
  UPDATE charges SET numeric_id = (SELECT MAX(MAX(numeric_id), 5000000000000000) + 1 FROM charges) WHERE rowid = NEW.rowid;
END;
