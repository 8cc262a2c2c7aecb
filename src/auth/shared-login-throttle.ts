import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { sha256Hex } from '../lib/crypto';
import { DEFAULT_THROTTLE, LoginThrottle, type SignInThrottle, type ThrottleLimits } from './login-throttle';

// Each key: INCR, and PEXPIRE when the INCR made it (the window starts at the first failure). One script, so a
// key never exists without its expiry, whichever process or crash comes between.
const FAIL = `
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 0`;

/**
 * The sign-in throttle with REDIS_URL: failed sign-ins counted in Redis as well, so the limits (5 per e-mail, 20
 * per client IP, 15 minutes) hold across every RouteGate process behind a load balancer, not per process.
 *
 * Redis counts in a fixed window from the first failure (INCR + PEXPIRE); the in-memory sliding window is kept
 * too, and a sign-in waits for whichever is longer. When Redis fails, the in-memory count alone decides: the
 * throttle degrades to per process, it never stops throttling nor refuses everyone. E-mails are hashed in key
 * names (keys: `<prefix>sign-in:email:<sha256>` and `<prefix>sign-in:ip:<address>`).
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
    const emailKey = this.emailKey(email);
    const ipKey = this.ipKey(ip);
    try {
      const replies = await this.redis.multi().get(emailKey).pttl(emailKey).get(ipKey).pttl(ipKey).exec();
      if (!replies) return local;
      const [count, ttl, ipCount, ipTtl] = replies.map(([err, value]) => {
        if (err) throw err;
        return Number(value ?? 0);
      });
      return Math.max(local, wait(count, this.limits.perEmail, ttl), wait(ipCount, this.limits.perIp, ipTtl));
    } catch (err) {
      this.failed(err);
      return local;
    }
  }

  async fail(email: string, ip: string): Promise<void> {
    this.local.fail(email, ip);
    try {
      await this.redis.eval(FAIL, 2, this.emailKey(email), this.ipKey(ip), this.limits.windowMs);
    } catch (err) {
      this.failed(err);
    }
  }

  /** A correct password clears the e-mail's count everywhere; the IP's stays (as in memory). */
  async succeed(email: string): Promise<void> {
    this.local.succeed(email);
    try {
      await this.redis.del(this.emailKey(email));
    } catch (err) {
      this.failed(err);
    }
  }

  private emailKey(email: string): string {
    return `${this.prefix}sign-in:email:${sha256Hex(email.toLowerCase())}`;
  }

  private ipKey(ip: string): string {
    return `${this.prefix}sign-in:ip:${ip}`;
  }

  private failed(err: unknown): void {
    this.log.warn({ redis: { message: (err as Error).message } }, 'sign-in throttle: Redis failed; counted in this process only');
  }
}

/** At the limit: the key's remaining lifetime (PTTL; -2 when it expired between the two reads). */
function wait(count: number, limit: number, ttl: number): number {
  return count >= limit && ttl > 0 ? ttl : 0;
}
