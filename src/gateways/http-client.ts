import { Pool, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import { GatewayFailure, type GatewayReply, type GatewayRequest, type HttpSender } from './types';

export type { GatewayRequest, GatewayReply };

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
// Gateway origins come from the deployment's configuration (five gateways, a sandbox): a handful. The bound only
// keeps a misconfiguration from holding sockets open without limit; the oldest pool is closed past it.
const MAX_ORIGINS = 32;

// Failures while connecting: no byte of the request left this process, so the gateway cannot have acted on it.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
// The connection died after it was open: the request may have been written and acted on.
const LOST_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ABORT_ERR', 'UND_ERR_ABORTED']);

/**
 * The whole-call time limit: a plain timer, cleared when the call ends, that aborts the call in flight (or, before
 * its connection is open, as soon as it is). AbortSignal.timeout() would keep its timer alive for the full timeout
 * after the answer came, and an AbortController's EventTarget listener costs ten times the call's own bookkeeping.
 */
class Deadline {
  aborted = false;
  reason: Error | undefined;
  /** undici's abort of the call, once its connection is open. */
  abortCall: ((err: Error) => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = Object.assign(new Error(`no answer within ${ms} ms`), { code: 'UND_ERR_ABORTED' });
      this.abortCall?.(this.reason);
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * One call's answer, collected from undici's dispatch callbacks: the body is read whole anyway, and request() would
 * carry it through a Readable stream and an async resource (about 20 µs a call). The same undici errors reach
 * onError as request() would reject with; the pool's maxResponseSize and the timeouts apply as they did there.
 */
class CollectedAnswer implements Dispatcher.DispatchHandlers {
  status = 0;
  headers: GatewayReply['headers'] = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly deadline: Deadline, private readonly settle: (err: Error | undefined, text?: string) => void) {}

  onConnect(abort: (err?: Error) => void): void {
    if (this.deadline.aborted) abort(this.deadline.reason);
    else this.deadline.abortCall = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: undici reads on to the final answer
    this.status = statusCode;
    this.headers = undiciUtil.parseHeaders(rawHeaders) as GatewayReply['headers'];
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  onComplete(): void {
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    // As undici's body.text(): UTF-8, a byte order mark dropped.
    const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    this.settle(undefined, body.toString('utf8', start));
  }

  onError(err: Error): void {
    this.settle(err);
  }
}

/** `https://host:port/path?q` -> origin and path, without building a URL object per call. */
function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

/**
 * One keep-alive undici Pool per gateway origin, made on its first call and reused by every later one. No retry
 * interceptor: fallback is the orchestrator's decision, with a per-attempt idempotency key.
 */
export class GatewayHttp implements HttpSender {
  private readonly pools = new Map<string, Pool>();
  private readonly options: Pool.Options;

  /** connectTimeoutMs: how long opening a connection may take (nothing is sent before it is open). */
  constructor(options: { connectTimeoutMs?: number } = {}) {
    this.options = {
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connections: 128,
      maxResponseSize: MAX_RESPONSE_BYTES,
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
    };
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      if (this.pools.size >= MAX_ORIGINS) {
        const [oldest, old] = this.pools.entries().next().value as [string, Pool];
        this.pools.delete(oldest);
        old.close().catch(() => undefined); // in-flight calls finish first
      }
      pool = new Pool(origin, this.options);
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async send(req: GatewayRequest): Promise<GatewayReply> {
    const started = performance.now();
    const timeoutMs = req.deadline === undefined ? req.timeoutMs : Math.min(req.timeoutMs, req.deadline - Date.now());
    if (timeoutMs <= 0) {
      throw new GatewayFailure('timeout', req.gateway, `the request deadline passed before ${req.gateway} was called`, { ambiguous: false });
    }
    const { origin, path } = splitUrl(req.url);
    const deadline = new Deadline(timeoutMs);
    let answer!: CollectedAnswer;
    let text: string;
    try {
      text = await new Promise<string>((resolve, reject) => {
        answer = new CollectedAnswer(deadline, (err, body) => (err ? reject(err) : resolve(body!)));
        this.pool(origin).dispatch({ path, method: req.method, headers: req.headers, body: req.body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }, answer);
      });
    } catch (err) {
      throw classifyTransportError(err, req, timeoutMs, deadline.aborted);
    } finally {
      deadline.clear();
    }
    const { status, headers } = answer;
    let json: unknown;
    let jsonError = false;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        jsonError = true;
      }
    }
    return { status, headers, text, json, jsonError, durationMs: performance.now() - started };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

/**
 * undici failures by err.code. A write whose connection failed after it opened, or that got no answer in time,
 * is `ambiguous`: the gateway may have acted on it, so the orchestrator settles it before any fallback.
 */
function classifyTransportError(err: unknown, req: GatewayRequest, timeoutMs: number, aborted: boolean): GatewayFailure {
  const code = (err as { code?: string })?.code ?? (err as { name?: string })?.name ?? '';
  const write = req.method !== 'GET';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || CONNECT_CODES.has(code)) {
    return new GatewayFailure('unreachable', req.gateway, `could not connect to ${req.gateway} (${code})`, { ambiguous: false });
  }
  if (aborted || TIMEOUT_CODES.has(code) || code === 'TimeoutError' || code === 'AbortError') {
    return new GatewayFailure('timeout', req.gateway, `${req.gateway} did not answer within ${timeoutMs} ms`, { ambiguous: write });
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || err instanceof undiciErrors.ResponseExceededMaxSizeError) {
    return new GatewayFailure('bad_response', req.gateway, `${req.gateway} sent a response larger than ${MAX_RESPONSE_BYTES} bytes`, { ambiguous: write });
  }
  const what = LOST_CODES.has(code) ? 'the connection was lost before an answer' : 'connection error';
  return new GatewayFailure('unreachable', req.gateway, `${req.gateway}: ${what} (${code || 'unknown'})`, { ambiguous: write });
}
