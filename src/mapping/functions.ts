// Helpers every mapping can call. Money is the reason they exist: `10.99 * 100` is 1098.9999999999998 in
// floating point, so only these functions touch major-unit floats and they always round to whole cents.

/** Major units (reais, float or numeric string) -> integer minor units (cents). */
export function toMinor(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value) : (value as number);
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return Math.round(n * 100);
}

/** Integer minor units (cents) -> major units (reais) with at most two decimals. */
export function toMajor(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value) : (value as number);
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return Math.round(n) / 100;
}

export type AmountUnit = 'minor' | 'major';

/**
 * Cents -> a gateway's wire unit: the one conversion every mapping calls (`$toUnit($cents, $amountUnit)`).
 * The unit must be bound by the adapter: an unbound unit is an error, never a silent default.
 */
export function toUnit(cents: unknown, unit: unknown): number | undefined {
  if (unit === 'major') return toMajor(cents);
  if (unit === 'minor') {
    if (cents === undefined || cents === null || cents === '') return undefined;
    const n = Number(cents);
    return Number.isFinite(n) ? Math.round(n) : undefined;
  }
  throw new Error(`amount unit is not bound (got ${JSON.stringify(unit)}); the adapter passes $amountUnit`);
}

/** A gateway's wire amount -> integer cents; the inverse of toUnit. */
export function fromUnit(value: unknown, unit: unknown): number | undefined {
  if (unit === 'major') return toMinor(value);
  if (unit === 'minor') {
    if (value === undefined || value === null || value === '') return undefined;
    const n = typeof value === 'string' ? Number(value) : (value as number);
    return typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : undefined;
  }
  throw new Error(`amount unit is not bound (got ${JSON.stringify(unit)}); the adapter passes $amountUnit`);
}

const BRANDS: Record<string, string> = {
  visa: 'visa', debvisa: 'visa', electron: 'visa', 'visa electron': 'visa',
  master: 'mastercard', mastercard: 'mastercard', debmaster: 'mastercard', maestro: 'mastercard',
  amex: 'amex', 'american express': 'amex', americanexpress: 'amex',
  elo: 'elo', debelo: 'elo', hipercard: 'hipercard', hiper: 'hipercard', diners: 'diners', 'diners club': 'diners',
  discover: 'discover', jcb: 'jcb', aura: 'aura', cabal: 'cabal', debcabal: 'cabal', unionpay: 'unionpay',
};

/** Any gateway's card brand word ("VISA", "Mastercard", "master", "debvisa") -> one lowercase vocabulary. */
export function cardBrand(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const key = value.trim().toLowerCase().replace(/[_-]+/g, ' ');
  return BRANDS[key] ?? BRANDS[key.replace(/\s+/g, '')] ?? key.replace(/\s+/g, '');
}

/** Only the digits of a document, phone or barcode. */
export function digits(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value).replace(/\D+/g, '');
}

/** Whole days from ISO date `from` to ISO date `to` (YYYY-MM-DD), never negative. Mappings stay pure:
 *  "today" comes in the input from the adapter, never from a clock here. */
export function daysBetween(from: unknown, to: unknown): number | undefined {
  const re = /^\d{4}-\d{2}-\d{2}$/;
  if (typeof from !== 'string' || typeof to !== 'string' || !re.test(from) || !re.test(to)) return undefined;
  return Math.max(0, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000));
}

/** Name split for gateways that want first/last name. */
export function firstName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  return name.trim().split(/\s+/)[0];
}
export function lastName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const parts = name.trim().split(/\s+/);
  return parts.length > 1 ? parts.slice(1).join(' ') : undefined;
}

export function mappingFunctions(statusTable: Record<string, string>): Record<string, unknown> {
  return {
    toMinor,
    toMajor,
    toUnit,
    fromUnit,
    cardBrand,
    digits,
    daysBetween,
    firstName,
    lastName,
    /** Native status -> normalized status from mappings/<gateway>/status.json; undefined when unknown. */
    // Own keys only: a gateway status such as `constructor` is unknown, not Object's constructor.
    status: (native: unknown) => (typeof native === 'string' && Object.hasOwn(statusTable, native) ? statusTable[native] : undefined),
    statusTable,
  };
}
