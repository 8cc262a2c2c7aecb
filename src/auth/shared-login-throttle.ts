import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { sha256Hex } from '../lib/crypto';
import { DEFAULT_THROTTLE, LoginThrottle, throttleWait, type SignInThrottle, type ThrottleLimits } from './login-throttle';

// Each key: INCR, and PEXPIRE when the INCR made it (the window starts at the first failure). One script, so a
// key never exists without its expiry, whichever process or crash comes between.
const FAIL = `
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 0`;

/**
 * The sign-in throttle with REDIS_URL: failed sign-ins counted in Redis as well, so the limits (5 per e-mail, 20
 * per client IP, 15 minutes; the rule is throttleWait's) hold across every RouteGate process behind a load
 * balancer, not per process.
 *
 * Redis counts in a fixed window from the first failure (INCR + PEXPIRE); the in-memory sliding window is kept
 * too, and a sign-in waits for whichever is longer. When Redis fails, the in-memory count alone decides: the
 * throttle degrades to per process, it never stops throttling nor refuses everyone. E-mails are hashed in key
 * names (keys: `<prefix>sign-in:email:<sha256>`, `<prefix>sign-in:ip:<address>` and `<prefix>sign-in:pair:<sha256>:<address>`).
 */
export class SharedLoginThrottle implements SignInThrottle {
  private readonly local: LoginThrottle;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {
    this.local = new LoginThrottle(limits);
  }

  async blockedFor(email: string, ip: string): Promise<number> {
    const local = this.local.blockedFor(email, ip);
    const [emailKey, ipKey, pairKey] = this.keys(email, ip);
    try {
      const replies = await this.redis.multi().get(emailKey).pttl(emailKey).get(ipKey).pttl(ipKey).get(pairKey).pttl(pairKey).exec();
      if (!replies) return local;
      const [count, ttl, ipCount, ipTtl, pairCount, pairTtl] = replies.map(([err, value]) => {
        if (err) throw err;
        return Number(value ?? 0);
      });
      const shared = throttleWait({ email: { count, waitMs: ttl }, ip: { count: ipCount, waitMs: ipTtl }, pair: { count: pairCount, waitMs: pairTtl } }, this.limits);
      return Math.max(local, shared);
    } catch (err) {
      this.failed(err);
      return local;
    }
  }

  async fail(email: string, ip: string): Promise<void> {
    this.local.fail(email, ip);
    try {
      await this.redis.eval(FAIL, 3, ...this.keys(email, ip), this.limits.windowMs);
    } catch (err) {
      this.failed(err);
    }
  }

  /** A correct password clears the e-mail's counts everywhere; the IP's stays (as in memory). */
  async succeed(email: string, ip: string): Promise<void> {
    this.local.succeed(email, ip);
    const [emailKey, , pairKey] = this.keys(email, ip);
    try {
      await this.redis.del(emailKey, pairKey);
    } catch (err) {
      this.failed(err);
    }
  }

  /** E-mail, IP and (e-mail, IP) keys. */
  private keys(email: string, ip: string): [string, string, string] {
    const hashed = sha256Hex(email.toLowerCase());
    return [`${this.prefix}sign-in:email:${hashed}`, this.ipKey(ip), `${this.prefix}sign-in:pair:${hashed}:${ip}`];
  }

  private ipKey(ip: string): string {
    return `${this.prefix}sign-in:ip:${ip}`;
  }

  private failed(err: unknown): void {
    this.log.warn({ redis: { message: (err as Error).message } }, 'sign-in throttle: Redis failed; counted in this process only');
  }
}

