-- PostgreSQL dialect of src/store/migrations/024-installments.sql (same number, same columns).

-- The account's installment plans (JSON text; NULL: the defaults).
ALTER TABLE settings ADD COLUMN installments TEXT COLLATE "C";

-- The plan a card charge in installments was charged with (JSON text; NULL for one payment).
ALTER TABLE charges ADD COLUMN installments TEXT COLLATE "C";
