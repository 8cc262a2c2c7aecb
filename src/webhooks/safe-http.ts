import { Agent, request } from 'undici';
import { checkTarget, guardedLookup, parseTarget, TargetRefused, type TargetPolicy } from './forward-target';
import { maxAgeMs, type FetchedDocument } from './jwks-cache';

export interface PostResult {
  /** The backend's HTTP status; undefined when there was no answer. */
  statusCode?: number;
  /** Why there was no 2xx answer, in words for the merchant (never a stack). */
  error?: string;
  durationMs: number;
}

const MAX_JSON_BYTES = 256 * 1024;

/**
 * RouteGate's own outbound calls to addresses merchants give (webhookForwardUrl, a JWKS URL): the target policy
 * checked on the URL, on every resolved address before sending, and again at connect time; redirects are never
 * followed (a 3xx is an answer that is not 2xx).
 */
export class SafeHttp {
  private readonly agent: Agent;

  constructor(private readonly policy: TargetPolicy) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(policy) } as never, keepAliveTimeout: 10_000, connections: 64 });
  }

  async post(rawUrl: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    // The whole attempt's deadline: a controller and a timer cleared when it ends. AbortSignal.timeout() did the
    // same through a weak reference and a finalization registry per delivery (about 3% of a forwarded event's CPU).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('the delivery timed out', 'TimeoutError')), timeoutMs);
    try {
      const url = parseTarget(rawUrl, this.policy);
      await checkTarget(url, this.policy);
      const res = await request(url, {
        method: 'POST', dispatcher: this.agent, body, headers: { 'content-type': 'application/json', 'user-agent': 'RouteGate-Webhooks/1', ...headers },
        headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: deadline.signal,
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { statusCode: res.statusCode, durationMs: took(), ...(ok ? {} : { error: `the backend answered ${res.statusCode}` }) };
    } catch (err) {
      return { durationMs: took(), error: describe(err, timeoutMs) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** GET a small JSON document under the same policy, with how long its server says it may be kept. */
  async getDocument(rawUrl: string, timeoutMs: number): Promise<FetchedDocument> {
    const url = parseTarget(rawUrl, this.policy);
    await checkTarget(url, this.policy);
    const res = await request(url, { method: 'GET', dispatcher: this.agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`${url.host} answered ${res.statusCode}`);
    }
    const text = await res.body.text();
    if (text.length > MAX_JSON_BYTES) throw new Error(`${url.host} sent more than ${MAX_JSON_BYTES} bytes`);
    const cacheControl = res.headers['cache-control'];
    return { body: JSON.parse(text), maxAgeMs: maxAgeMs(Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl) };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof TargetRefused) return `refused: ${err.message}`;
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof TargetRefused) return `refused: ${cause.message}`;
  const code = (err as { code?: string })?.code ?? (err as { name?: string })?.name ?? 'error';
  if (['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'TimeoutError', 'AbortError', 'UND_ERR_ABORTED'].includes(code)) return `no answer within ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return `could not deliver (${code})`;
}
