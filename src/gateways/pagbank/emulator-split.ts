import { wireToCents, type AmountUnit, type Json } from '../../sandbox/core';

// `splits` of a charge or a QR code as PagBank checks them (pagbank.md section 9): method FIXED (receivers'
// amount.value in the wire unit, summing to the charge amount, the primary account included) or PERCENTAGE
// (percents summing to 100); every receiver an account id ACCO_ + UUID, none twice. Problems are PagBank's 40001
// (missing) / 40002 (invalid) with the parameter path.

const ACCOUNT = /^ACCO_[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

export interface SplitProblem { code: '40001' | '40002'; parameter: string }

export function splitsProblem(splits: unknown, totalCents: number | undefined, path: string, unit: AmountUnit): SplitProblem | undefined {
  if (splits === undefined || splits === null) return undefined;
  const missing = (p: string): SplitProblem => ({ code: '40001', parameter: `${path}.${p}` });
  const invalid = (p: string): SplitProblem => ({ code: '40002', parameter: `${path}.${p}` });
  const s = splits as Json;
  if (!s.method) return missing('method');
  if (s.method !== 'FIXED' && s.method !== 'PERCENTAGE') return invalid('method');
  if (!Array.isArray(s.receivers) || s.receivers.length === 0) return missing('receivers');
  const accounts = new Set<string>();
  let sum = 0;
  for (const [i, r] of (s.receivers as Json[]).entries()) {
    const id = r?.account?.id;
    if (!id) return missing(`receivers[${i}].account.id`);
    if (typeof id !== 'string' || !ACCOUNT.test(id) || accounts.has(id)) return invalid(`receivers[${i}].account.id`);
    accounts.add(id);
    const value = r.amount?.value;
    if (value === undefined) return missing(`receivers[${i}].amount.value`);
    if (s.method === 'FIXED') {
      const cents = wireToCents(value, unit);
      if (cents === undefined || cents <= 0) return invalid(`receivers[${i}].amount.value`);
      sum += cents;
    } else {
      if (typeof value !== 'number' || !(value > 0 && value <= 100)) return invalid(`receivers[${i}].amount.value`);
      sum += Math.round(value * 100);
    }
  }
  // The receivers share the whole amount: the primary account's part is a receiver too.
  if (s.method === 'FIXED' ? sum !== totalCents : sum !== 100 * 100) return invalid('receivers');
  return undefined;
}
