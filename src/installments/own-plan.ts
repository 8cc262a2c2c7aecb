import type { NormalizedCharge, NormalizedChargeResult } from '../gateways/types';
import type { InstallmentPlan } from './price-table';

/**
 * The plan a charge holds once the quoting gateway charged it as its own (the attempt carried `gatewayPlan`), or
 * undefined for any other attempt (its plan is the one decided before the first call). A gateway sent the price adds
 * its interest itself: the buyer's total and installment are the ones its answer states (NormalizedChargeResult's
 * `installments`), kept as they are even when they differ from the quote (money already moved: never sent again),
 * with the quoted total beside them so the difference shows.
 */
export function ownPlanCharged(plan: InstallmentPlan, sent: NormalizedCharge, gateway: string, answer: NormalizedChargeResult): InstallmentPlan | undefined {
  const own = sent.creditCard?.gatewayPlan;
  if (!own) return undefined;
  const charged: InstallmentPlan = { ...plan, financedBy: gateway };
  const stated = answer.installments;
  if (stated && typeof stated.totalAmount === 'number' && Number.isInteger(stated.totalAmount)) {
    charged.totalAmount = stated.totalAmount;
    if (typeof stated.installmentAmount === 'number' && Number.isInteger(stated.installmentAmount)) charged.installmentAmount = stated.installmentAmount;
  }
  if (charged.totalAmount !== plan.totalAmount) charged.quotedTotalAmount = plan.totalAmount;
  return charged;
}
