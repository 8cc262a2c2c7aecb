/** Retries of a failed delivery: 1 minute doubling up to 6 hours between attempts, for 3 days after the event. */
export const RETRY_CAP_MS = 6 * 60 * 60 * 1000;
export const RETRY_FOR_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * The wait after the `failures`-th failed attempt: base (one minute) doubling to the cap, with ±20% jitter so a
 * backend coming back is not hit by every delivery in the same second.
 */
export function retryDelayMs(failures: number, baseMs = 60_000, random: () => number = Math.random): number {
  const delay = Math.min(baseMs * 2 ** Math.max(0, Math.min(failures - 1, 30)), RETRY_CAP_MS);
  return Math.round(delay * (0.8 + 0.4 * random()));
}
