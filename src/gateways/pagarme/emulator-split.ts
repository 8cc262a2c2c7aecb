type Json = Record<string, any>;

// payments[].split[] as Pagar.me checks it (pagarme.md section 9; docs.pagar.me "split"): recipient ids
// rp_ + 16 characters, type percentage (whole percents summing to 100) or flat (cents summing to the payment
// amount), and at least one rule each liable for chargebacks, paying the processing fee and taking the
// remainder. Every rule covers the whole payment, the account's own recipient included.

const RECIPIENT = /^rp_[A-Za-z0-9]{16}$/;

/** Errors keyed by field path (Pagar.me's 422 shape), or undefined when the split is acceptable. */
export function splitErrors(split: unknown, paymentAmount: number, path: string): Json | undefined {
  if (split === undefined || split === null) return undefined;
  const errors: Json = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!Array.isArray(split) || split.length === 0) {
    add(path, 'The split field must be a non-empty array.');
    return errors;
  }
  const seen = new Set<string>();
  split.forEach((rule: Json, i: number) => {
    const at = `${path}[${i}]`;
    if (typeof rule?.recipient_id !== 'string' || !RECIPIENT.test(rule.recipient_id)) add(`${at}.recipient_id`, 'The recipient_id field is invalid.');
    else if (seen.has(rule.recipient_id)) add(`${at}.recipient_id`, 'The recipient is already in another split rule.');
    else seen.add(rule.recipient_id);
    if (rule?.type !== 'percentage' && rule?.type !== 'flat') add(`${at}.type`, 'The type field must be percentage or flat.');
    if (!Number.isInteger(rule?.amount) || rule.amount <= 0) add(`${at}.amount`, 'The amount field must be a positive integer.');
  });
  if (Object.keys(errors).length) return errors;
  const types = new Set(split.map((r: Json) => r.type));
  const sum = split.reduce((s: number, r: Json) => s + r.amount, 0);
  if (types.size > 1) add(path, 'All split rules must have the same type.');
  else if (types.has('percentage') && sum !== 100) add(path, `The sum of the split rules amount must be 100 (percentage); it is ${sum}.`);
  else if (types.has('flat') && sum !== paymentAmount) add(path, `The sum of the split rules amount must be equal to the payment amount (${paymentAmount}); it is ${sum}.`);
  const someone = (option: string) => split.some((r: Json) => r.options?.[option] === true);
  if (!someone('liable')) add(path, 'At least one recipient must be liable (options.liable).');
  if (!someone('charge_processing_fee')) add(path, 'At least one recipient must be charged the processing fee (options.charge_processing_fee).');
  if (!someone('charge_remainder_fee')) add(path, 'At least one recipient must receive the remainder (options.charge_remainder_fee).');
  return Object.keys(errors).length ? errors : undefined;
}
