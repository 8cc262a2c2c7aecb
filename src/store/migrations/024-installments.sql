-- Issue 44. settings.installments: the account's installment plans as JSON {maxCount, interestFreeCount,
-- monthlyInterestRate, minInstallmentAmount} (docs/installments.md); NULL: the defaults (12 interest-free, no minimum).
ALTER TABLE settings ADD COLUMN installments TEXT;

-- charges.installments: the plan a card charge in installments was charged with, as JSON {count, installmentAmount,
-- totalAmount, interestFree}; NULL for a charge in one payment. Written with the row, before any gateway call.
ALTER TABLE charges ADD COLUMN installments TEXT;
