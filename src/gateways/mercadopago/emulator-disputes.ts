import type { DisputeOutcome, Disputer, Json, Outcome } from '../../sandbox/core';
import { notFound, setStatus, stateError } from './emulator-shapes';

// Mercado Pago chargebacks (shared/gateways/mercadopago.md section 6): the payment's own status says it. A chargeback
// on an approved card payment turns it `charged_back` with status_detail `in_process` (being disputed); settled, the
// detail is `settled` (the money went back to the payer: lost) or `reimbursed` (the money came back to the seller:
// won). Each change is a payment.updated notification, like every other change of the payment. The payment names no
// disputed amount: a chargeback is on the whole payment here, so `amount` is not used.

const refused = (o: Outcome): DisputeOutcome => ({ ok: false, status: o.status, body: o.body });

export function mercadopagoDisputes(payments: Map<string, Json>, changed: (id: string) => void): Disputer {
  return {
    open(id) {
      const p = payments.get(id);
      if (!p) return refused(notFound('Payment'));
      if (p.status !== 'approved' || !['credit_card', 'debit_card', 'prepaid_card'].includes(p.payment_type_id)) {
        return refused(stateError());
      }
      setStatus(p, 'charged_back', 'in_process');
      changed(id);
      return { ok: true, dispute: p };
    },
    close(id, outcome) {
      const p = payments.get(id);
      if (!p) return refused(notFound('Payment'));
      if (p.status !== 'charged_back' || p.status_detail !== 'in_process') {
        return refused(stateError());
      }
      setStatus(p, 'charged_back', outcome === 'won' ? 'reimbursed' : 'settled');
      changed(id);
      return { ok: true, dispute: p };
    },
  };
}
