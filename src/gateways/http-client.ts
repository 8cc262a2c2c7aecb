import { Agent, request, errors as undiciErrors } from 'undici';
import { GatewayFailure, type GatewayId } from './types';

export interface GatewayRequest {
  gateway: GatewayId;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface GatewayReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body; undefined when the body is empty or not JSON. */
  json: unknown;
  jsonError: boolean; // body present but not valid JSON
  durationMs: number;
}

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

// Before any response arrived these mean the gateway never got (or never answered on) a connection.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ABORT_ERR', 'UND_ERR_ABORTED']);

/**
 * One keep-alive undici Agent for all gateway origins (it pools per origin). No retry interceptor:
 * fallback is the orchestrator's decision, with a per-attempt idempotency key.
 */
export class GatewayHttp {
  private readonly agent = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: 128,
    maxResponseSize: MAX_RESPONSE_BYTES,
  });

  async send(req: GatewayRequest): Promise<GatewayReply> {
    const started = performance.now();
    const signal = AbortSignal.timeout(req.timeoutMs);
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
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (err) {
      throw classifyTransportError(err, req, signal.aborted);
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

function classifyTransportError(err: unknown, req: GatewayRequest, aborted: boolean): GatewayFailure {
  const code = (err as { code?: string })?.code ?? (err as { name?: string })?.name ?? '';
  // A POST whose socket failed may still have reached the gateway: flag it so the attempt is recorded as such.
  const ambiguous = req.method !== 'GET';
  if (aborted || TIMEOUT_CODES.has(code) || code === 'TimeoutError' || code === 'AbortError') {
    return new GatewayFailure('timeout', req.gateway, `${req.gateway} did not answer within ${req.timeoutMs} ms`, { ambiguous });
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || err instanceof undiciErrors.ResponseExceededMaxSizeError) {
    return new GatewayFailure('bad_response', req.gateway, `${req.gateway} sent a response larger than ${MAX_RESPONSE_BYTES} bytes`);
  }
  if (UNREACHABLE_CODES.has(code)) {
    return new GatewayFailure('unreachable', req.gateway, `could not reach ${req.gateway} (${code})`, { ambiguous: ambiguous && code !== 'ECONNREFUSED' });
  }
  return new GatewayFailure('unreachable', req.gateway, `could not reach ${req.gateway} (${code || 'connection error'})`, { ambiguous });
}
