import { GatewayFailure, type CallContext, type ChargeOutcome, type GatewayAdapter, type NormalizedCharge } from '../gateways/types';

/**
 * What an unknown create outcome turned out to be, found at the same gateway before any fallback
 * (DESIGN.md's fallback rule, docs/charges.md "What happens when a gateway does not answer").
 */
export type Settlement =
  | { kind: 'charged'; outcome: ChargeOutcome; via: 'replay' | 'lookup' }
  | { kind: 'declined'; failure: GatewayFailure; via: 'replay' | 'lookup' }
  | { kind: 'absent'; proof: string }
  | { kind: 'unknown'; reason: string };

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

/**
 * Settle an ambiguous create at the gateway that got it. Where the gateway keeps idempotency keys, the create is
 * replayed with the same key (`ctx` carries it): the gateway answers the first result or makes the one charge.
 * Then, or where it keeps none, the charge is looked up by the reference RouteGate sent. Only a consistent
 * lookup answering "none", or the gateway refusing the replay outright, proves the charge absent.
 */
export async function settleAmbiguousCreate(adapter: GatewayAdapter, ctx: CallContext, charge: NormalizedCharge): Promise<Settlement> {
  let reason = `${adapter.id} did not confirm the outcome`;
  if (adapter.keepsIdempotencyKeys) {
    try {
      return { kind: 'charged', outcome: await adapter.createCharge(ctx, charge), via: 'replay' };
    } catch (err) {
      if (isDecline(err)) return { kind: 'declined', failure: err, via: 'replay' };
      if (isRefusal(err)) {
        return { kind: 'absent', proof: `${adapter.id} refused the replay under the same idempotency key (${err.info.status ?? err.kind}): ${err.message}` };
      }
      if (err instanceof GatewayFailure && err.info.status === 409) {
        // The first request is still running at the gateway: a lookup saying "none" now would prove nothing.
        return { kind: 'unknown', reason: `${adapter.id} is still processing the first request` };
      }
      reason = `the replay at ${adapter.id} failed too (${err instanceof Error ? err.message : String(err)})`;
    }
  }
  if (adapter.lookupCharge) {
    try {
      const found = await adapter.lookupCharge(ctx, ctx.chargeId, charge.paymentMethod);
      if (found) return { kind: 'charged', outcome: found, via: 'lookup' };
      if (adapter.lookupProvesAbsence) return { kind: 'absent', proof: `${adapter.id} has no charge with reference ${ctx.chargeId}` };
      reason = `${adapter.id}'s search does not list ${ctx.chargeId} yet, which proves nothing`;
    } catch (err) {
      if (isDecline(err)) return { kind: 'declined', failure: err, via: 'lookup' };
      reason = `${reason}; the lookup failed (${err instanceof Error ? err.message : String(err)})`;
    }
  }
  return { kind: 'unknown', reason };
}
