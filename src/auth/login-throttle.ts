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
  succeed(email: string): void | Promise<void>;
}

/**
 * Counts failed sign-ins per e-mail and per IP in a sliding window, in memory (one process; a restart forgets,
 * which only gives a guesser another window). While either count is at its limit no password is even checked,
 * so a correct guess cannot be confirmed either.
 */
export class LoginThrottle implements SignInThrottle {
  private readonly failures = new LRUCache<string, number[]>({ max: 50_000 });

  constructor(private readonly limits: ThrottleLimits = DEFAULT_THROTTLE) {}

  /** Milliseconds until a sign-in may be tried again, or 0. */
  blockedFor(email: string, ip: string): number {
    const now = clock.now();
    return Math.max(this.wait(`e:${email.toLowerCase()}`, this.limits.perEmail, now), this.wait(`i:${ip}`, this.limits.perIp, now));
  }

  fail(email: string, ip: string): void {
    const now = clock.now();
    for (const key of [`e:${email.toLowerCase()}`, `i:${ip}`]) this.failures.set(key, [...this.recent(key, now), now]);
  }

  /** A correct password clears the e-mail's count; the IP's stays (one good login must not hide spraying). */
  succeed(email: string): void {
    this.failures.delete(`e:${email.toLowerCase()}`);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.limits.windowMs);
  }

  private wait(key: string, limit: number, now: number): number {
    const times = this.recent(key, now);
    if (times.length < limit) return 0;
    return times[times.length - limit] + this.limits.windowMs - now;
  }
}
