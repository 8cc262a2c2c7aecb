// Asaas API v3 shapes for the emulator (shared/gateways/asaas.md): error bodies, validation, the customer and
// payment bodies' pure parts. Routes and state are in ./emulator.ts.
import type { DeclineCode } from '../types';
import { luhnValid, randomDigits, pixBrCode, validCpfCnpj, roundReais, dateOnly, addDays, type Json, type Outcome } from '../../sandbox/core';

export type ErrorItem = { code: string; description: string };

/** Issuer reasons in the description, the way Asaas words them; the adapter reads the code back from it. */
export const DECLINE_DESCRIPTIONS: Record<DeclineCode, string> = {
  card_declined: 'Transação não autorizada. Verifique os dados do cartão de crédito e tente novamente.',
  insufficient_funds: 'Transação não autorizada: saldo insuficiente.',
  expired_card: 'Transação não autorizada: cartão vencido.',
  incorrect_cvc: 'Transação não autorizada: código de segurança inválido.',
  processing_error: 'Não foi possível processar a transação: erro de comunicação com o emissor. Tente novamente mais tarde.',
};

/** Asaas' own sandbox cards (doc §8): 4444 4444 4444 4444 approves although it fails Luhn; these two decline. */
export const ASAAS_TEST_CARD = '4444444444444444';
export const ASAAS_DECLINE_CARDS = { '5184019740373151': DECLINE_DESCRIPTIONS.card_declined, '4916561358240741': DECLINE_DESCRIPTIONS.card_declined };
export const BILLING_TYPES = ['CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'PIX'];
export const CARD_TYPES = ['CREDIT_CARD', 'DEBIT_CARD'];
export const REFUNDABLE = ['CONFIRMED', 'RECEIVED', 'RECEIVED_IN_CASH', 'AUTHORIZED'];
export const DELETABLE = ['PENDING', 'OVERDUE', 'AUTHORIZED'];
export const SANDBOX_HOST = 'https://sandbox.asaas.com';

export const fail = (status: number, ...errors: ErrorItem[]): Outcome => ({ status, body: { errors } });
export const notFound = (what = 'Cobrança') => fail(404, { code: 'not_found', description: `${what} não encontrada.` });

/** A customer as Asaas answers it, or the validation errors. */
export function newCustomer(body: Json): Json | { errors: ErrorItem[] } {
  const errors: ErrorItem[] = [];
  if (typeof body.name !== 'string' || body.name.trim() === '') errors.push({ code: 'invalid_name', description: 'O campo nome deve ser informado.' });
  const doc = typeof body.cpfCnpj === 'string' ? body.cpfCnpj.replace(/\D+/g, '') : '';
  if (!doc) errors.push({ code: 'invalid_cpfCnpj', description: 'O campo CPF/CNPJ deve ser informado.' });
  else if (!validCpfCnpj(doc)) errors.push({ code: 'invalid_cpfCnpj', description: 'O CPF/CNPJ informado é inválido.' });
  if (body.email !== undefined && body.email !== null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(body.email))) {
    errors.push({ code: 'invalid_email', description: 'O email informado é inválido.' });
  }
  if (errors.length) return { errors };
  const customer = {
    object: 'customer', id: `cus_0000${randomDigits(8)}`, dateCreated: dateOnly(), name: body.name, email: body.email ?? null,
    company: body.company ?? null, phone: body.phone ?? null, mobilePhone: body.mobilePhone ?? null, address: body.address ?? null,
    addressNumber: body.addressNumber ?? null, complement: body.complement ?? null, province: body.province ?? null,
    postalCode: body.postalCode ?? null, cpfCnpj: doc, personType: doc.length === 14 ? 'JURIDICA' : 'FISICA', deleted: false,
    additionalEmails: body.additionalEmails ?? null, externalReference: body.externalReference ?? null,
    notificationDisabled: body.notificationDisabled ?? false, observations: body.observations ?? null, municipalInscription: null,
    stateInscription: null, canDelete: true, cannotBeDeletedReason: null, canEdit: true, cannotEditReason: null, city: null,
    cityName: null, state: null, country: 'Brasil', foreignCustomer: false,
  };
  return customer;
}

/** Asaas' validation of a payment create (asaas.md section 2). */
export function paymentErrors(body: Json, customerExists: (id: string) => boolean): ErrorItem[] {
  const errors: ErrorItem[] = [];
  if (typeof body.customer !== 'string' || body.customer === '') errors.push({ code: 'invalid_customer', description: 'O campo customer deve ser informado.' });
  else if (!customerExists(body.customer)) errors.push({ code: 'invalid_customer', description: 'Customer inválido ou não informado.' });
  if (!body.billingType) errors.push({ code: 'invalid_billingType', description: 'O campo billingType deve ser informado.' });
  else if (!BILLING_TYPES.includes(body.billingType)) errors.push({ code: 'invalid_billingType', description: 'Forma de pagamento inválida.' });
  // asaas.md sections 2 and 10: DEBIT_CARD only appears in responses (debit exists on the hosted invoiceUrl only).
  else if (body.billingType === 'DEBIT_CARD') errors.push({ code: 'invalid_billingType', description: 'Não é possível criar cobranças com cartão de débito via API.' });
  // remoteIp (the buyer's IP) is required on every card payment.
  if (body.billingType === 'CREDIT_CARD' && (typeof body.remoteIp !== 'string' || body.remoteIp === '')) {
    errors.push({ code: 'invalid_remoteIp', description: 'O campo remoteIp deve ser informado.' });
  }
  // Card plans go up to 21 installments (docs/installments.md).
  if (body.billingType === 'CREDIT_CARD' && body.installmentCount !== undefined && (!Number.isInteger(body.installmentCount) || body.installmentCount < 1 || body.installmentCount > 21)) {
    errors.push({ code: 'invalid_installmentCount', description: 'O número de parcelas deve ser de 1 a 21 para cartão de crédito.' });
  }
  if (typeof body.value !== 'number' || !Number.isFinite(body.value) || body.value <= 0) {
    errors.push({ code: 'invalid_value', description: 'O valor da cobrança deve ser informado.' });
  }
  if (typeof body.dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.dueDate)) {
    errors.push({ code: 'invalid_dueDate', description: 'O campo dueDate deve ser informado no formato AAAA-MM-DD.' });
  } else if (body.dueDate < dateOnly()) {
    errors.push({ code: 'invalid_dueDate', description: 'Não é permitido data de vencimento inferior a hoje.' });
  }
  return errors;
}

/** Asaas' validation of raw card data and its holder (holder CEP, number and phone are required). */
export function cardDataErrors(cc: Json | undefined, holder: Json | undefined): ErrorItem[] {
  if (!cc) return [{ code: 'invalid_creditCard', description: 'Informe os dados do cartão de crédito.' }];
  const errors: ErrorItem[] = [];
  const need = (ok: boolean, code: string, description: string) => ok || errors.push({ code, description });
  need(typeof cc.holderName === 'string' && cc.holderName !== '', 'invalid_creditCard', 'Informe o nome impresso no cartão.');
  need(typeof cc.number === 'string' && (luhnValid(cc.number) || cc.number.replace(/\D+/g, '') === ASAAS_TEST_CARD), 'invalid_creditCard', 'Informe um número de cartão de crédito válido.');
  need(/^(0?[1-9]|1[0-2])$/.test(String(cc.expiryMonth ?? '')), 'invalid_creditCard', 'Informe o mês de expiração do cartão (MM).');
  need(/^\d{4}$/.test(String(cc.expiryYear ?? '')), 'invalid_creditCard', 'Informe o ano de expiração do cartão com 4 dígitos (AAAA).');
  need(/^\d{3,4}$/.test(String(cc.ccv ?? '')), 'invalid_creditCard', 'Informe o código de segurança do cartão.');
  if (!holder) errors.push({ code: 'invalid_creditCardHolderInfo', description: 'Informe os dados do titular do cartão (creditCardHolderInfo).' });
  else {
    need(typeof holder.name === 'string' && holder.name !== '', 'invalid_creditCardHolderInfo', 'Informe o nome do titular do cartão.');
    need(typeof holder.email === 'string' && holder.email !== '', 'invalid_creditCardHolderInfo', 'Informe o email do titular do cartão.');
    need(validCpfCnpj(String(holder.cpfCnpj ?? '').replace(/\D+/g, '')), 'invalid_cpfCnpj', 'O CPF/CNPJ do titular do cartão é inválido.');
    need(/^\d{8}$/.test(String(holder.postalCode ?? '').replace(/-/g, '')), 'invalid_creditCardHolderInfo', 'Informe o CEP do titular do cartão.');
    need(typeof holder.addressNumber === 'string' && holder.addressNumber !== '', 'invalid_creditCardHolderInfo', 'Informe o número do endereço do titular do cartão.');
    // The description marks `phone` required (CreditCardHolderInfoRequestDto); mobilePhone alone does not do.
    need(/^\d{10,11}$/.test(String(holder.phone ?? '')), 'invalid_creditCardHolderInfo', 'Informe o telefone do titular do cartão.');
  }
  return errors;
}

export function authError(key: string | undefined): ErrorItem | undefined {
  if (!key) {
    return { code: 'access_token_not_found', description: "O cabeçalho de autenticação 'access_token' é obrigatório e não foi encontrado na requisição." };
  }
  if (key.includes('invalid')) return { code: 'invalid_access_token', description: 'A chave de API fornecida é inválida.' };
  if (!key.startsWith('$aact_')) {
    return { code: 'invalid_access_token_format', description: 'O valor fornecido não parece ser uma chave de API válida do Asaas. Verifique o formato da sua chave.' };
  }
  return undefined;
}

export function markPaid(p: Json, status: 'CONFIRMED' | 'RECEIVED'): void {
  const today = dateOnly();
  p.status = status;
  p.confirmedDate = today;
  p.clientPaymentDate = today;
  if (status === 'RECEIVED') Object.assign(p, { paymentDate: today, creditDate: today, estimatedCreditDate: today });
  else p.estimatedCreditDate = addDays(today, p.billingType === 'DEBIT_CARD' ? 1 : 30);
  p.transactionReceiptUrl = `${SANDBOX_HOST}/comprovantes/${randomDigits(12)}`;
}

/** Asaas' list envelope. */
export function list(items: unknown[], offset: number, limit: number): Json {
  return { object: 'list', hasMore: offset + limit < items.length, totalCount: items.length, limit, offset, data: items.slice(offset, offset + limit) };
}

/** Rough Asaas fees, only so netValue looks like the real one. */
export function fee(billingType: string, value: number): number {
  if (billingType === 'CREDIT_CARD') return roundReais(value * 0.0299 + 0.49);
  if (billingType === 'DEBIT_CARD') return roundReais(value * 0.0189 + 0.35);
  return billingType === 'PIX' ? 0.99 : 1.99;
}

/** Emulator-only fields (QR payload, boleto line) kept on the object but left out of JSON bodies. */
export function defineHidden(p: Json): void {
  for (const key of ['_pixPayload', '_line', '_barCode']) {
    if (key in p) Object.defineProperty(p, key, { value: p[key], enumerable: false, writable: true });
  }
}

/** A structurally valid (unpayable) BR Code with its CRC16, like the real `payload`. */
export function pixPayload(value: number, id: string): string {
  return pixBrCode({ location: `pix-h.asaas.com/qr/cobv/${id.slice(4)}${randomDigits(8)}`, amountReais: value, merchantName: 'ASAAS SANDBOX', city: 'JOINVILLE' });
}
