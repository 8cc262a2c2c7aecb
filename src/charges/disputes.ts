import type { ChargeDispute, ChargeRecord, ChargePatch, DisputeStatus } from '../store/charges';

export type { ChargeDispute, DisputeStatus } from '../store/charges';

// A chargeback is never a refund (DESIGN.md "Disputes"): a dispute has its own lifecycle on the charge, and
// refundedAmount never moves with it. docs/charges.md, "Disputes", is the contract this module keeps.


/** What a gateway said of a dispute: from a verified event or from its answer to RouteGate's own read. */
export interface DisputeFact {
  status: DisputeStatus;
  amount?: number;
  reason?: string | null;
  openedAt?: string;
  /**
   * The outcome is told only of a dispute already open: the gateway's status after a won dispute is also its status
   * of a plain paid payment, so on a charge with no open dispute it says nothing (src/webhooks/event-checks.ts).
   */
  settlesOpen?: boolean;
}

/** The charge's status for a settled dispute; a won one takes the charge back to what it was. */
function statusAfter(current: Pick<ChargeRecord, 'status'>, dispute: ChargeDispute): string {
  if (dispute.status === 'open') return 'disputed';
  if (dispute.status === 'lost') return 'charged_back';
  return current.status === 'disputed' || current.status === 'charged_back' ? dispute.priorStatus ?? 'approved' : current.status;
}

/**
 * The columns a dispute fact changes on the charge as read under its lock; empty when it says nothing new. A
 * dispute only moves forward: none -> open -> won | lost (a settled dispute is never reopened by a late or repeated
 * notification). A fact naming a dispute RouteGate never saw open records it as opened now, already settled.
 */
export function disputePatch(
  current: Pick<ChargeRecord, 'status' | 'amount' | 'paidAmount' | 'dispute'>, fact: DisputeFact, now: string,
): ChargePatch {
  const was = current.dispute ?? null;
  if (was && was.status !== 'open') return {};
  if (was && fact.status === 'open') {
    // The same open dispute told again: only what the first telling lacked is filled in.
    const reason = was.reason ?? fact.reason ?? null;
    return reason === was.reason ? {} : { dispute: { ...was, reason } };
  }
  const amount = Number.isInteger(fact.amount) && fact.amount! > 0 ? fact.amount! : was?.amount ?? (current.paidAmount || current.amount);
  const dispute: ChargeDispute = {
    status: fact.status,
    amount,
    reason: fact.reason ?? was?.reason ?? null,
    openedAt: was?.openedAt ?? fact.openedAt ?? now,
    priorStatus: was?.priorStatus ?? (current.status === 'disputed' || current.status === 'charged_back' ? 'approved' : current.status),
  };
  const status = statusAfter(current, dispute);
  return status === current.status ? { dispute } : { dispute, status };
}

/** The dispute as the API, events and the dashboard show it (without what is kept only to settle it). */
export function publicDispute(d: ChargeDispute): { status: DisputeStatus; amount: number; reason: string | null; openedAt: string } {
  return { status: d.status, amount: d.amount, reason: d.reason, openedAt: d.openedAt };
}
