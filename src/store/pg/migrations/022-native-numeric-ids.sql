-- PostgreSQL dialect of src/store/migrations/022-native-numeric-ids.sql (same number, same column): a stable numeric id
-- per charge for compatibility surfaces whose payment ids are numbers, drawn from a sequence at insert (existing rows
-- are filled when the column is added), starting at 5 * 10^15 (above the gateways' own ids, below 2^53).
CREATE SEQUENCE charge_numeric_ids START WITH 5000000000000001;
ALTER TABLE charges ADD COLUMN numeric_id BIGINT NOT NULL DEFAULT nextval('charge_numeric_ids');
ALTER SEQUENCE charge_numeric_ids OWNED BY charges.numeric_id;
CREATE UNIQUE INDEX charges_numeric_id ON charges(numeric_id);
