// Pagar.me core v5 shapes for the emulator (shared/gateways/pagarme.md): transactions per payment method,
// validation errors, public card data. Routes and state are in ./emulator.ts.
import type { DeclineCode } from '../types';
import { cardBrand, declineAnswer, luhnValid, pixBrCode, randomDigits, randomId, isoSeconds as now, type Json } from '../../sandbox/core';
import { splitErrors } from './emulator-split';

export interface StoredCharge extends Json {
  id: string;
  status: string;
  amount: number;
  paid_amount: number;
  canceled_amount: number;
  payment_method: string;
  order_id: string;
}

/** ABECS-style return codes per normalized decline (the mapping turns them back). */
const RETURN_CODES: Record<DeclineCode, { code: string; message: string }> = {
  card_declined: { code: '1000', message: 'Transação não autorizada' },
  insufficient_funds: { code: '1016', message: 'Saldo insuficiente' },
  expired_card: { code: '1001', message: 'Cartão vencido' },
  incorrect_cvc: { code: '1045', message: 'Código de segurança inválido' },
  processing_error: { code: '9111', message: 'Erro no processamento: tente novamente' },
};

const PAYMENT_METHODS = ['credit_card', 'debit_card', 'boleto', 'pix'];
const PIX_SIMULATOR_LIMIT = 50_000; // the simulator fails pix above R$ 500,00

export const id16 = (prefix: string) => randomId(prefix, 16);

export function cardTransaction(charge: StoredCharge, payment: Json, card: Json): Json {
  const input = payment[payment.payment_method];
  const number = String(card.number);
  const rc = declineAnswer(number, RETURN_CODES) ?? simulatorDecline(number, String(card.cvv ?? ''));
  const authOnly = input.operation_type === 'auth_only' || input.operation_type === 'pre_auth' || input.capture === false;
  const base = {
    id: id16('tran_'), transaction_type: payment.payment_method, gateway_id: randomDigits(10), amount: charge.amount,
    installments: input.installments ?? 1, statement_descriptor: input.statement_descriptor, operation_type: authOnly ? 'auth_only' : 'auth_and_capture',
    acquirer_name: 'simulator', acquirer_tid: randomDigits(12), acquirer_nsu: randomDigits(6), card: publicCard(card), created_at: now(),
  };
  if (rc) {
    charge.status = 'failed';
    return { ...base, status: 'not_authorized', success: false, acquirer_message: rc.message, acquirer_return_code: rc.code, gateway_response: { code: '200', errors: [] } };
  }
  if (authOnly) {
    return { ...base, status: 'authorized_pending_capture', success: true, acquirer_auth_code: randomDigits(6), acquirer_message: 'Transação autorizada com sucesso', acquirer_return_code: '0000', gateway_response: { code: '200', errors: [] } };
  }
  charge.status = 'paid';
  charge.paid_amount = charge.amount;
  charge.paid_at = now();
  return { ...base, status: 'captured', success: true, acquirer_auth_code: randomDigits(6), acquirer_message: 'Transação capturada com sucesso', acquirer_return_code: '0000', gateway_response: { code: '200', errors: [] } };
}

/** pagarme.md sections 2 and 5: without a customer phone the order is 200 with a failed charge (gateway_response 412). */
export function noPhoneTransaction(charge: StoredCharge): Json {
  charge.status = 'failed';
  return {
    id: id16('tran_'), transaction_type: 'pix', gateway_id: randomDigits(10), amount: charge.amount, created_at: now(), status: 'failed', success: false,
    gateway_response: { code: '412', errors: [{ message: 'At least one customer phone is required.' }] },
  };
}

export function pixTransaction(charge: StoredCharge, payment: Json): Json {
  const expiresIn = Number(payment.pix?.expires_in ?? 86_400);
  const base = { id: id16('tran_'), transaction_type: 'pix', gateway_id: randomDigits(10), amount: charge.amount, created_at: now() };
  if (charge.amount > PIX_SIMULATOR_LIMIT) {
    charge.status = 'failed';
    return { ...base, status: 'failed', success: false, gateway_response: { code: '412', errors: [{ message: 'Pix simulator: amount above R$ 500,00 fails.' }] } };
  }
  const emv = pixBrCode({ location: `pix.stone.com.br/pix/v2/${randomId('', 32)}`, amountReais: charge.amount / 100, merchantName: 'PAGARME SANDBOX', city: 'SAO PAULO' });
  return {
    ...base, status: 'waiting_payment', success: true, qr_code: emv,
    qr_code_url: `https://api.pagar.me/core/v5/transactions/${base.id}/qrcode?payment_method=pix`,
    expires_at: new Date(Date.now() + expiresIn * 1000).toISOString(),
  };
}

export function boletoTransaction(charge: StoredCharge, payment: Json): Json {
  const id = id16('tran_');
  const line = `23793.38128 ${randomDigits(5)}.${randomDigits(6)} ${randomDigits(5)}.${randomDigits(6)} 1 ${randomDigits(14)}`;
  // pagarme.md section 2: a boleto transaction carries qr_code, the pix of the hybrid boleto (EMV text; no image is given).
  const qrCode = pixBrCode({ location: `pix.stone.com.br/pix/v2/${randomId('', 32)}`, amountReais: charge.amount / 100, merchantName: 'PAGARME SANDBOX', city: 'SAO PAULO' });
  return {
    id, transaction_type: 'boleto', gateway_id: randomDigits(10), amount: charge.amount, status: 'generated', success: true,
    url: `https://api.pagar.me/core/v5/transactions/${id}/pdf`, pdf: `https://api.pagar.me/core/v5/transactions/${id}/pdf`, line,
    barcode: `https://api.pagar.me/core/v5/transactions/${id}/barcode`, qr_code: qrCode, nosso_numero: randomDigits(11), bank: '237', document_number: randomDigits(10),
    instructions: payment.boleto?.instructions, due_at: payment.boleto?.due_at ?? new Date(Date.now() + 3 * 86_400_000).toISOString(), type: 'DM', created_at: now(),
  };
}


/** The simulator's own cards: 4000000000000028 is refused; a CVV starting with 6 is an issuer decline (PSP). */
function simulatorDecline(number: string, cvv: string): { code: string; message: string } | undefined {
  if (number === '4000000000000028' || number === '4000000000000044') return RETURN_CODES.card_declined;
  if (cvv.startsWith('6')) return RETURN_CODES.card_declined;
  return undefined;
}

export function publicCard(card: Json): Json {
  const number = String(card.number ?? '');
  return {
    id: id16('card_'), first_six_digits: number.slice(0, 6), last_four_digits: number.slice(-4), brand: capitalize(cardBrand(number)),
    holder_name: card.holder_name, exp_month: Number(card.exp_month), exp_year: Number(card.exp_year), status: 'active', type: 'credit',
  };
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function invalid(field: string, message: string): Json {
  return { message: 'The request is invalid.', errors: { [field]: [message] } };
}

export function optionalAmount(body: unknown, fallback: number): number | string {
  const amount = (body as Json | undefined)?.amount;
  if (amount === undefined || amount === null) return fallback;
  return Number.isInteger(amount) && amount > 0 ? amount : 'The field amount must be a positive integer (cents).';
}

export function orderErrors(body: Json): Json | undefined {
  const errors: Json = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!Array.isArray(body.items) || body.items.length === 0) add('order.items', 'The items field is required.');
  else {
    body.items.forEach((item: Json, i: number) => {
      if (!Number.isInteger(item?.amount) || item.amount < 0) add(`order.items[${i}].amount`, 'The field amount must be an integer (cents).');
      if (typeof item?.description !== 'string' || item.description === '') add(`order.items[${i}].description`, 'The description field is required.');
    });
  }
  if (!body.customer && !body.customer_id) add('order.customer', 'The customer or customer_id field is required.');
  if (body.customer) Object.assign(errors, customerErrors(body.customer, 'order.customer') ?? {});
  const payment = Array.isArray(body.payments) ? body.payments[0] : undefined;
  if (!payment) add('order.payments', 'The payments field is required.');
  else if (!PAYMENT_METHODS.includes(payment.payment_method)) add('order.payments[0].payment_method', `The payment_method ${JSON.stringify(payment.payment_method)} is invalid.`);
  else if (payment.payment_method === 'credit_card' || payment.payment_method === 'debit_card') {
    const input = payment[payment.payment_method];
    const path = `order.payments[0].${payment.payment_method}`;
    if (!input) add(path, `The ${payment.payment_method} field is required.`);
    else if (!input.card_token) Object.assign(errors, cardErrors(input.card, `${path}.card`) ?? {});
    // Debit cards need 3-D Secure authentication data (pagarme.md section 2); the real message is not documented.
    if (input && payment.payment_method === 'debit_card' && !input.authentication) add(`${path}.authentication`, 'The authentication field is required for debit_card.');
  } else if (payment.payment_method === 'boleto' && body.customer) {
    if (!body.customer.document) add('order.customer.document', 'The document field is required for boleto.');
    // "customer address is required for boleto" (pagarme.md section 2).
    const a = body.customer.address;
    if (!a) add('order.customer.address', 'The address field is required for boleto.');
    else for (const f of ['line_1', 'zip_code', 'city', 'state', 'country']) if (!a[f]) add(`order.customer.address.${f}`, `The ${f} field is required.`);
  }
  if (payment && Array.isArray(body.items)) {
    const total = body.items.reduce((sum: number, item: Json) => sum + (item?.amount ?? 0) * (item?.quantity ?? 1), 0);
    Object.assign(errors, splitErrors(payment.split, payment.amount ?? total, 'order.payments[0].split') ?? {});
  }
  return Object.keys(errors).length ? errors : undefined;
}

export function cardErrors(card: Json | undefined, path: string): Json | undefined {
  const errors: Json = {};
  const add = (field: string, message: string) => (errors[`${path}.${field}`] ??= []).push(message);
  if (!card) return { [path]: ['The card field is required.'] };
  if (typeof card.number !== 'string' || !luhnValid(card.number)) add('number', 'The number field is not a valid credit card number.');
  if (typeof card.holder_name !== 'string' || card.holder_name === '') add('holder_name', 'The holder_name field is required.');
  if (!Number.isInteger(Number(card.exp_month)) || Number(card.exp_month) < 1 || Number(card.exp_month) > 12) add('exp_month', 'The field exp_month must be between 1 and 12.');
  if (!Number.isInteger(Number(card.exp_year))) add('exp_year', 'The exp_year field is required.');
  if (card.cvv !== undefined && !/^\d{3,4}$/.test(String(card.cvv))) add('cvv', 'The cvv field is invalid.');
  return Object.keys(errors).length ? errors : undefined;
}

export function customerErrors(customer: Json, path: string): Json | undefined {
  const errors: Json = {};
  if (typeof customer.name !== 'string' || customer.name === '') errors[`${path}.name`] = ['The name field is required.'];
  if (customer.email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(String(customer.email))) errors[`${path}.email`] = ['The email field is not a valid e-mail address.'];
  if (customer.document !== undefined && !/^(\d{11}|\d{14})$/.test(String(customer.document))) errors[`${path}.document`] = ['The document field must have 11 or 14 digits.'];
  return Object.keys(errors).length ? errors : undefined;
}

export function hasPhone(customer: Json): boolean {
  const phones = customer?.phones ?? {};
  return Object.values(phones).some((p) => !!(p as Json)?.number);
}

export function redactCard(body: Json): Json {
  return JSON.parse(JSON.stringify(body, (key, value) => (key === 'number' || key === 'cvv' ? '****' : value)));
}
