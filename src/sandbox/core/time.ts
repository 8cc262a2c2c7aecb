// Timestamp formats the emulated gateways answer with.
import { brazilToday, DAY_MS } from '../../lib/iso-time';

export { DAY_MS };

/** 2026-01-01T10:00:00.000Z */
export const isoNow = (): string => new Date().toISOString();
/** 2026-01-01T10:00:00Z (no milliseconds). */
export const isoSeconds = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
/** Unix seconds. */
export const unixNow = (): number => Math.floor(Date.now() / 1000);
/** 2026-01-01: today's date in Brazil, where the emulated gateways keep their calendar (src/lib/iso-time.ts). */
export const dateOnly = (): string => brazilToday();
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
/** 2026-01-01 10:00:00 (a date-time without zone). */
export const dateTime = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);
/** Brasília time with milliseconds, e.g. 2026-01-01T07:00:00.000-03:00 . */
export const brasiliaIso = (ms = Date.now()): string => new Date(ms - 3 * 3_600_000).toISOString().replace('Z', '-03:00');
