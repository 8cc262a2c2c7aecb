import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store';
import { RouteGateError, rgError } from '../errors';
import { sha256Hex } from '../lib/crypto';
import { clock } from '../lib/clock';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
    idempotentReplay?: boolean;
    /** The answer ran nothing and says "retry": the key is released, not kept (see RAN_NOTHING). */
    idempotencyRelease?: boolean;
  }
}

/**
 * Refusals thrown before the operation did anything, whose answer tells the client to retry: kept under the key,
 * the retry with that key (what a client should send) would replay the refusal for 24 hours and never run.
 * CHARGE_BUSY: the charge's lock stayed held by another operation past the wait; no gateway call was made.
 * OPERATION_UNSETTLED: another operation on the charge has no known outcome yet; this one was not started.
 */
const RAN_NOTHING = new Set(['CHARGE_BUSY', 'OPERATION_UNSETTLED']);

/** Key order must not make "the same body" differ. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const REPLAYED_HEADERS = /^(x-rg-|location$|content-type$)/;

/**
 * `Idempotency-Key` on POSTs that create something: the same key and body replay the stored answer
 * (header `Idempotent-Replayed: true`); the same key with another body is 409 IDEMPOTENCY_CONFLICT.
 * Every answer is kept (declines and gateway timeouts too, so a retry never charges twice) except a 500
 * of RouteGate's own from before any charge existed and a 409 CHARGE_BUSY (nothing ran), which release the key
 * for a retry. Kept 24 hours.
 */
export interface ChargeLinkedAnswer { status: number; headers: Record<string, string>; body: string; settled: boolean }

export interface IdempotencyOptions {
  /** A claim older than this belongs to a request that died (longer than any request may run). */
  staleClaimMs?: number;
  /** The answer for a create whose key is bound to a charge that was not settled when first answered. */
  answerFromCharge?(request: FastifyRequest, chargeId: string): Promise<ChargeLinkedAnswer | undefined>;
  /**
   * Whether the key is RouteGate's to honour on this request (default: every POST); a passed-through call leaves it to
   * the gateway, and a native API may write with PUT or DELETE.
   */
  applies?(request: FastifyRequest): boolean;
  /** The headers that carry the key, tried in order (default Idempotency-Key; a native API may use its own). */
  headers?(request: FastifyRequest): readonly string[];
  /** Keys are kept per this scope (an endpoint), so the same key on another scope is another request. */
  scope?(request: FastifyRequest): string | undefined;
  /** The body "the same request" compares (default request.body; a native create compares what the client sent). */
  bodyOf?(request: FastifyRequest): unknown;
}

export function installIdempotency(app: FastifyInstance, store: Store, opts: IdempotencyOptions = {}): void {
  const staleClaimMs = opts.staleClaimMs ?? 60_000;
  const inProgress = (key: string) => rgError('IDEMPOTENCY_IN_PROGRESS', { key });
  const replay = (reply: FastifyReply, a: { status: number; headers: Record<string, string>; body: string | null }) =>
    reply.code(a.status).headers({ ...a.headers, 'idempotent-replayed': 'true' }).send(a.body);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (opts.applies ? !opts.applies(request) : request.method !== 'POST') return;
    const name = (opts.headers?.(request) ?? ['idempotency-key']).find((h) => request.headers[h] !== undefined);
    const header = name === undefined ? undefined : request.headers[name];
    if (header === undefined) return;
    const given = Array.isArray(header) ? header[0] : header;
    if (!/^[\x21-\x7e]{1,255}$/.test(given)) {
      throw rgError('IDEMPOTENCY_KEY_INVALID');
    }
    const scope = opts.scope?.(request);
    // A scoped key is stored with its scope: reused on another endpoint it is another request, never a replay.
    const key = scope === undefined ? given : `${scope} ${given}`;
    const accountId = request.account.id;
    // "The same request": the scope (one endpoint however it is spelled) or the method and path, and the body.
    const target = scope ?? `${request.method} ${request.url.split('?')[0]}`;
    const hash = sha256Hex(`${target}\n${canonical(opts.bodyOf ? opts.bodyOf(request) : request.body)}`);
    const now = clock.now();
    // A key not seen yet (or expired: the claim takes it over) is the common case, and one write: the entry is read
    // only when the claim finds the key taken.
    if (await store.writeOne((r) => r.idempotency.claim(accountId, key, hash, now, IDEMPOTENCY_TTL_MS))) {
      request.idempotencyKey = key;
      return;
    }
    const existing = await store.idempotency.get(accountId, key);
    // Gone between the claim and the read: its request just released it (nothing ran); the client's retry claims it.
    if (!existing || existing.expiresAt <= now) throw inProgress(given);
    if (existing.requestHash !== hash) {
      throw rgError('IDEMPOTENCY_KEY_REUSED', { key: given });
    }
    const stale = existing.createdAt <= now - staleClaimMs;
    if (existing.statusCode === null && !stale) throw inProgress(given);
    if (existing.operationSeq !== null && (existing.statusCode === null || existing.statusCode >= 500 || existing.statusCode === 202)) {
      // A follow-up bound to its operation before its gateway call, whose request died, whose outcome was not
      // known when answered, or that was answered pending (202, a refund in process): this request runs again and
      // settles THAT operation (docs/charges.md, "Follow-up idempotency"); the follow-up finds it by the key and
      // never starts another.
      if (!await store.writeOne((r) => r.idempotency.reopenOperation(accountId, key, hash, now, now - staleClaimMs))) throw inProgress(given);
      request.idempotencyKey = key;
      return;
    }
    if (existing.statusCode === null && !existing.chargeId) {
      // The first request died before it created a charge: nothing can have been charged, so this one runs.
      if (!await store.writeOne((r) => r.idempotency.takeOverStale(accountId, key, hash, now, now - staleClaimMs))) throw inProgress(given);
      request.idempotencyKey = key;
      return;
    }
    request.idempotentReplay = true;
    // Unsettled when answered (504 "being confirmed"), or never answered: answer what the charge is now.
    if (existing.chargeId && opts.answerFromCharge && (existing.statusCode === null || existing.statusCode === 504)) {
      const answer = await opts.answerFromCharge(request, existing.chargeId);
      if (answer) {
        if (answer.settled) await store.writeOne((r) => r.idempotency.complete(accountId, key, answer.status, answer.headers, answer.body));
        return replay(reply, answer);
      }
    }
    return replay(reply, { status: existing.statusCode ?? 504, headers: existing.headers, body: existing.body });
  });

  app.addHook('onError', async (request, _reply, error) => {
    if (request.idempotencyKey && error instanceof RouteGateError && error.key !== undefined && RAN_NOTHING.has(error.key)) request.idempotencyRelease = true;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (!key || request.idempotentReplay) return payload;
    if (request.idempotencyRelease) {
      await store.writeOne((r) => r.idempotency.release(request.account.id, key));
      return payload;
    }
    // RouteGate's own 500 frees the key for a retry, unless a charge exists (X-RG-Charge-Id): then a gateway may
    // have charged, and a retry under the same key must get this answer back, not a second charge.
    const chargeId = reply.getHeader('x-rg-charge-id');
    if (reply.statusCode === 500 && (chargeId === undefined || chargeId === 'none')) {
      await store.writeOne((r) => r.idempotency.release(request.account.id, key));
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (REPLAYED_HEADERS.test(name) && value !== undefined) headers[name] = String(value);
    }
    await store.writeOne((r) => r.idempotency.complete(request.account.id, key, reply.statusCode, headers, typeof payload === 'string' ? payload : String(payload)));
    return payload;
  });
}
