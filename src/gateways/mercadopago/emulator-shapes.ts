// Mercado Pago Payments API v1 shapes for the emulator (shared/gateways/mercadopago.md): error bodies, the
// payment as created and per method (card outcome, pix, boleto), card tokens. Routes and state are in ./emulator.ts.
import {
  cardBrand, declineAnswer, febrabanBoleto, pixBrCode, randomDigits, randomUuid, toCents as cents, toReais as reais, brasiliaIso as mpDate,
  DAY_MS, PNG_1X1_BASE64, type Json, type Outcome,
} from '../../sandbox/core';
import type { DeclineCode } from '../types';
import { payerCost } from './emulator-rates';

export interface StoredCard { number: string; expMonth: number; expYear: number; holderName: string; identification?: Json }

/** status_detail per normalized decline of the shared decline cards (the charge.response mapping reverses it). */
export const DECLINE_DETAILS: Record<DeclineCode, string> = {
  card_declined: 'cc_rejected_other_reason',
  insufficient_funds: 'cc_rejected_insufficient_amount',
  expired_card: 'cc_rejected_bad_filled_date',
  incorrect_cvc: 'cc_rejected_bad_filled_security_code',
  processing_error: 'cc_rejected_time_out',
};

/** Mercado Pago's own sandbox convention: the outcome is chosen by the cardholder name on the token. */
export const HOLDER_OUTCOMES: Record<string, [string, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CONT: ['in_process', 'pending_contingency'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
  CARD: ['rejected', 'cc_rejected_bad_filled_card_number'],
  INST: ['rejected', 'cc_rejected_invalid_installments'],
  DUPL: ['rejected', 'cc_rejected_duplicated_payment'],
  LOCK: ['rejected', 'cc_rejected_card_disabled'],
  CTNA: ['rejected', 'cc_rejected_card_type_not_allowed'],
  ATTE: ['rejected', 'cc_rejected_max_attempts'],
  BLAC: ['rejected', 'cc_rejected_blacklist'],
};

export const CARD_METHODS = new Set(['visa', 'master', 'amex', 'elo', 'hipercard', 'debvisa', 'debmaster', 'debelo']);
export const TICKET_METHODS = new Set(['bolbradesco', 'pec']);
export const BOLETO_ADDRESS = ['zip_code', 'street_name', 'street_number', 'neighborhood', 'city', 'federal_unit'];
const BRAND_METHOD: Record<string, string> = { visa: 'visa', mastercard: 'master', amex: 'amex', elo: 'elo', hipercard: 'hipercard' };
export const FEE_RATE = 0.0498;
export const SORTABLE = new Set(['date_approved', 'date_created', 'date_last_updated', 'id', 'money_release_date']);



export function mpError(status: number, error: string, message: string, cause: Array<[number | string, string]> = []): Outcome {
  return { status, body: { message, error, status, cause: cause.map(([code, description]) => ({ code, description, data: null })) } };
}
export const badRequest = (code: number | string, description: string) => mpError(400, 'bad_request', description, [[code, description]]);
export const stateError = () => badRequest(2063, 'The action requested is not valid for the current payment state');
export function notFound(what: 'Payment' | 'Customer' | 'Refund'): Outcome {
  const o = mpError(404, 'not_found', `${what} not found`);
  (o.body as Json).cause = [{ code: what === 'Payment' ? 2000 : what === 'Customer' ? 2002 : 2032, description: `${what} not found`, data: `${mpDate()};${randomUuid()}` }];
  return o;
}

/** The card token as POST /v1/card_tokens answers it. */
export function tokenBody(id: string, card: StoredCard, body: Json): Json {
  const { number, expMonth, expYear, holderName } = card;
  const created = Date.now();
  return {
    id, public_key: null, first_six_digits: number.slice(0, 6), last_four_digits: number.slice(-4), expiration_month: expMonth,
    expiration_year: expYear, card_number_length: number.length, security_code_length: String(body.security_code ?? '').length,
    cardholder: { name: holderName, identification: body.cardholder?.identification ?? {} }, status: 'active', luhn_validation: true,
    live_mode: false, require_esc: false, date_created: mpDate(created), date_last_updated: mpDate(created), date_due: mpDate(created + 7 * DAY_MS),
  };
}

/** A payment as created, pending, before its method's details. */
export function newPayment(id: number, body: Json, methodId: string, payer: Json): Json {
  const created = mpDate();
  const amount = reais(cents(body.transaction_amount));
  return {
    id, date_created: created, date_approved: null, date_last_updated: created, date_of_expiration: null, money_release_date: null,
    operation_type: 'regular_payment', issuer_id: null, payment_method_id: methodId,
    payment_type_id: methodId === 'pix' ? 'bank_transfer' : TICKET_METHODS.has(methodId) ? 'ticket' : methodId.startsWith('deb') ? 'debit_card' : 'credit_card',
    status: 'pending', status_detail: 'pending_waiting_payment', currency_id: 'BRL', description: body.description ?? null, live_mode: false,
    collector_id: 1234567890, captured: true, binary_mode: body.binary_mode === true,
    payer: {
      id: payer.type === 'customer' ? String(payer.id) : randomDigits(9), email: payer.email ?? null, identification: payer.identification ?? null,
      first_name: payer.first_name ?? null, last_name: payer.last_name ?? null, type: payer.type ?? null,
    },
    metadata: body.metadata ?? {}, external_reference: body.external_reference ?? null, statement_descriptor: body.statement_descriptor ?? null,
    transaction_amount: amount, transaction_amount_refunded: 0, installments: body.installments ?? 1,
    transaction_details: { net_received_amount: 0, total_paid_amount: amount, overpaid_amount: 0, installment_amount: amount, external_resource_url: null, financial_institution: null },
    fee_details: [], refunds: [], notification_url: body.notification_url ?? null, processing_mode: 'aggregator', point_of_interaction: { type: 'UNSPECIFIED' },
  };
}

/** Decline cards first, then the holder-name convention; anything else approves (or reserves with capture:false). */
export function cardOutcome(payment: Json, body: Json, card: StoredCard | undefined): void {
  const declined = card ? declineAnswer(card.number, DECLINE_DETAILS) : undefined;
  let [status, detail] = declined ? ['rejected', declined] : HOLDER_OUTCOMES[card?.holderName.toUpperCase() ?? 'APRO'] ?? ['approved', 'accredited'];
  if (status === 'in_process' && payment.binary_mode) [status, detail] = ['rejected', 'cc_rejected_other_reason'];
  payment.installments = body.installments;
  payment.transaction_details.installment_amount = reais(cents(payment.transaction_amount) / body.installments);
  if (body.issuer_id !== undefined) payment.issuer_id = String(body.issuer_id);
  if (card && body.issuer_id !== undefined && body.installments > 1) {
    // The issuer's plan (emulator-rates.ts): the buyer pays its interest on top of transaction_amount.
    const cost = payerCost(cents(payment.transaction_amount), card.number.slice(0, 6), body.installments);
    payment.transaction_details.total_paid_amount = reais(cost.total);
    payment.transaction_details.installment_amount = reais(cost.each);
  }
  if (card) {
    payment.card = {
      first_six_digits: card.number.slice(0, 6), last_four_digits: card.number.slice(-4), expiration_month: card.expMonth, expiration_year: card.expYear,
      cardholder: { name: card.holderName, identification: card.identification ?? {} },
    };
  }
  if (status === 'approved' && body.capture === false) {
    setStatus(payment, 'authorized', 'pending_capture');
    payment.captured = false;
  } else if (status === 'approved') approve(payment);
  else setStatus(payment, status, detail);
}

export function pixDetails(payment: Json, body: Json): void {
  const id = payment.id;
  payment.status_detail = 'pending_waiting_transfer';
  payment.date_of_expiration = body.date_of_expiration ?? mpDate(Date.now() + DAY_MS);
  payment.transaction_details.installment_amount = 0;
  payment.point_of_interaction = {
    type: 'PIX', sub_type: null, application_data: { name: null, version: null },
    transaction_data: {
      qr_code: pixEmv(payment.transaction_amount, randomUuid()), qr_code_base64: PNG_1X1_BASE64,
      ticket_url: `https://www.mercadopago.com.br/payments/${id}/ticket?caller_id=1234567890&hash=${randomUuid()}`,
      transaction_id: null, bank_transfer_id: null, financial_institution: null, bank_info: { payer: {}, collector: {} },
    },
  };
}

export function boletoDetails(payment: Json, body: Json): void {
  const id = payment.id;
  const due = body.date_of_expiration ?? mpDate(Date.now() + 3 * DAY_MS);
  const reference = randomDigits(10);
  const { barcode, line } = febrabanBoleto('237', Date.parse(due), cents(payment.transaction_amount));
  payment.date_of_expiration = due;
  payment.barcode = { content: barcode };
  payment.transaction_details = {
    ...payment.transaction_details, installment_amount: 0, payment_method_reference_id: reference, verification_code: reference,
    external_resource_url: `https://www.mercadopago.com.br/payments/${id}/ticket?caller_id=1234567890&payment_method_id=${payment.payment_method_id}&payment_id=${id}&payment_method_reference_id=${reference}&hash=${randomUuid()}`,
    barcode: { content: barcode }, digitable_line: line,
  };
}

export function setStatus(payment: Json, status: string, detail: string): void {
  payment.status = status;
  payment.status_detail = detail;
  payment.date_last_updated = mpDate();
}

export function approve(payment: Json): void {
  setStatus(payment, 'approved', 'accredited');
  payment.captured = true;
  payment.date_approved = mpDate();
  payment.money_release_date = mpDate(Date.now() + 14 * DAY_MS);
  const fee = reais(cents(payment.transaction_amount) * FEE_RATE);
  payment.fee_details = [{ type: 'mercadopago_fee', amount: fee, fee_payer: 'collector' }];
  payment.transaction_details.net_received_amount = reais(cents(payment.transaction_amount) - cents(fee));
}

/** payment_method_id MP infers from a tokenized card; 5031 43.. is MP's own test Mastercard. */
export function cardMethodOf(number: string): string {
  return number.startsWith('503143') ? 'master' : BRAND_METHOD[cardBrand(number)] ?? 'visa';
}

export function validMpDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

// ---- pix EMV (BR Code) with a real CRC16, so the copy-and-paste text is well formed ----

export function pixEmv(amountReais: number, key: string): string {
  return pixBrCode({ key, amountReais, merchantName: 'MERCADO PAGO SANDBOX', city: 'SAO PAULO', txid: `mpqrinter${randomDigits(8)}` });
}
