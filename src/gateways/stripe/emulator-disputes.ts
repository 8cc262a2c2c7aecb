import { randomId, unixNow, type DisputeOutcome, type Json } from '../../sandbox/core';
import { StripeError, invalid, noSuch } from './emulator-wire';
import type { State } from './emulator-payment-methods';

// Stripe disputes (stripe.com/docs/api/disputes): the cardholder's bank disputes a succeeded charge; Stripe marks the
// Charge `disputed: true`, creates a Dispute {id dp_..., amount, charge, payment_intent, reason, status, created} and
// sends charge.dispute.created (and charge.dispute.funds_withdrawn: the amount leaves the balance at once). Settled,
// the Dispute's status is won or lost and charge.dispute.closed follows (a won one also funds_reinstated). The
// emulator keeps each Dispute in `disputes` by its PaymentIntent, which is what RouteGate holds as the charge's id.

const STATUS_OPEN = 'needs_response';

const answer = (dispute: Json): DisputeOutcome => ({ ok: true, dispute });
const refused = (err: StripeError): DisputeOutcome => ({ ok: false, status: err.status, body: err.body });

/** The PaymentIntent's succeeded, captured charge, or the error Stripe answers for a charge that cannot be disputed. */
function disputableCharge(s: State, id: string): Json | StripeError {
  const pi = s.intents.get(id);
  if (!pi) return noSuch('payment_intent', id);
  const ch = pi.latest_charge ? s.charges.get(pi.latest_charge) : undefined;
  if (pi.status !== 'succeeded' || !ch?.captured) {
    return invalid(`This PaymentIntent (${id}) has no succeeded charge to dispute: its status is ${pi.status}.`, { code: 'charge_not_disputable' });
  }
  return ch;
}

export function openDispute(s: State, id: string, amount?: number): DisputeOutcome {
  const ch = disputableCharge(s, id);
  if (ch instanceof StripeError) return refused(ch);
  if (s.disputes.has(id)) return refused(invalid(`Charge ${ch.id} has already been disputed.`, { code: 'charge_already_disputed' }));
  const disputable = ch.amount_captured - ch.amount_refunded;
  if (amount !== undefined && amount > disputable) {
    return refused(invalid(`The disputed amount (${amount}) exceeds what charge ${ch.id} holds (${disputable}).`, { code: 'amount_too_large', param: 'amount' }));
  }
  const created = unixNow();
  const dispute: Json = {
    id: randomId('dp_1', 23), object: 'dispute', amount: amount ?? disputable, balance_transactions: [], charge: ch.id, created, currency: ch.currency,
    evidence: {}, evidence_details: { due_by: created + 21 * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false, livemode: ch.livemode, metadata: {}, payment_intent: id, reason: 'fraudulent', status: STATUS_OPEN,
  };
  s.disputes.set(id, dispute);
  ch.disputed = true;
  return answer(dispute);
}

export function closeDispute(s: State, id: string, outcome: 'won' | 'lost'): DisputeOutcome {
  const dispute = s.disputes.get(id);
  if (!dispute) return refused(noSuch('dispute', id));
  if (dispute.status === 'won' || dispute.status === 'lost') {
    return refused(invalid(`This dispute is already closed: ${dispute.status}.`, { code: 'dispute_already_closed' }));
  }
  dispute.status = outcome;
  return answer(dispute);
}

/** GET /v1/disputes/:id. */
export function findDispute(s: State, id: string): Json {
  const dispute = [...s.disputes.values()].find((d) => d.id === id);
  if (!dispute) throw noSuch('dispute', id);
  return dispute;
}
