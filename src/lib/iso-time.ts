// A charge asks for the time five or six times, mostly within one millisecond: the string is made once per
// millisecond (a Date and its ISO string each time was ~1% of a charge's CPU).
let lastMs = -1;
let lastIso = '';

/** The current time as an ISO 8601 string (UTC, milliseconds). */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

// Brazil has kept UTC-3 all year since 2019 (no daylight saving time): America/Sao_Paulo is a fixed offset.
export const BRAZIL_UTC_OFFSET_HOURS = -3;
const BRAZIL_OFFSET_MS = -BRAZIL_UTC_OFFSET_HOURS * 3_600_000;
export const DAY_MS = 86_400_000;
let lastDay = Number.NaN;
let lastDate = '';

/** The number of the calendar day in Brazil (days since 1970-01-01 there) at the instant `ms`. */
export function brazilDayNumber(ms: number): number {
  return Math.floor((ms - BRAZIL_OFFSET_MS) / DAY_MS);
}

/** A day number (brazilDayNumber) as "YYYY-MM-DD". */
export function dayNumberDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The instant a calendar day ("YYYY-MM-DD") begins in Brazil, as an ISO 8601 UTC string (03:00 UTC that day). */
export function brazilDayStartIso(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + BRAZIL_OFFSET_MS).toISOString();
}

/**
 * Today's calendar date in Brazil (America/Sao_Paulo), "YYYY-MM-DD". The gateways count dates in it: a boleto is due
 * at the end of a day in São Paulo, "expires after N days" counts from São Paulo's today, and a due date before that
 * today is refused. The UTC date runs a day ahead from 21:00 to midnight in Brazil, where a due date computed from it
 * came out a day early.
 */
export function brazilToday(): string {
  const day = brazilDayNumber(Date.now());
  if (day !== lastDay) {
    lastDay = day;
    lastDate = dayNumberDate(day);
  }
  return lastDate;
}
