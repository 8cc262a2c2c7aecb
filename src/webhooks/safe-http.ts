import { Agent, request, type Dispatcher } from 'undici';
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
const MAX_ANSWER_BYTES = 64 * 1024;

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
    try {
      const url = parseTarget(rawUrl, this.policy);
      await checkTarget(url, this.policy);
      const statusCode = await this.send(url, { 'content-type': 'application/json', 'user-agent': 'RouteGate-Webhooks/1', ...headers }, body, timeoutMs);
      const ok = statusCode >= 200 && statusCode < 300;
      return { statusCode, durationMs: took(), ...(ok ? {} : { error: `the backend answered ${statusCode}` }) };
    } catch (err) {
      return { durationMs: took(), error: describe(err, timeoutMs) };
    }
  }

  /**
   * The POST through the agent's own dispatch: the status, the answer's body read to 64 KiB and dropped, within
   * `timeoutMs` from the start (connecting included). undici's request() wraps the same dispatch in a promise, an
   * abort-signal listener and a readable stream for a body that is only dropped: about a tenth of a forwarded
   * event's CPU.
   */
  private send(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      let status = 0;
      let received = 0;
      let settled = false;
      let abort: ((err: Error) => void) | undefined;
      const finish = (err: Error | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(status);
      };
      const timer = setTimeout(() => {
        const err = timedOut();
        if (abort) abort(err);
        finish(err);
      }, timeoutMs);
      this.agent.dispatch({
        origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
      }, {
        onConnect: (a: (err?: Error) => void) => {
          abort = a;
          if (settled) a(timedOut());
        },
        onHeaders: (statusCode: number) => {
          status = statusCode;
          return true;
        },
        onData: (chunk: Buffer) => {
          received += chunk.length;
          // The status is the answer; past 64 KiB the rest of a body is not waited for.
          if (received > MAX_ANSWER_BYTES) {
            finish(undefined);
            abort?.(new Error('answer body past 64 KiB dropped'));
            return false;
          }
          return true;
        },
        onComplete: () => finish(undefined),
        onError: (err: Error) => finish(err),
      } as unknown as Dispatcher.DispatchHandlers);
    });
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

const timedOut = () => Object.assign(new Error('no answer in time'), { name: 'TimeoutError', code: 'TimeoutError' });

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
