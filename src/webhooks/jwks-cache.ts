import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { clock } from '../lib/clock';

/** A fetched JSON document and how long its server says it may be kept (Cache-Control max-age), if it said. */
export interface FetchedDocument { body: unknown; maxAgeMs?: number }

/** What the webhook verifiers fetch through (WebhookKeys.fetchJson). */
export interface JsonDocuments {
  /** `refreshFor`: a key id the cached document lacks, which may fetch it again early (at most once a minute). */
  getJson(url: string, timeoutMs: number, opts?: { refreshFor?: string }): Promise<unknown>;
}

interface Entry { body: unknown; fetchedAt: number; expiresAt: number }

// Bounds on what a server's caching headers may say: never fetched more than once a minute per URL, whoever sends
// notifications (an unknown kid included), and never kept past a day.
const MIN_KEEP_MS = 60_000;
const MAX_KEEP_MS = 24 * 3_600_000;
const DEFAULT_KEEP_MS = 10 * 60_000;

/**
 * JWKS documents (a gateway's webhook signing keys) cached per URL as their HTTP caching headers say, within bounds, and
 * fetched once for all the notifications that need one at the same time. A notification naming a key id the cached
 * document lacks fetches it again early, at most once a minute: a rotated key is picked up, and a stream of forged
 * kids costs one request a minute. A failed fetch is logged here and reaches the gateway as a bare error.
 */
export class JwksCache implements JsonDocuments {
  private readonly entries = new LRUCache<string, Entry>({ max: 1_000 });
  private readonly inFlight = new Map<string, Promise<Entry>>();

  constructor(private readonly fetch: (url: string, timeoutMs: number) => Promise<FetchedDocument>, private readonly log: FastifyBaseLogger) {}

  async getJson(url: string, timeoutMs: number, opts: { refreshFor?: string } = {}): Promise<unknown> {
    const now = clock.now();
    const cached = this.entries.get(url);
    if (cached && now < cached.expiresAt) {
      const lacksKid = opts.refreshFor !== undefined && !hasKid(cached.body, opts.refreshFor);
      if (!lacksKid || now - cached.fetchedAt < MIN_KEEP_MS) return cached.body;
    }
    return (await this.load(url, timeoutMs)).body;
  }

  private load(url: string, timeoutMs: number): Promise<Entry> {
    let pending = this.inFlight.get(url);
    if (pending === undefined) {
      pending = this.fetch(url, timeoutMs).then((doc) => {
        const fetchedAt = clock.now();
        const keep = Math.min(MAX_KEEP_MS, Math.max(MIN_KEEP_MS, doc.maxAgeMs ?? DEFAULT_KEEP_MS));
        const entry = { body: doc.body, fetchedAt, expiresAt: fetchedAt + keep };
        this.entries.set(url, entry);
        return entry;
      }, (err: unknown) => {
        this.log.warn({ jwks: { url: new URL(url).origin, error: (err as Error).message } }, 'JWKS could not be fetched');
        throw new Error('the key document could not be fetched');
      }).finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, pending);
    }
    return pending;
  }
}

function hasKid(doc: unknown, kid: string): boolean {
  const keys = (doc as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) && keys.some((k) => (k as { kid?: unknown } | null)?.kid === kid);
}

/** max-age from a Cache-Control header (no-store and no-cache keep nothing: the minimum then). */
export function maxAgeMs(cacheControl: string | undefined): number | undefined {
  if (!cacheControl) return undefined;
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) return 0;
  const m = /\bmax-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? Number(m[1]) * 1000 : undefined;
}
