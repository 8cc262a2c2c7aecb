import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { send, type Outcome } from './outcome';

/**
 * One gateway's documented idempotency semantics (shared/gateways/<id>.md section 1). Every gateway replays
 * the first answer for a key; they differ in the header, what a key is scoped to, which answers are kept,
 * whether a reused key must carry the same request, and how a replay is marked.
 */
export interface IdempotencyPolicy<F = never> {
  /** The header, lower-case (`idempotency-key`, `x-idempotency-key`). */
  header: string;
  /** The methods on which the header means anything (e.g. POST only); all when absent. */
  methods?: readonly string[];
  /** The store's slot for a key: what the key is scoped to (the account, the endpoint, or the key alone). */
  slot(request: FastifyRequest, key: string): string;
  /** Which answers are kept under the key (e.g. results only, or also declines and 5xx). */
  stores(status: number): boolean;
  /** What must be the same when a key is reused (body fingerprint); absent = key-only, any body replays. */
  fingerprint?(request: FastifyRequest): F;
  /** The answer to a reused key whose request differs from the first, or undefined to replay. */
  conflict?(first: F, now: F, key: string): Outcome | undefined;
  /** Keep a deep copy of the body as it was answered, not the live object that later calls mutate. */
  snapshot?: boolean;
  /** Headers added to a replayed answer (e.g. `idempotent-replayed: true`). */
  replayHeaders?: Readonly<Record<string, string>>;
}

/** Per-route variations of the policy. */
export interface RouteIdempotency {
  /** The key is required on this route: answered when it is missing, before any validation. */
  required?: Outcome;
  /** How a replay on this route answers, from the stored answer (e.g. a refund replayed as 200 with no body). */
  replay?(stored: Outcome): Outcome;
}

export interface Idempotency {
  /** Run `answer` once per key and replay its outcome; without a key, just run it. */
  run(request: FastifyRequest, reply: FastifyReply, answer: () => Outcome, route?: RouteIdempotency): FastifyReply;
  /** The stored answers, for the emulator's state (emptied by the control's reset). */
  readonly store: Map<string, Stored<unknown>>;
}

interface Stored<F> extends Outcome {
  fingerprint?: F;
}

export function createIdempotency<F = never>(policy: IdempotencyPolicy<F>): Idempotency {
  const store = new Map<string, Stored<F>>();
  const keyOf = (request: FastifyRequest): string | undefined => {
    if (policy.methods && !policy.methods.includes(request.method)) return undefined;
    const raw = request.headers[policy.header];
    return typeof raw === 'string' && raw !== '' ? raw : undefined;
  };
  return {
    store: store as Map<string, Stored<unknown>>,
    run(request, reply, answer, route = {}) {
      const key = keyOf(request);
      if (key === undefined) return send(reply, route.required ?? answer());
      const slot = policy.slot(request, key);
      const fingerprint = policy.fingerprint?.(request);
      const seen = store.get(slot);
      if (seen) {
        const conflict = policy.conflict?.(seen.fingerprint as F, fingerprint as F, key);
        if (conflict) return send(reply, conflict);
        return send(reply, route.replay ? route.replay(seen) : seen, policy.replayHeaders);
      }
      const out = answer();
      if (policy.stores(out.status)) {
        store.set(slot, { ...out, body: policy.snapshot ? JSON.parse(JSON.stringify(out.body)) : out.body, fingerprint });
      }
      return send(reply, out);
    },
  };
}

/** The request as a gateway that compares bodies sees it: method, URL and raw body, hashed. */
export function requestFingerprint(request: FastifyRequest): string {
  return createHash('sha256').update(`${request.method} ${request.url} ${request.rawBody ?? ''}`).digest('hex');
}
