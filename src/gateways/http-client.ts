import { EventEmitter } from 'node:events';
import { Pool, errors as undiciErrors } from 'undici';
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
 * The whole-call time limit, as the abort signal undici takes. An EventEmitter (undici's documented alternative to
 * an AbortSignal) with a plain timer cleared when the call ends: AbortSignal.timeout() leaves its timer (and the
 * signal) alive for the full timeout after the answer came, and an AbortController's EventTarget listener costs
 * ten times the call's own bookkeeping.
 */
class Deadline extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = Object.assign(new Error(`no answer within ${ms} ms`), { code: 'UND_ERR_ABORTED' });
      this.emit('abort');
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
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
    const signal = new Deadline(timeoutMs);
    let status: number;
    let headers: GatewayReply['headers'];
    let text: string;
    try {
      const res = await this.pool(origin).request({
        path,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (err) {
      throw classifyTransportError(err, req, timeoutMs, signal.aborted);
    } finally {
      signal.clear();
    }
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
