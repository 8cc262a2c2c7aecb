// Money in the emulators: state is integer cents; a gateway whose wire is reais (or has a reais
// profile) converts at its edge. Math.round, since 10.99 * 100 is 1098.9999999999998.

export type AmountUnit = 'minor' | 'major';

export const toCents = (reais: number): number => Math.round(reais * 100);
export const toReais = (cents: number): number => Math.round(cents) / 100;
/** A reais amount rounded to centavos. */
export const roundReais = (reais: number): number => Math.round(reais * 100) / 100;

/** A wire amount -> cents, or undefined when it is not a positive amount in the wire unit (at most 2 decimals). */
export function wireToCents(value: unknown, unit: AmountUnit): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  if (unit === 'minor') return Number.isInteger(value) ? value : undefined;
  const cents = Math.round(value * 100);
  return Math.abs(cents - value * 100) < 1e-6 ? cents : undefined;
}

export const centsToWire = (cents: number, unit: AmountUnit): number => (unit === 'minor' ? cents : cents / 100);

