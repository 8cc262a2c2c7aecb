import type { DisputeOutcome, Disputer, Json, Outcome } from '../../sandbox/core';
import { fail, notFound } from './emulator-shapes';

// Asaas chargebacks (shared/gateways/asaas.md sections 6-7; docs.asaas.com "Chargeback"): a card payment charged back
// turns CHARGEBACK_REQUESTED with chargeback {status: REQUESTED, reason} and PAYMENT_CHARGEBACK_REQUESTED is sent. Won,
// it turns AWAITING_CHARGEBACK_REVERSAL (the acquirer returns the money; chargeback.status REVERSED) with
// PAYMENT_AWAITING_CHARGEBACK_REVERSAL. Lost, the payment keeps CHARGEBACK_REQUESTED, its chargeback.status turns
// DISPUTE_LOST and PAYMENT_UPDATED tells it. The payment names no disputed amount (its whole value): `amount` is not used.

const refused = (o: Outcome): DisputeOutcome => ({ ok: false, status: o.status, body: o.body });
const PAID = ['CONFIRMED', 'RECEIVED'];
const CARDS = ['CREDIT_CARD', 'DEBIT_CARD'];

export function asaasDisputes(payments: Map<string, Json>, changed: (id: string) => void): Disputer {
  return {
    open(id) {
      const p = payments.get(id);
      if (!p || p.deleted) return refused(notFound());
      if (!PAID.includes(p.status) || !CARDS.includes(p.billingType)) {
        return refused(fail(400, { code: 'invalid_action', description: `Não é possível registrar chargeback para uma cobrança com situação ${p.status}.` }));
      }
      p.status = 'CHARGEBACK_REQUESTED';
      p.chargeback = { status: 'REQUESTED', reason: 'ABSENT_CARD_FRAUD' };
      changed(id);
      return { ok: true, dispute: p };
    },
    close(id, outcome) {
      const p = payments.get(id);
      if (!p || p.deleted) return refused(notFound());
      if (p.status !== 'CHARGEBACK_REQUESTED' && p.status !== 'CHARGEBACK_DISPUTE') {
        return refused(fail(400, { code: 'invalid_action', description: `A cobrança não possui chargeback em aberto (situação ${p.status}).` }));
      }
      if (outcome === 'won') {
        p.status = 'AWAITING_CHARGEBACK_REVERSAL';
        p.chargeback = { ...p.chargeback, status: 'REVERSED' };
      } else {
        p.chargeback = { ...p.chargeback, status: 'DISPUTE_LOST' };
      }
      changed(id);
      return { ok: true, dispute: p };
    },
  };
}
