import { rgError, type RouteGateError } from '../errors';
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
 * The same check for a create's outcome that reached RouteGate another way than the create's own answer (a lookup or
 * a notification after the answer was lost): the error when the payment found is for another amount than asked.
 */
export function wrongAmountError(gateway: string, asked: number, found: ChargeOutcome): RouteGateError | undefined {
  const reported = found.normalized.amount;
  if (!Number.isInteger(reported) || reported === asked) return undefined;
  const externalId = found.normalized.externalId;
  const err = rgError('GATEWAY_AMOUNT_MISMATCH', { gateway, reported, asked, externalId }, { gateway, details: { reportedAmount: reported, askedAmount: asked, externalId } });
  ANSWERED.set(err, found);
  return err;
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
