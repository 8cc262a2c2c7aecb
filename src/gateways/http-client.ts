import { Agent, request, errors as undiciErrors } from 'undici';
import { GatewayFailure, type GatewayReply, type GatewayRequest, type HttpSender } from './types';

export type { GatewayRequest, GatewayReply };

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

// Failures while connecting: no byte of the request left this process, so the gateway cannot have acted on it.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
// The connection died after it was open: the request may have been written and acted on.
const LOST_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ABORT_ERR', 'UND_ERR_ABORTED']);

/**
 * One keep-alive undici Agent for all gateway origins (it pools per origin). No retry interceptor:
 * fallback is the orchestrator's decision, with a per-attempt idempotency key.
 */
export class GatewayHttp implements HttpSender {
  private readonly agent: Agent;

  /** connectTimeoutMs: how long opening a connection may take (nothing is sent before it is open). */
  constructor(options: { connectTimeoutMs?: number } = {}) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connections: 128,
      maxResponseSize: MAX_RESPONSE_BYTES,
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
    });
  }

  async send(req: GatewayRequest): Promise<GatewayReply> {
    const started = performance.now();
    const timeoutMs = req.deadline === undefined ? req.timeoutMs : Math.min(req.timeoutMs, req.deadline - Date.now());
    if (timeoutMs <= 0) {
      throw new GatewayFailure('timeout', req.gateway, `the request deadline passed before ${req.gateway} was called`, { ambiguous: false });
    }
    const signal = AbortSignal.timeout(timeoutMs);
    let status: number;
    let headers: GatewayReply['headers'];
    let text: string;
    try {
      const res = await request(req.url, {
        dispatcher: this.agent,
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
    await this.agent.close();
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
