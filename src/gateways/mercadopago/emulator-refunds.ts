import type { FastifyRequest } from 'fastify';
import { toCents as cents, toReais as reais, brasiliaIso as mpDate, type EmulatorCore, type Json, type Outcome } from '../../sandbox/core';
import { badRequest, setStatus, stateError } from './emulator-shapes';

// Mercado Pago refunds (shared/gateways/mercadopago.md section 3): POST /v1/payments/{id}/refunds, and the refunds MP
// holds in process (a pix refund in contingency) that POST /__control/refund-outcomes asks for and
// POST /__control/refunds/settle ends (docs/emulators.md, "Refund outcomes").

/** Whether the request asked for refunds in process to be shown as such (MP's X-Render-In-Process-Refunds). */
export const rendersInProcess = (request: FastifyRequest): boolean => String(request.headers['x-render-in-process-refunds'] ?? '').toLowerCase() === 'true';

export function mercadopagoRefunds(
  core: EmulatorCore, payments: Map<string, Json>, changed: (id: string) => void,
): { refundPayment(payment: Json, body: Json, showInProcess: boolean): Outcome } {
  let nextRefundId = 3_328_707_000 + Math.floor(Math.random() * 10_000);

  /** Partial refunds keep `approved` (status_detail partially_refunded); reaching the total turns `refunded`. */
  function countRefund(payment: Json, amount: number): void {
    const total = cents(payment.transaction_amount);
    const refunded = cents(payment.transaction_amount_refunded) + amount;
    payment.transaction_amount_refunded = reais(refunded);
    if (refunded >= total) setStatus(payment, 'refunded', 'refunded');
    else setStatus(payment, 'approved', 'partially_refunded');
  }

  /**
   * A refund held in process (POST /__control/refund-outcomes in_process) is created with status in_process and not
   * counted yet; MP answers it 201 only to a request with X-Render-In-Process-Refunds: true, else 400 (the refund
   * stays in process all the same: mercadopago.md section 3, MP's pix refund guide).
   */
  function refundPayment(payment: Json, body: Json, showInProcess: boolean): Outcome {
    const total = cents(payment.transaction_amount);
    const held = payment.refunds.filter((r: Json) => r.status === 'in_process').reduce((sum: number, r: Json) => sum + cents(r.amount), 0);
    const remaining = total - cents(payment.transaction_amount_refunded) - held;
    if (payment.status !== 'approved' || remaining <= 0) return stateError();
    let amount = remaining;
    if (body.amount !== undefined && body.amount !== null) {
      if (typeof body.amount !== 'number' || cents(body.amount) <= 0 || cents(body.amount) > remaining) return badRequest(2017, 'Invalid transaction_amount for update');
      amount = cents(body.amount);
    }
    const refund = {
      id: nextRefundId++, payment_id: payment.id, amount: reais(amount), metadata: body.metadata ?? {},
      source: { id: '1234567890', name: 'Loja Sandbox', type: 'collector' }, date_created: mpDate(), unique_sequence_number: null,
      refund_mode: 'standard', adjustment_amount: 0, status: 'approved', reason: null, amount_refunded_to_payer: reais(amount),
    };
    payment.refunds.push(refund);
    if (core.control.takeRefundOutcome('mercadopago', 'in_process')) {
      refund.status = 'in_process';
      payment.date_last_updated = mpDate();
      // MP's default answer for a refund in process; its cause code is not documented (2085 is the emulator's).
      if (!showInProcess) return badRequest(2085, 'The refund is in process');
      return { status: 201, body: refund };
    }
    countRefund(payment, amount);
    return { status: 201, body: refund };
  }

  // POST /__control/refunds/settle: MP ends the refunds it held in process (approved: counted now; rejected: the
  // money stays with the seller) and notifies payment.updated, as for any change of the payment.
  core.control.onRefundSettle('mercadopago', (id, outcome) => {
    const payment = payments.get(id);
    if (!payment) return { ok: false, status: 404, message: `mercadopago has no payment ${id}` };
    const held = payment.refunds.filter((r: Json) => r.status === 'in_process');
    for (const refund of held) {
      refund.status = outcome;
      if (outcome === 'approved') countRefund(payment, cents(refund.amount));
      else payment.date_last_updated = mpDate();
    }
    if (held.length) changed(String(payment.id));
    return { ok: true, settled: held.length };
  });

  return { refundPayment };
}
