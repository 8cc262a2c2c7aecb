import { GatewayFailure, type CallContext, type ChargeOutcome, type GatewayAdapter, type NormalizedCharge, type PaymentMethod } from '../gateways/types';

/**
 * What an unknown create outcome turned out to be, found at the same gateway before any fallback
 * (DESIGN.md's fallback rule, docs/charges.md "Proof of absence").
 */
export type Settlement =
  | { kind: 'charged'; outcome: ChargeOutcome; via: 'replay' | 'lookup' }
  | { kind: 'declined'; failure: GatewayFailure; via: 'replay' | 'lookup' }
  | { kind: 'absent'; proof: string }
  | { kind: 'unknown'; reason: string };

/** When the create being settled last left RouteGate, and how to record that it leaves again (a same-key replay). */
export interface SendClock {
  /** ms since the epoch. */
  lastSentAt(): number;
  /** Called right before a replay leaves: the horizon then counts from the replay. */
  beforeReplay(): Promise<void>;
  /** ROUTEGATE_SETTLE_HORIZON_MS. */
  horizonMs: number;
}

/** An outcome that proves nothing about whether the gateway acted: settle it before anything else. */
export function isAmbiguous(err: unknown): err is GatewayFailure {
  return err instanceof GatewayFailure && err.info.ambiguous === true;
}

const isDecline = (err: unknown): err is GatewayFailure => err instanceof GatewayFailure && err.kind === 'decline';

/**
 * The gateway answered the replay and refused it: the key holds no charge and the request cannot make one.
 * A 409 is not a refusal: it says the first request is still running there.
 */
function isRefusal(err: unknown): err is GatewayFailure {
  if (!(err instanceof GatewayFailure) || err.info.ambiguous || err.info.status === 409) return false;
  return err.kind === 'invalid_request' || err.kind === 'auth' || err.kind === 'not_found' || err.kind === 'unsupported';
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Settle an ambiguous create at the gateway that got it. Where the gateway keeps idempotency keys and the request is
 * at hand (`charge`), the create is replayed with the same key (`ctx` carries it): the gateway answers the first
 * result or makes the one charge. Then, or where it keeps none, the charge is looked up by the reference RouteGate
 * sent. Proof of absence is strict: the gateway refusing the replay outright, or a consistent lookup answering "none"
 * when the settle horizon has passed since the create last left RouteGate. A "none" sooner proves nothing: a gateway
 * that held the request (slow, queued) may still act on it.
 */
export async function settleAmbiguousCreate(
  adapter: GatewayAdapter, ctx: CallContext, paymentMethod: PaymentMethod, charge: NormalizedCharge | undefined, clock: SendClock,
  opts: { refusalProves?: boolean } = {},
): Promise<Settlement> {
  let reason = `${adapter.id} did not confirm the outcome`;
  if (adapter.keepsIdempotencyKeys && charge) {
    try {
      await clock.beforeReplay();
      return { kind: 'charged', outcome: await adapter.createCharge(ctx, charge), via: 'replay' };
    } catch (err) {
      if (isDecline(err)) return { kind: 'declined', failure: err, via: 'replay' };
      // A refusal proves absence only for the very request first sent; a request rebuilt later (a client's retry) may
      // differ in what the gateway compares, and a gateway refuses a key reused with other parameters.
      if (isRefusal(err) && opts.refusalProves !== false) {
        return { kind: 'absent', proof: `${adapter.id} refused the replay under the same idempotency key (${err.info.status ?? err.kind}): ${err.message}` };
      }
      if (err instanceof GatewayFailure && err.info.status === 409) {
        // The first request is still running at the gateway: a lookup saying "none" now would prove nothing.
        return { kind: 'unknown', reason: `${adapter.id} is still processing the first request` };
      }
      reason = `the replay at ${adapter.id} failed too (${errorText(err)})`;
    }
  }
  if (adapter.lookupCharge) {
    const lookedAt = Date.now();
    try {
      const found = await adapter.lookupCharge(ctx, ctx.chargeId, paymentMethod);
      if (found) return { kind: 'charged', outcome: found, via: 'lookup' };
      const since = lookedAt - clock.lastSentAt();
      if (adapter.lookupProvesAbsence && since >= clock.horizonMs) {
        return { kind: 'absent', proof: `${adapter.id} has no charge with reference ${ctx.chargeId} ${Math.round(since / 1000)} s after it was last sent (settle horizon ${Math.round(clock.horizonMs / 1000)} s)` };
      }
      reason = adapter.lookupProvesAbsence
        ? `${adapter.id} lists no charge with reference ${ctx.chargeId} yet, which proves nothing until ${new Date(clock.lastSentAt() + clock.horizonMs).toISOString()} (the settle horizon after its last send)`
        : `${adapter.id}'s search does not list ${ctx.chargeId} yet, which proves nothing`;
    } catch (err) {
      if (isDecline(err)) return { kind: 'declined', failure: err, via: 'lookup' };
      reason = `${reason}; the lookup failed (${errorText(err)})`;
    }
  } else if (!(adapter.keepsIdempotencyKeys && charge)) {
    reason = `${reason}; ${adapter.id} offers no lookup by reference: a retry with the same Idempotency-Key and body replays the create under its key`;
  }
  return { kind: 'unknown', reason };
}
