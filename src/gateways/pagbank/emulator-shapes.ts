// PagBank Orders API shapes for the emulator (shared/gateways/pagbank.md): stored orders and charges, their
// rendering in the wire unit, validation (40001/40002), error bodies. Routes and state are in ./emulator.ts.
import type { DeclineCode } from '../types';
import {
  boletoFactor, cardBrand, dropUndefined, luhnValid, pixBrCode, randomDigits, randomUuid, wireToCents as toCents, centsToWire as toWire,
  isoNow as now, dateOnly, type AmountUnit as Unit, type Json, type Outcome,
} from '../../sandbox/core';
import { splitsProblem } from './emulator-split';
import { buyerInterest, pagbankBrandOfBin } from './emulator-rates';

export interface StoredCharge {
  id: string;
  orderId: string;
  reference_id?: string;
  description?: string;
  status: 'AUTHORIZED' | 'PAID' | 'IN_ANALYSIS' | 'DECLINED' | 'CANCELED' | 'WAITING';
  created_at: string;
  paid_at?: string;
  canceled_at?: string;
  total: number; // cents
  paid: number; // cents
  refunded: number; // cents
  refunds?: number; // cancels of a paid charge
  currency: string;
  payment_response: Json;
  payment_method: Json;
  links: Json[];
}

export interface StoredOrder {
  id: string;
  reference_id?: string;
  created_at: string;
  customer?: Json;
  items: Array<Json & { unit_cents: number }>;
  shipping?: Json;
  notification_urls?: string[];
  chargeIds: string[];
  qr?: { id: string; expiration_date: string; cents: number; text: string };
}

/** PagBank-style refusal codes (ABECS reason mapped to 5 digits) per normalized decline; the mapping reverses them. */
export const REFUSALS: Record<DeclineCode, { code: string; message: string; reason: string }> = {
  card_declined: { code: '20005', message: 'NAO AUTORIZADA', reason: '05' },
  insufficient_funds: { code: '20051', message: 'SALDO/LIMITE INSUFICIENTE', reason: '51' },
  expired_card: { code: '20054', message: 'CARTAO VENCIDO', reason: '54' },
  incorrect_cvc: { code: '20082', message: 'CODIGO DE SEGURANCA INVALIDO', reason: '82' },
  processing_error: { code: '10002', message: 'MOTIVO INESPERADO - TENTE NOVAMENTE', reason: '96' },
};
/** PagBank's own sandbox decline cards (docs/cartoes-de-teste): refused by PagBank risk. */
export const PAGBANK_RISK = { code: '10000', message: 'NAO AUTORIZADO PELO PAGSEGURO', reason: '' };
export const SANDBOX_DECLINES = Object.fromEntries(['4929291898380766', '5530062640663264', '5200489065784203'].map((n) => [n, PAGBANK_RISK]));
export const APPROVED = { code: '20000', message: 'SUCESSO' };

export const CARD_TYPES = new Set(['CREDIT_CARD', 'DEBIT_CARD']);
const PAYMENT_TYPES = new Set(['CREDIT_CARD', 'DEBIT_CARD', 'BOLETO']);
export const QR_VALIDITY_MS = 24 * 3600 * 1000; // PagBank's default pix validity

export const pagbankId = (prefix: string) => `${prefix}_${randomUuid().toUpperCase()}`;

export function renderCharge(c: StoredCharge, unit: Unit): Json {
  return dropUndefined({
    id: c.id, reference_id: c.reference_id, status: c.status, created_at: c.created_at, paid_at: c.paid_at, canceled_at: c.canceled_at,
    description: c.description,
    amount: { value: toWire(c.total, unit), currency: c.currency, summary: { total: toWire(c.total, unit), paid: toWire(c.paid, unit), refunded: toWire(c.refunded, unit) } },
    payment_response: c.payment_response, payment_method: dropUndefined(c.payment_method), links: c.links,
  });
}

export function cancel(charge: StoredCharge): void {
  charge.status = 'CANCELED';
  charge.canceled_at = now();
}



/** `{amount: {value}}` of capture/cancel: required (an empty body is 40002 on the real API) and <= `limit`. */
export function requestAmount(body: unknown, limit: number, unit: Unit): number | Outcome {
  const value = (body as Json | undefined)?.amount?.value;
  if (value === undefined) return { status: 400, body: errorBody('40001', 'required_parameter', 'amount.value') };
  const cents = toCents(value, unit);
  if (cents === undefined || cents > limit) return { status: 400, body: errorBody('40002', 'invalid_parameter', 'amount.value') };
  return cents;
}

// ---- validation ------------------------------------------------------------------------------------

interface Problem { code: '40001' | '40002'; parameter: string }

export function orderProblem(body: Json, unit: Unit): Problem | undefined {
  const missing = (parameter: string): Problem => ({ code: '40001', parameter });
  const invalid = (parameter: string): Problem => ({ code: '40002', parameter });
  const c = body.customer;
  if (!c || typeof c !== 'object') return missing('customer');
  if (!c.name) return missing('customer.name');
  if (!c.email) return missing('customer.email');
  if (!/^[^@\s]+@[^@\s]+$/.test(String(c.email))) return invalid('customer.email');
  if (!c.tax_id) return missing('customer.tax_id');
  if (!/^(\d{11}|\d{14})$/.test(String(c.tax_id))) return invalid('customer.tax_id');
  for (const [i, p] of (Array.isArray(c.phones) ? c.phones : []).entries()) {
    if (!/^\d{2}$/.test(String(p?.area))) return invalid(`customer.phones[${i}].area`);
    if (!/^\d{8,9}$/.test(String(p?.number))) return invalid(`customer.phones[${i}].number`);
  }
  if (body.notification_urls !== undefined) {
    const urls = body.notification_urls;
    if (!Array.isArray(urls) || urls.some((u: unknown) => typeof u !== 'string' || !/^https?:\/\/\S+$/.test(u))) return invalid('notification_urls');
  }
  for (const [i, item] of (Array.isArray(body.items) ? body.items : []).entries()) {
    if (!item?.name) return missing(`items[${i}].name`);
    if (!Number.isInteger(item.quantity) || item.quantity < 1) return invalid(`items[${i}].quantity`);
    if (toCents(item.unit_amount, unit) === undefined) return invalid(`items[${i}].unit_amount`);
  }
  for (const [i, charge] of (Array.isArray(body.charges) ? body.charges : []).entries()) {
    const problem = chargeProblem(charge ?? {}, `charges[${i}]`, unit);
    if (problem) return problem;
  }
  for (const [i, qr] of (Array.isArray(body.qr_codes) ? body.qr_codes : []).entries()) {
    if (qr?.amount?.value === undefined) return missing(`qr_codes[${i}].amount.value`);
    if (toCents(qr.amount.value, unit) === undefined) return invalid(`qr_codes[${i}].amount.value`);
    if (qr.expiration_date !== undefined && Number.isNaN(Date.parse(qr.expiration_date))) return invalid(`qr_codes[${i}].expiration_date`);
    const splits = splitsProblem(qr.splits, toCents(qr.amount.value, unit), `qr_codes[${i}].splits`, unit);
    if (splits) return splits;
  }
  return undefined;
}

export function chargeProblem(charge: Json, path: string, unit: Unit): Problem | undefined {
  const missing = (p: string): Problem => ({ code: '40001', parameter: `${path}.${p}` });
  const invalid = (p: string): Problem => ({ code: '40002', parameter: `${path}.${p}` });
  if (charge.amount?.value === undefined) return missing('amount.value');
  if (toCents(charge.amount.value, unit) === undefined) return invalid('amount.value');
  if (charge.amount.currency !== undefined && charge.amount.currency !== 'BRL') return invalid('amount.currency');
  const splits = splitsProblem(charge.splits, toCents(charge.amount.value, unit), `${path}.splits`, unit);
  if (splits) return splits;
  const method = charge.payment_method;
  if (!method?.type) return missing('payment_method.type');
  if (!PAYMENT_TYPES.has(method.type)) return invalid('payment_method.type');
  if (method.type === 'BOLETO') {
    const b = method.boleto;
    if (!b) return missing('payment_method.boleto');
    if (!b.due_date) return missing('payment_method.boleto.due_date');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(b.due_date) || b.due_date < dateOnly()) return invalid('payment_method.boleto.due_date');
    if (!b.holder?.name) return missing('payment_method.boleto.holder.name');
    if (!b.holder?.tax_id) return missing('payment_method.boleto.holder.tax_id');
    // The boleto is registered with the payer's address (pagbank.md section 2): the real API refuses it without.
    const a = b.holder.address;
    if (!a || typeof a !== 'object') return missing('payment_method.boleto.holder.address');
    for (const field of ['street', 'number', 'locality', 'city', 'region_code', 'postal_code']) {
      if (!a[field]) return missing(`payment_method.boleto.holder.address.${field}`);
    }
    if (!/^\d{8}$/.test(String(a.postal_code))) return invalid('payment_method.boleto.holder.address.postal_code');
    if (!/^[A-Z]{2}$/.test(String(a.region_code))) return invalid('payment_method.boleto.holder.address.region_code');
    return undefined;
  }
  if (method.installments !== undefined && (!Number.isInteger(method.installments) || method.installments < 1 || method.installments > 18)) return invalid('payment_method.installments');
  // pagbank.md: an installment is at least R$ 5,00; a plan of smaller installments is refused.
  if (Number.isInteger(method.installments) && method.installments > 1 && toCents(charge.amount.value, unit)! / method.installments < 500) return invalid('payment_method.installments');
  const card = method.card;
  if (!card) return missing('payment_method.card');
  const fees = feesProblem(charge, method, unit);
  if (fees) return invalid(fees);
  if (card.encrypted !== undefined || card.id !== undefined) return undefined; // opaque: the emulator approves them
  if (!card.number) return missing('payment_method.card.number');
  if (typeof card.number !== 'string' || !luhnValid(card.number)) return invalid('payment_method.card.number');
  const month = Number(card.exp_month);
  if (!Number.isInteger(month) || month < 1 || month > 12) return invalid('payment_method.card.exp_month');
  if (!Number.isInteger(Number(card.exp_year)) || String(card.exp_year).length !== 4) return invalid('payment_method.card.exp_year');
  if (card.security_code !== undefined && !/^\d{3,4}$/.test(String(card.security_code))) return invalid('payment_method.card.security_code');
  if (!card.holder?.name && !method.holder?.name) return missing('payment_method.card.holder.name');
  return undefined;
}

/**
 * Repasse de taxa ao comprador: amount.fees.buyer.interest {total, installments} must be the fees table's interest
 * for the card's brand and the count (the value less the interest is the price), as GET /charges/fees/calculate
 * quotes it; the field that does not match, or undefined.
 */
function feesProblem(charge: Json, method: Json, unit: Unit): string | undefined {
  const interest = charge.amount?.fees?.buyer?.interest;
  if (charge.amount?.fees === undefined) return undefined;
  if (!interest || typeof interest !== 'object') return 'amount.fees.buyer.interest';
  const count = method.installments ?? 1;
  if (interest.installments !== count || count < 2) return 'amount.fees.buyer.interest.installments';
  const total = toCents(interest.total, unit);
  const value = toCents(charge.amount.value, unit)!;
  if (total === undefined || total < 1 || total >= value) return 'amount.fees.buyer.interest.total';
  const number = typeof method.card?.number === 'string' ? method.card.number.replace(/\D+/g, '') : '';
  const brand = number ? pagbankBrandOfBin(number.slice(0, 6)) : undefined;
  if (!brand) return undefined; // an encrypted card: its brand is PagBank's to read, not the emulator's
  return buyerInterest(value - total, count, brand) === total ? undefined : 'amount.fees.buyer.interest.total';
}

// ---- bodies and helpers ----------------------------------------------------------------------------

export function errorBody(code: string, description: string, parameter?: string): Json {
  return { error_messages: [dropUndefined({ code, description, parameter_name: parameter })] };
}

// The real 404 body is not documented beyond the error_messages envelope; this follows it.
export function notFound(parameter: string): Json {
  return errorBody('NOT_FOUND', 'resource not found', parameter);
}

export function conflictStatus(charge: StoredCharge, expected: string): Outcome {
  return { status: 400, body: { error_messages: [{ code: '40002', description: `invalid_status: charge is ${charge.status}, expected ${expected}`, parameter_name: 'charge_id' }] } };
}




export function publicCard(card: Json, method: Json): Json {
  const number = typeof card.number === 'string' ? card.number.replace(/\D+/g, '') : '';
  return dropUndefined({
    id: card.id, brand: number ? cardBrand(number) : undefined, first_digits: number ? number.slice(0, 6) : undefined,
    last_digits: number ? number.slice(-4) : undefined, exp_month: card.exp_month === undefined ? undefined : String(card.exp_month),
    exp_year: card.exp_year === undefined ? undefined : String(card.exp_year),
    holder: { name: card.holder?.name ?? method.holder?.name }, store: card.store ?? false,
  });
}

/** A BR Code (EMV) copy-paste text carrying the amount in reais and a valid CRC16. */
export function pixEmv(cents: number, orderId: string): string {
  return pixBrCode({ location: `api.pagseguro.com/pix/v2/${orderId.slice(5).toLowerCase()}`, amountReais: cents / 100, merchantName: 'ROUTEGATE SANDBOX', city: 'SAO PAULO' });
}


/** 47-digit linha digitavel: bank 033, random fields, due-date factor and the amount in the last 14 digits. */
export function boletoLine(cents: number, dueDate: string): string {
  const factor = boletoFactor(Date.parse(`${dueDate}T00:00:00Z`));
  return `0339${randomDigits(28)}${randomDigits(1)}${factor}${String(cents).padStart(10, '0')}`;
}


