import { toCents as cents, toReais as reais, type Json, type Outcome } from '../../sandbox/core';
import { badRequest, mpError } from './emulator-shapes';
import { MP_ISSUER_RATES, halfUp, issuerOf } from './emulator-rates';

/**
 * GET /v1/payment_methods/installments (Mercado Pago's "get installments"): for an amount (reais) and a card's bin,
 * the card's payment method, its issuer and the issuer's `payer_costs`. The real rates are each issuer's and the
 * seller's; the emulator's are a fixed table per issuer (below), so a test can compute every plan to the cent.
 * `installment_rate` is the percent the buyer pays over the amount for the whole plan (0: interest-free);
 * `total_amount` = amount x (1 + rate / 100) and `installment_amount` = total / count, each rounded half up to
 * the cent.
 */

/** The card brand (payment_method_id) of a bin, as Mercado Pago names it; undefined: no card it knows. */
export function mpMethodOfBin(bin: string): string | undefined {
  if (/^3[47]/.test(bin)) return 'amex';
  if (/^(4011|4389|4514|5041|5067|6277|6363|6504|6505|6516)/.test(bin)) return 'elo';
  if (/^4/.test(bin)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(bin)) return 'master';
  return undefined;
}

const brl = (c: number) => `R$ ${(c / 100).toFixed(2).replace('.', ',').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;

export function installmentsAnswer(query: Json): Outcome {
  const amount = Number(query.amount);
  if (query.amount === undefined || query.amount === '') return badRequest(2, 'amount is required');
  if (!Number.isFinite(amount) || amount <= 0) return badRequest(2, 'amount must be a positive number');
  const bin = query.bin === undefined ? undefined : String(query.bin);
  if (bin !== undefined && !/^[0-9]{6,8}$/.test(bin)) return badRequest(2, 'bin must have 6 to 8 digits');
  const methodId = query.payment_method_id === undefined ? (bin && mpMethodOfBin(bin)) : String(query.payment_method_id);
  if (bin === undefined && methodId === undefined) return mpError(400, 'bad_request', 'bin or payment_method_id is required', [[2, 'bin or payment_method_id is required']]);
  // An unknown card (or a brand that is not that card's) has no payment method: Mercado Pago answers an empty list.
  if (!methodId || (bin !== undefined && mpMethodOfBin(bin) !== methodId)) return { status: 200, body: [] };
  const issuer = bin !== undefined ? issuerOf(bin) : MP_ISSUER_RATES.even;
  const amountCents = BigInt(cents(amount));
  const payerCosts = issuer.rates.map((rate, i) => {
    const installments = i + 1;
    const total = halfUp(amountCents * BigInt(10_000 + Math.round(rate * 100)), 10_000n);
    const each = Number(halfUp(total, BigInt(installments)));
    const free = rate === 0;
    return {
      installments, installment_rate: rate, discount_rate: 0, reimbursement_rate: null,
      labels: free ? ['CFT_0,00%|TEA_0,00%'] : [`CFT_${rate.toFixed(2).replace('.', ',')}%`],
      installment_rate_collector: free ? ['THIRD_PARTY'] : [], min_allowed_amount: 0.5, max_allowed_amount: 60_000,
      recommended_message: `${installments} parcela${installments > 1 ? 's' : ''} de ${brl(each)}${free ? ' sem juros' : ` (${brl(Number(total))})`}`,
      installment_amount: reais(each), total_amount: reais(Number(total)), payment_method_option_id: `emulated-${issuer.id}-${installments}`,
    };
  });
  return {
    status: 200,
    body: [{
      payment_method_id: methodId, payment_type_id: 'credit_card', thumbnail: null, secure_thumbnail: null, processing_mode: 'aggregator', merchant_account_id: null,
      issuer: { id: issuer.id, name: issuer.name, secure_thumbnail: null, thumbnail: null }, payer_costs: payerCosts, agreements: null,
    }],
  };
}
