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
