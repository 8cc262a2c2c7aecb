import { randomId } from '../../sandbox/core';
import { type Params, type Json, invalid, int, rejectUnknown } from './emulator-wire';

// Connect destination charges for the emulator (stripe.md section 9): transfer_data[destination] (acct_...) with
// either application_fee_amount (kept by the platform) or transfer_data[amount] (sent to the connected account),
// never both, neither above the charge amount; and their refunds (reverse_transfer, refund_application_fee),
// which only a destination charge can take.

const ACCOUNT = /^acct_[A-Za-z0-9]{1,64}$/;

/** The PaymentIntent's Connect fields from a create, checked as Stripe checks them. */
export function destinationOf(p: Params, amount: number): Pick<Json, 'transfer_data' | 'application_fee_amount'> {
  const fee = int(p, 'application_fee_amount');
  if (p.transfer_data === undefined || p.transfer_data === '') {
    if (fee !== undefined) {
      throw invalid('Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).', { param: 'application_fee_amount' });
    }
    return { transfer_data: null, application_fee_amount: null };
  }
  const t = p.transfer_data as Params;
  if (typeof t !== 'object' || Array.isArray(t)) throw invalid('Invalid object', { param: 'transfer_data' });
  rejectUnknown(t, ['destination', 'amount']);
  if (!t.destination) throw invalid('Missing required param: transfer_data[destination].', { code: 'parameter_missing', param: 'transfer_data[destination]' });
  if (!ACCOUNT.test(String(t.destination))) {
    throw invalid(`No such destination: '${String(t.destination)}'`, { code: 'resource_missing', param: 'transfer_data[destination]' });
  }
  const transferAmount = int(t, 'amount');
  if (fee !== undefined && transferAmount !== undefined) {
    throw invalid('You may only specify one of these parameters: application_fee_amount, transfer_data[amount].', { param: 'application_fee_amount' });
  }
  if (fee !== undefined && (fee < 0 || fee > amount)) {
    throw invalid(`The application fee (${fee}) must be between 0 and the amount of the PaymentIntent (${amount}).`, { param: 'application_fee_amount' });
  }
  if (transferAmount !== undefined && (transferAmount < 0 || transferAmount > amount)) {
    throw invalid(`transfer_data[amount] (${transferAmount}) must be between 0 and the amount of the PaymentIntent (${amount}).`, { param: 'transfer_data[amount]' });
  }
  return {
    transfer_data: { destination: String(t.destination), ...(transferAmount !== undefined ? { amount: transferAmount } : {}) },
    application_fee_amount: fee ?? null,
  };
}

/** A refund's reversal of the transfer and the fee; refused on a charge that has neither. */
export function reversalOf(p: Params, pi: Json, chargeId: string): Pick<Json, 'transfer_reversal'> {
  const reverse = p.reverse_transfer === 'true';
  const refundFee = p.refund_application_fee === 'true';
  if (reverse && !pi.transfer_data) {
    throw invalid(`The charge ${chargeId} has no transfer to reverse: reverse_transfer is only for destination charges.`, { param: 'reverse_transfer' });
  }
  if (refundFee && pi.application_fee_amount == null) {
    throw invalid(`The charge ${chargeId} has no application fee to refund.`, { param: 'refund_application_fee' });
  }
  return { transfer_reversal: reverse ? randomId('trr_', 24) : null };
}
