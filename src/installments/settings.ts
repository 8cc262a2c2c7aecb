import type { FieldError } from '../errors';
import type { InstallmentSettings } from './price-table';

/**
 * What the schema cannot say about a merged installments setting (each field's range is in schemas/settings-patch.json):
 * the interest-free counts fit in the counts offered, and a rate is set to a cent of a percent at most.
 */
export function installmentSettingsErrors(s: InstallmentSettings): FieldError[] {
  const errors: FieldError[] = [];
  if (s.interestFreeCount > s.maxCount) {
    errors.push({ field: 'installments.interestFreeCount', message: `must be at most maxCount (${s.maxCount}); it is ${s.interestFreeCount}` });
  }
  if (Math.abs(Math.round(s.monthlyInterestRate * 10_000) - s.monthlyInterestRate * 10_000) > 1e-6) {
    errors.push({ field: 'installments.monthlyInterestRate', message: 'takes at most four decimals (a percent a month, like 1.99)' });
  }
  return errors;
}
