import type { GatewayReply } from './http-client';
import { brazilToday } from '../lib/iso-time';
import {
  GatewayFailure, type CallContext, type ChargeOutcome, type DeclineCode, type GatewayErrorFacts, type NormalizedChargeResult,
  type NormalizedCustomerResult, type CustomerOutcome, type RefundResult,
} from './types';

export const DECLINE_CODES: DeclineCode[] = ['card_declined', 'insufficient_funds', 'expired_card', 'incorrect_cvc', 'processing_error'];
const REFUND_STATUSES = new Set(['pending', 'succeeded', 'failed']);
const STATUSES = new Set(['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed', 'disputed', 'charged_back']);

/** The transport half of an adapter: what every call to one gateway shares. */
export interface Transport {
  authHeaders(credentials: Record<string, string>): Record<string, string>;
  /** Headers every call carries besides auth (e.g. an API version header). */
  fixedHeaders?(ctx: CallContext): Record<string, string>;
  /** Default: JSON; a gateway with form-encoded bodies overrides it. */
  encodeBody?(body: unknown): { contentType: string; payload: string };
  /** The gateway's own idempotency header, if it has one. */
  idempotencyHeader?: string;
  /**
   * Turn a non-2xx reply into an internal failure, from what the gateway's `error.response` mapping read out of
   * its body. Default: `classifyHttpError` (by HTTP status).
   */
  classifyError?(reply: GatewayReply, gateway: CallContext['gateway'], facts: GatewayErrorFacts): GatewayFailure;
}

export interface SendOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string; // appended to ctx.baseUrl, e.g. /v1/payment_intents
  body?: unknown;
  /** Idempotency key for this write; omit for reads. Defaults to none. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** Send one call; resolves with a 2xx reply whose body parsed, throws GatewayFailure otherwise. */
export async function send(ctx: CallContext, transport: Transport, opts: SendOptions): Promise<GatewayReply> {
  const headers: Record<string, string> = {
    accept: 'application/json', ...transport.authHeaders(ctx.credentials), ...transport.fixedHeaders?.(ctx), ...opts.headers,
  };
  let payload: string | undefined;
  if (opts.body !== undefined) {
    const encoded = transport.encodeBody ? transport.encodeBody(opts.body) : { contentType: 'application/json', payload: JSON.stringify(opts.body) };
    headers['content-type'] = encoded.contentType;
    payload = encoded.payload;
  }
  if (opts.idempotencyKey && transport.idempotencyHeader) headers[transport.idempotencyHeader] = opts.idempotencyKey;
  const reply = await ctx.http.send({
    gateway: ctx.gateway, method: opts.method, url: ctx.baseUrl + opts.path, headers, body: payload, timeoutMs: ctx.timeoutMs, deadline: ctx.deadline,
  });
  if (reply.status < 200 || reply.status >= 300) {
    const facts = await readError(ctx, reply);
    const failure = (transport.classifyError ?? classifyHttpError)(reply, ctx.gateway, facts);
    // A 5xx on a write proves nothing: the gateway may have acted before failing to answer.
    if (reply.status >= 500 && opts.method !== 'GET' && !failure.info.ambiguous) {
      throw new GatewayFailure(failure.kind, failure.gateway, failure.message, { ...failure.info, ambiguous: true });
    }
    throw failure;
  }
  if (reply.jsonError) {
    throw new GatewayFailure('bad_response', ctx.gateway, `${ctx.gateway} answered ${reply.status} with a body that is not JSON`, {
      status: reply.status, body: reply.text.slice(0, 500), ambiguous: opts.method !== 'GET',
    });
  }
  return reply;
}

/** Status-based classification every gateway shares; the message is the gateway's own text (`messageOf`). */
export function classifyHttpError(reply: GatewayReply, gateway: CallContext['gateway'], facts: GatewayErrorFacts = {}): GatewayFailure {
  const message = messageOf(reply, facts);
  const info = { status: reply.status, body: reply.json ?? reply.text.slice(0, 500), error: facts };
  if (reply.status === 401 || reply.status === 403) return new GatewayFailure('auth', gateway, message, info);
  if (reply.status === 404) return new GatewayFailure('not_found', gateway, message, info);
  if (reply.status === 429) return new GatewayFailure('rate_limited', gateway, message, info);
  if (reply.status >= 500) return new GatewayFailure('http_5xx', gateway, message, info);
  return new GatewayFailure('invalid_request', gateway, message, info);
}

/**
 * The gateway's error body read by its `error.response` mapping (each gateway nests its text and codes
 * differently; the mapping knows where). A body that is not JSON, or a mapping that fails, gives no facts: the
 * gateway's error must never be hidden behind a mapping problem.
 */
export async function readError(ctx: CallContext, reply: GatewayReply): Promise<GatewayErrorFacts> {
  if (reply.json === undefined || reply.json === null) return {};
  try {
    const facts = await ctx.mappings.evaluate<GatewayErrorFacts | undefined>('error.response', { status: reply.status, body: reply.json });
    return facts && typeof facts === 'object' ? facts : {};
  } catch {
    return {};
  }
}

/** The gateway's text from the facts; else the raw body's start, else the status. */
export function messageOf(reply: GatewayReply, facts: GatewayErrorFacts): string {
  const base = typeof facts.message === 'string' && facts.message.length > 0 ? facts.message
    : reply.jsonError || !reply.text ? `HTTP ${reply.status}` : reply.text.slice(0, 200);
  return withFieldMessages(base, facts.fields);
}

/**
 * The gateway's field-level validation messages after its general text ("The request is invalid." alone says
 * nothing an operator can fix): each `field: message` the text does not already carry, at most 5, each cut to 200.
 */
export function withFieldMessages(base: string, fields: GatewayErrorFacts['fields']): string {
  if (!Array.isArray(fields)) return base;
  const extra = fields
    .filter((f) => f && typeof f.field === 'string' && typeof f.message === 'string' && f.message !== '' && !base.includes(f.message))
    .slice(0, 5)
    .map((f) => `${f.field}: ${f.message.slice(0, 200)}`);
  return extra.length ? `${base} (${extra.join('; ')})` : base;
}

/**
 * Normalize a charge body through `charge.response` and enforce the normalized contract. A declined
 * (or card-failed) charge becomes a `decline` failure carrying the normalized result so it is stored.
 */
export async function normalizeCharge(
  ctx: CallContext, reply: GatewayReply, extra: Record<string, unknown> = {}, bindings: Record<string, unknown> = {},
): Promise<ChargeOutcome> {
  const normalized = await ctx.mappings.evaluate<NormalizedChargeResult>('charge.response', { response: reply.json, extra }, bindings);
  assertChargeResult(ctx, normalized, reply);
  if (normalized.status === 'declined' || (normalized.status === 'failed' && normalized.declineCode)) {
    const code = normalized.declineCode && DECLINE_CODES.includes(normalized.declineCode) ? normalized.declineCode : 'card_declined';
    throw new GatewayFailure('decline', ctx.gateway, normalized.gatewayMessage ?? 'the payment was declined', {
      status: reply.status, body: reply.json, declineCode: code, normalized: { ...normalized, status: 'declined', declineCode: code },
    });
  }
  return { normalized, raw: reply.json, rawText: reply.text };
}

function assertChargeResult(ctx: CallContext, r: NormalizedChargeResult | undefined, reply: GatewayReply): asserts r is NormalizedChargeResult {
  const problems: string[] = [];
  if (!r || typeof r !== 'object') problems.push('no result');
  else {
    if (typeof r.externalId !== 'string' || r.externalId === '') problems.push('externalId missing');
    if (!STATUSES.has(r.status)) problems.push(`unknown status ${JSON.stringify(r.status)}`);
    for (const k of ['amount', 'paidAmount', 'refundedAmount'] as const) {
      if (!Number.isInteger(r[k])) problems.push(`${k} is not integer cents`);
    }
  }
  if (problems.length) {
    throw new GatewayFailure('bad_response', ctx.gateway, `${ctx.gateway} response could not be normalized: ${problems.join(', ')}`, {
      status: reply.status, body: reply.json, ambiguous: true,
    });
  }
}

export async function normalizeCustomer(ctx: CallContext, reply: GatewayReply, bindings: Record<string, unknown> = {}): Promise<CustomerOutcome> {
  const normalized = await ctx.mappings.evaluate<NormalizedCustomerResult>('customer.response', { response: reply.json }, bindings);
  if (!normalized || typeof normalized.externalId !== 'string' || !normalized.externalId) {
    throw new GatewayFailure('bad_response', ctx.gateway, `${ctx.gateway} customer response has no id`, { status: reply.status, body: reply.json });
  }
  return { normalized, raw: reply.json };
}

/**
 * The refund a gateway recorded, through `refund.response`. Never throws: by the time it runs the money has
 * moved, and failing here would invite a retry that refunds twice; a refund without an id is still stored.
 */
export async function normalizeRefund(ctx: CallContext, body: unknown, bindings: Record<string, unknown> = {}): Promise<RefundResult> {
  try {
    const r = await ctx.mappings.evaluate<RefundResult>('refund.response', { response: body }, bindings);
    return {
      refundId: typeof r?.refundId === 'string' && r.refundId ? r.refundId : undefined,
      amount: Number.isInteger(r?.amount) ? r.amount : undefined,
      status: r?.status && REFUND_STATUSES.has(r.status) ? r.status : undefined,
      gatewayStatus: typeof r?.gatewayStatus === 'string' ? r.gatewayStatus : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * The newest item of a lookup answer's `field` array (list or search by RouteGate's reference), by
 * `createdAt`; ties keep the gateway's order, whose lookups all list newest first. undefined when none
 * matched; a body without that array is a bad response.
 */
export function newestListed(ctx: CallContext, reply: GatewayReply, field: string, createdAt: (item: any) => number): unknown {
  const items = (reply.json as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(items)) {
    throw new GatewayFailure('bad_response', ctx.gateway, `${ctx.gateway} lookup answer has no ${field} list`, { status: reply.status, body: reply.json });
  }
  const time = (item: unknown) => {
    const t = createdAt(item);
    return Number.isFinite(t) ? t : -Infinity;
  };
  return items.map((item, i) => ({ item, i })).sort((a, b) => time(b.item) - time(a.item) || a.i - b.i)[0]?.item;
}

/** Today's date in Brazil (src/lib/iso-time.ts) for mappings that need one; mappings never read a clock themselves. */
export function today(): string {
  return brazilToday();
}

/** "invalid" in a credential value makes emulators reject it; real gateways reject bad keys the same way. */
export function requireCredential(ctx: CallContext, field: string): string {
  const v = ctx.credentials[field];
  if (!v) throw new GatewayFailure('auth', ctx.gateway, `stored ${ctx.gateway} credentials have no ${field}`, { status: 401 });
  return v;
}

/** A request mapping's flat output as a query string (GET calls); absent and null values are left out. */
export function queryOf(params: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null) q.set(k, String(v));
  return q.toString();
}
