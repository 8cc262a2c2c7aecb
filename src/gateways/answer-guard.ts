import { rgError } from '../errors';
import { reportedCents } from '../mapping/amount-guard';
import type { GatewayDescriptor } from './descriptor';
import type { ChargeOutcome, GatewayAdapter } from './types';

const ANSWERED = new WeakMap<Error, ChargeOutcome>();

/**
 * The gateway's answer behind a GATEWAY_AMOUNT_MISMATCH: a payment exists at the gateway for another amount, which
 * the create treats as an orphan of its charge (recorded, announced, undone by the account's orphanPolicy).
 */
export function answeredWithWrongAmount(err: unknown): ChargeOutcome | undefined {
  return err instanceof Error ? ANSWERED.get(err) : undefined;
}

/**
 * The money guard's second half: after a create, the amount the gateway reports having taken (read from its answer
 * where the descriptor declares it, so no mapping edit hides it) must be the amount asked. Otherwise the charge is
 * never reported approved: the attempt fails with GATEWAY_AMOUNT_MISMATCH naming both amounts and the gateway's id,
 * for an operator to settle at the gateway.
 */
export function withAnswerGuard(descriptor: GatewayDescriptor): GatewayAdapter {
  const inner = descriptor.adapter;
  return {
    ...inner,
    async createCharge(ctx, charge) {
      const outcome = await inner.createCharge(ctx, charge);
      const reported = reportedCents(descriptor.amounts, outcome.raw, ctx.wire);
      if (reported === undefined) return outcome;
      const normalized = outcome.normalized.amount;
      if (reported !== charge.amount || normalized !== charge.amount) {
        const err = rgError('GATEWAY_AMOUNT_MISMATCH', {
          gateway: descriptor.id, reported: reported !== charge.amount ? reported : normalized, asked: charge.amount, externalId: outcome.normalized.externalId,
        }, { gateway: descriptor.id, details: { reportedAmount: reported, normalizedAmount: normalized, askedAmount: charge.amount, externalId: outcome.normalized.externalId } });
        ANSWERED.set(err, outcome);
        throw err;
      }
      return outcome;
    },
  };
}
