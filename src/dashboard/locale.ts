import { rgError } from '../errors';

// How the dashboard shows money and time to a Brazilian merchant, and reads the amounts they type: Intl's pt-BR
// (`R$ 159,90`, `01/12/2026, 21:36:07 BRT`) and reais with a decimal comma (`50,00`). Amounts stay integer cents
// everywhere else; the conversion here is string arithmetic, never a float multiplied by 100.

const LOCALE = 'pt-BR';

/**
 * The time zone dashboard times are shown in. Every account uses São Paulo's for now: a per-account choice needs a
 * settings column (a migration) that is not there yet.
 */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const moneyFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Cents as the merchant reads them: `R$ 159,90`, `US$ 1.234,50`. */
export function formatMoney(cents: number, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    moneyFormats.set(currency, format);
  }
  return format.format(cents / 100);
}

/** An instant as the merchant's clock showed it: `01/12/2026, 21:36:07 BRT`. */
export function formatDate(iso: string | null | undefined, timeZone = DEFAULT_TIME_ZONE): string {
  if (!iso) return '';
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat(LOCALE, {
      timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
    });
    dateFormats.set(timeZone, format);
  }
  return format.format(new Date(iso));
}

/**
 * An amount typed in reais, as integer cents; empty is undefined (the form's "everything"). Accepts `50`, `50,5`,
 * `50,00`, `1.234,56` and `R$ 1234,56`; the comma is the decimal separator and a dot only groups thousands, so
 * `50.00` is refused rather than read as five thousand. Cents come from the digits, never from a float.
 */
export function parseReais(raw: string | undefined): number | undefined {
  const v = String(raw ?? '').replace(/^\s*R\$/, '').replace(/[\s\u00a0]/g, '');
  if (!v) return undefined;
  const m = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/.exec(v);
  if (!m) throw rgError('AMOUNT_INVALID');
  const cents = Number(m[1].replace(/\./g, '')) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents) || cents < 1) throw rgError('AMOUNT_INVALID');
  return cents;
}
