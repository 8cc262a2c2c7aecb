import { LRUCache } from 'lru-cache';
import { clock } from '../lib/clock';

export interface ThrottleLimits {
  /** Failed sign-ins allowed per e-mail within the window. */
  perEmail: number;
  /** Failed sign-ins allowed per client IP within the window (across e-mails: spraying one password). */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perEmail: 5, perIp: 20, windowMs: 15 * 60_000 };

/** What LoginService needs: this in-memory throttle, or SharedLoginThrottle (REDIS_URL) across processes. */
export interface SignInThrottle {
  /** Milliseconds until a sign-in may be tried again, or 0. */
  blockedFor(email: string, ip: string): number | Promise<number>;
  fail(email: string, ip: string): void | Promise<void>;
  succeed(email: string, ip: string): void | Promise<void>;
}

/**
 * The rule, in one place for both throttles: an address at its own limit (spraying) or at the e-mail's limit on
 * that e-mail (guessing) waits; the e-mail's count across addresses stops only addresses that have failed on it,
 * so strangers failing on an account cannot lock its owner out: a correct password from an address with no
 * failure on that e-mail is always checked.
 */
export function throttleWait(counts: { email: Count; ip: Count; pair: Count }, limits: ThrottleLimits): number {
  const at = (c: Count, limit: number) => (c.count >= limit ? Math.max(0, c.waitMs) : 0);
  const accountWait = counts.pair.count > 0 ? at(counts.email, limits.perEmail) : 0;
  return Math.max(at(counts.ip, limits.perIp), at(counts.pair, limits.perEmail), accountWait);
}

/** Failures in the window and how long until the one that keeps the count at its limit leaves it. */
export interface Count { count: number; waitMs: number }

/**
 * Counts failed sign-ins per e-mail, per IP and per (e-mail, IP) in a sliding window, in memory (one process; a
 * restart forgets, which only gives a guesser another window). While throttleWait says wait no password is even
 * checked, so a correct guess cannot be confirmed either.
 */
export class LoginThrottle implements SignInThrottle {
  private readonly failures = new LRUCache<string, number[]>({ max: 50_000 });

  constructor(private readonly limits: ThrottleLimits = DEFAULT_THROTTLE) {}

  /** Milliseconds until a sign-in may be tried again, or 0. */
  blockedFor(email: string, ip: string): number {
    const now = clock.now();
    const [e, i, p] = keys(email, ip);
    return throttleWait({ email: this.count(e, this.limits.perEmail, now), ip: this.count(i, this.limits.perIp, now), pair: this.count(p, this.limits.perEmail, now) }, this.limits);
  }

  fail(email: string, ip: string): void {
    const now = clock.now();
    for (const key of keys(email, ip)) this.failures.set(key, [...this.recent(key, now), now]);
  }

  /** A correct password clears the e-mail's counts; the IP's stays (one good login must not hide spraying). */
  succeed(email: string, ip: string): void {
    const [e, , p] = keys(email, ip);
    this.failures.delete(e);
    this.failures.delete(p);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.limits.windowMs);
  }

  private count(key: string, limit: number, now: number): Count {
    const times = this.recent(key, now);
    return { count: times.length, waitMs: times.length < limit ? 0 : times[times.length - limit] + this.limits.windowMs - now };
  }
}

function keys(email: string, ip: string): [string, string, string] {
  const e = email.toLowerCase();
  return [`e:${e}`, `i:${ip}`, `p:${ip}:${e}`];
}
