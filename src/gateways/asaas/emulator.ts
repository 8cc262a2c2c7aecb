import type { FastifyReply } from 'fastify';
import type { EmulatorPlugin } from '../../sandbox/types';
import type { LedgerEntry } from '../../sandbox/control';
import type { DeclineCode } from '../types';
import { cardBrand, declineFor, luhnValid } from '../../sandbox/cards';
import { randomDigits, randomUuid } from '../../sandbox/ids';
import { pixBrCode } from '../../sandbox/br-code';

// Asaas API v3 emulator (shared/gateways/asaas.md): `access_token` header, amounts in reais (floats),
// every payment belongs to a customer, declines are HTTP 400 invalid_creditCard and persist nothing,
// the pix QR code is a second GET, deleted payments stay readable with `deleted: true`.

type Json = Record<string, any>;
type ErrorItem = { code: string; description: string };

/** Issuer reasons in the description, the way Asaas words them; the adapter reads the code back from it. */
const DECLINE_DESCRIPTIONS: Record<DeclineCode, string> = {
  card_declined: 'Transação não autorizada. Verifique os dados do cartão de crédito e tente novamente.',
  insufficient_funds: 'Transação não autorizada: saldo insuficiente.',
  expired_card: 'Transação não autorizada: cartão vencido.',
  incorrect_cvc: 'Transação não autorizada: código de segurança inválido.',
  processing_error: 'Não foi possível processar a transação: erro de comunicação com o emissor. Tente novamente mais tarde.',
};

/** Asaas' own sandbox cards (doc §8): 4444 4444 4444 4444 approves although it fails Luhn; these two decline. */
const ASAAS_TEST_CARD = '4444444444444444';
const ASAAS_DECLINE_CARDS = new Set(['5184019740373151', '4916561358240741']);
const BILLING_TYPES = ['CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'PIX'];
const CARD_TYPES = ['CREDIT_CARD', 'DEBIT_CARD'];
const REFUNDABLE = ['CONFIRMED', 'RECEIVED', 'RECEIVED_IN_CASH', 'AUTHORIZED'];
const DELETABLE = ['PENDING', 'OVERDUE', 'AUTHORIZED'];
const SANDBOX_HOST = 'https://sandbox.asaas.com';
// 1x1 PNG: the emulator's QR "image" (base64 like the real encodedImage).
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const todayIso = () => new Date().toISOString().slice(0, 10);
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const reais = (n: number) => Math.round(n * 100) / 100;
const fail = (status: number, ...errors: ErrorItem[]) => ({ status, body: { errors } });
const notFound = (what = 'Cobrança') => fail(404, { code: 'not_found', description: `${what} não encontrada.` });

export const asaasEmulator: EmulatorPlugin = async (app, opts) => {
  const customers = new Map<string, Json>();
  const payments = new Map<string, Json>();
  const cardTokens = new Map<string, Json>(); // creditCardToken -> card, reusable like Asaas' tokens
  opts.control.onReset(() => {
    for (const m of [customers, payments, cardTokens]) m.clear();
  });
  // Declines persist nothing at Asaas, so they never appear here. A released pre-authorization keeps its
  // refunds[] entry but returned no money: only refunds of a paid payment count.
  opts.control.onLedger('asaas', () => [...payments.values()].map((p): Omit<LedgerEntry, 'gateway'> => {
    const paid = !!(p.confirmedDate || p.paymentDate);
    const refunds = paid ? (p.refunds ?? []).filter((r: Json) => r.status !== 'CANCELLED') : [];
    return {
      id: p.id, reference: p.externalReference, paymentMethod: p.billingType.toLowerCase() as LedgerEntry['paymentMethod'], status: p.status,
      amount: Math.round(p.value * 100), paidAmount: paid ? Math.round(p.value * 100) : 0,
      refundedAmount: refunds.reduce((sum: number, r: Json) => sum + Math.round(r.value * 100), 0), refunds: refunds.length,
    };
  }));

  app.addHook('preHandler', async (request, reply) => {
    const error = authError(request.headers.access_token);
    if (error) return reply.code(401).send({ errors: [error] });
  });

  const answer = (reply: FastifyReply, out: { status: number; body: unknown }) => reply.code(out.status).send(out.body);

  app.post('/v3/customers', async (request, reply) => answer(reply, createCustomer((request.body ?? {}) as Json)));
  app.get<{ Params: { id: string } }>('/v3/customers/:id', async (request, reply) => {
    const customer = customers.get(request.params.id);
    return customer ?? answer(reply, notFound('Cliente'));
  });

  app.post('/v3/payments', async (request, reply) => answer(reply, createPayment((request.body ?? {}) as Json)));
  app.get<{ Querystring: Json }>('/v3/payments', async (request) => listPayments(request.query));
  app.get<{ Params: { id: string } }>('/v3/payments/:id', async (request, reply) => withPayment(reply, request.params.id, (p) => ({ status: 200, body: p })));
  app.get<{ Params: { id: string } }>('/v3/payments/:id/status', async (request, reply) => withPayment(reply, request.params.id, (p) => ({ status: 200, body: { status: p.status } })));

  app.get<{ Params: { id: string } }>('/v3/payments/:id/pixQrCode', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.billingType !== 'PIX') return fail(400, { code: 'invalid_action', description: 'Esta cobrança não é do tipo Pix.' });
    return { status: 200, body: { encodedImage: PNG_1X1, payload: p._pixPayload, expirationDate: `${p.dueDate} 23:59:59`, description: p.description ?? null } };
  }));

  app.get<{ Params: { id: string } }>('/v3/payments/:id/identificationField', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.billingType !== 'BOLETO') return fail(400, { code: 'invalid_action', description: 'Esta cobrança não é do tipo boleto.' });
    return { status: 200, body: { identificationField: p._line, nossoNumero: p.nossoNumero, barCode: p._barCode } };
  }));

  app.post<{ Params: { id: string } }>('/v3/payments/:id/captureAuthorizedPayment', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.status !== 'AUTHORIZED' || p.deleted) {
      return fail(400, { code: 'invalid_action', description: 'Somente cobranças pré-autorizadas podem ser capturadas.' });
    }
    markPaid(p, 'CONFIRMED');
    return { status: 200, body: p };
  }));

  app.post<{ Params: { id: string } }>('/v3/payments/:id/refund', async (request, reply) => withPayment(reply, request.params.id, (p) => refund(p, (request.body ?? {}) as Json)));
  app.get<{ Params: { id: string } }>('/v3/payments/:id/refunds', async (request, reply) => withPayment(reply, request.params.id, (p) => ({
    status: 200, body: list(p.refunds ?? [], 0, 100),
  })));

  // Removes an unpaid charge; Asaas keeps it readable with deleted:true (POST /restore undoes it).
  app.delete<{ Params: { id: string } }>('/v3/payments/:id', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.deleted) return fail(400, { code: 'invalid_action', description: 'Esta cobrança já foi removida.' });
    if (!DELETABLE.includes(p.status)) {
      return fail(400, { code: 'invalid_action', description: `Não é possível remover uma cobrança com situação ${p.status}. Utilize o estorno.` });
    }
    p.deleted = true;
    return { status: 200, body: { deleted: true, id: p.id } };
  }));

  opts.control.onPay('asaas', (id) => {
    const p = payments.get(id);
    if (!p) return { ok: false, status: 404, message: `payment ${id} not found` };
    if (!['PENDING', 'OVERDUE'].includes(p.status) || p.deleted || CARD_TYPES.includes(p.billingType)) {
      return { ok: false, status: 409, message: `payment ${id} is ${p.status}, not a pending pix or boleto` };
    }
    markPaid(p, 'RECEIVED');
    return { ok: true };
  });

  // Sandbox actions (doc §8): settle a pix/boleto, or make it overdue, without a payer.
  app.post<{ Params: { id: string } }>('/v3/sandbox/payment/:id/confirm', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (!['PENDING', 'OVERDUE'].includes(p.status) || p.deleted || CARD_TYPES.includes(p.billingType)) {
      return fail(400, { code: 'invalid_action', description: 'Somente cobranças pendentes de Pix ou boleto podem ser confirmadas.' });
    }
    markPaid(p, 'RECEIVED');
    return { status: 200, body: p };
  }));
  app.post<{ Params: { id: string } }>('/v3/sandbox/payment/:id/overdue', async (request, reply) => withPayment(reply, request.params.id, (p) => {
    if (p.status !== 'PENDING' || p.deleted) return fail(400, { code: 'invalid_action', description: 'Somente cobranças pendentes podem vencer.' });
    p.status = 'OVERDUE';
    return { status: 200, body: p };
  }));

  function withPayment(reply: FastifyReply, id: string, run: (p: Json) => { status: number; body: unknown }) {
    const payment = payments.get(id);
    return answer(reply, payment ? run(payment) : notFound());
  }

  function createCustomer(body: Json) {
    const errors: ErrorItem[] = [];
    if (typeof body.name !== 'string' || body.name.trim() === '') errors.push({ code: 'invalid_name', description: 'O campo nome deve ser informado.' });
    const doc = typeof body.cpfCnpj === 'string' ? body.cpfCnpj.replace(/\D+/g, '') : '';
    if (!doc) errors.push({ code: 'invalid_cpfCnpj', description: 'O campo CPF/CNPJ deve ser informado.' });
    else if (!validCpfCnpj(doc)) errors.push({ code: 'invalid_cpfCnpj', description: 'O CPF/CNPJ informado é inválido.' });
    if (body.email !== undefined && body.email !== null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(body.email))) {
      errors.push({ code: 'invalid_email', description: 'O email informado é inválido.' });
    }
    if (errors.length) return fail(400, ...errors);
    const customer = {
      object: 'customer', id: `cus_0000${randomDigits(8)}`, dateCreated: todayIso(), name: body.name, email: body.email ?? null,
      company: body.company ?? null, phone: body.phone ?? null, mobilePhone: body.mobilePhone ?? null, address: body.address ?? null,
      addressNumber: body.addressNumber ?? null, complement: body.complement ?? null, province: body.province ?? null,
      postalCode: body.postalCode ?? null, cpfCnpj: doc, personType: doc.length === 14 ? 'JURIDICA' : 'FISICA', deleted: false,
      additionalEmails: body.additionalEmails ?? null, externalReference: body.externalReference ?? null,
      notificationDisabled: body.notificationDisabled ?? false, observations: body.observations ?? null, municipalInscription: null,
      stateInscription: null, canDelete: true, cannotBeDeletedReason: null, canEdit: true, cannotEditReason: null, city: null,
      cityName: null, state: null, country: 'Brasil', foreignCustomer: false,
    };
    customers.set(customer.id, customer);
    return { status: 200, body: customer };
  }

  function createPayment(body: Json) {
    const errors = paymentErrors(body);
    if (errors.length) return fail(400, ...errors);
    const card = CARD_TYPES.includes(body.billingType) ? resolveCard(body) : undefined;
    if (card && 'errors' in card) return fail(400, ...card.errors);
    const value = reais(Number(body.value));
    const id = `pay_${randomDigits(12)}`;
    const invoice = id.slice(4);
    const payment: Json = {
      object: 'payment', id, dateCreated: todayIso(), customer: body.customer, paymentLink: null, value,
      netValue: reais(value - fee(body.billingType, value)), originalValue: null, interestValue: null, description: body.description ?? null,
      billingType: body.billingType, status: 'PENDING', dueDate: body.dueDate, originalDueDate: body.dueDate, paymentDate: null,
      clientPaymentDate: null, confirmedDate: null, creditDate: null, estimatedCreditDate: null, installmentNumber: null,
      invoiceUrl: `${SANDBOX_HOST}/i/${invoice}`, invoiceNumber: randomDigits(8), bankSlipUrl: null, nossoNumero: null,
      transactionReceiptUrl: null, externalReference: body.externalReference ?? null, deleted: false, anticipated: false,
      anticipable: false, postalService: false, discount: { value: 0, dueDateLimitDays: 0, type: 'FIXED' }, fine: { value: 0, type: 'FIXED' },
      interest: { value: 0, type: 'PERCENTAGE' }, refunds: null,
    };
    if (Number(body.installmentCount) > 1) {
      // One payment for the whole plan here; the real API answers with the first installment (see docs/gateways/asaas.md).
      Object.assign(payment, { installment: randomUuid(), installmentNumber: 1, installmentCount: Number(body.installmentCount) });
    }
    if (card) {
      payment.creditCard = { creditCardNumber: card.number.slice(-4), creditCardBrand: cardBrand(card.number).toUpperCase(), creditCardToken: card.token };
      if (body.authorizeOnly === true) payment.status = 'AUTHORIZED';
      else markPaid(payment, 'CONFIRMED');
    } else if (body.billingType === 'BOLETO') {
      Object.assign(payment, {
        nossoNumero: randomDigits(8), bankSlipUrl: `${SANDBOX_HOST}/b/pdf/${invoice}`,
        _barCode: `4619${randomDigits(40)}`, _line: `46191${randomDigits(42)}`,
      });
    } else {
      payment._pixPayload = pixPayload(value, id);
    }
    defineHidden(payment);
    payments.set(id, payment);
    return { status: 200, body: payment };
  }

  function paymentErrors(body: Json): ErrorItem[] {
    const errors: ErrorItem[] = [];
    if (typeof body.customer !== 'string' || body.customer === '') errors.push({ code: 'invalid_customer', description: 'O campo customer deve ser informado.' });
    else if (!customers.has(body.customer)) errors.push({ code: 'invalid_customer', description: 'Customer inválido ou não informado.' });
    if (!body.billingType) errors.push({ code: 'invalid_billingType', description: 'O campo billingType deve ser informado.' });
    else if (!BILLING_TYPES.includes(body.billingType)) errors.push({ code: 'invalid_billingType', description: 'Forma de pagamento inválida.' });
    // asaas.md sections 2 and 10: DEBIT_CARD only appears in responses (debit exists on the hosted invoiceUrl only).
    else if (body.billingType === 'DEBIT_CARD') errors.push({ code: 'invalid_billingType', description: 'Não é possível criar cobranças com cartão de débito via API.' });
    // remoteIp (the buyer's IP) is required on every card payment.
    if (body.billingType === 'CREDIT_CARD' && (typeof body.remoteIp !== 'string' || body.remoteIp === '')) {
      errors.push({ code: 'invalid_remoteIp', description: 'O campo remoteIp deve ser informado.' });
    }
    if (typeof body.value !== 'number' || !Number.isFinite(body.value) || body.value <= 0) {
      errors.push({ code: 'invalid_value', description: 'O valor da cobrança deve ser informado.' });
    }
    if (typeof body.dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.dueDate)) {
      errors.push({ code: 'invalid_dueDate', description: 'O campo dueDate deve ser informado no formato AAAA-MM-DD.' });
    } else if (body.dueDate < todayIso()) {
      errors.push({ code: 'invalid_dueDate', description: 'Não é permitido data de vencimento inferior a hoje.' });
    }
    return errors;
  }

  /** The card to charge (raw data or a stored token), or the 400 Asaas answers: validation or decline. */
  function resolveCard(body: Json): { number: string; token: string } | { errors: ErrorItem[] } {
    if (body.creditCardToken) {
      const stored = cardTokens.get(String(body.creditCardToken));
      if (!stored) return { errors: [{ code: 'invalid_creditCard', description: 'Informe um token de cartão de crédito válido.' }] };
      return decline(stored.number, stored.expiryMonth, stored.expiryYear, String(body.creditCardToken));
    }
    const cc = body.creditCard as Json | undefined;
    const holder = body.creditCardHolderInfo as Json | undefined;
    const errors: ErrorItem[] = [];
    const need = (ok: boolean, code: string, description: string) => ok || errors.push({ code, description });
    if (!cc) return { errors: [{ code: 'invalid_creditCard', description: 'Informe os dados do cartão de crédito.' }] };
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
      need(/^\d{10,11}$/.test(String(holder.phone ?? holder.mobilePhone ?? '')), 'invalid_creditCardHolderInfo', 'Informe o telefone do titular do cartão.');
    }
    if (errors.length) return { errors };
    const number = cc.number.replace(/\D+/g, '');
    const token = randomUuid();
    const outcome = decline(number, cc.expiryMonth, cc.expiryYear, token);
    if (!('errors' in outcome)) cardTokens.set(token, { number, expiryMonth: cc.expiryMonth, expiryYear: cc.expiryYear });
    return outcome;
  }

  function decline(number: string, month: unknown, year: unknown, token: string): { number: string; token: string } | { errors: ErrorItem[] } {
    const expired = Number(year) * 12 + Number(month) < new Date().getUTCFullYear() * 12 + new Date().getUTCMonth() + 1;
    const code = declineFor(number)?.code ?? (ASAAS_DECLINE_CARDS.has(number) ? 'card_declined' : expired ? 'expired_card' : undefined);
    if (code) return { errors: [{ code: 'invalid_creditCard', description: DECLINE_DESCRIPTIONS[code] }] };
    return { number, token };
  }

  function refund(p: Json, body: Json) {
    if (p.billingType === 'BOLETO') {
      return fail(400, { code: 'invalid_action', description: 'Boletos são estornados por POST /v3/payments/{id}/bankSlip/refund.' });
    }
    if (!REFUNDABLE.includes(p.status) || p.deleted) {
      return fail(400, { code: 'invalid_action', description: `Não é possível estornar uma cobrança com situação ${p.status}.` });
    }
    const refunded = (p.refunds ?? []).reduce((sum: number, r: Json) => sum + Math.round(r.value * 100), 0);
    const remaining = Math.round(p.value * 100) - refunded;
    const wanted = body.value === undefined || body.value === null ? remaining : Math.round(Number(body.value) * 100);
    if (!Number.isFinite(wanted) || wanted <= 0) return fail(400, { code: 'invalid_value', description: 'O valor do estorno deve ser maior que zero.' });
    if (wanted > remaining) {
      return fail(400, { code: 'invalid_value', description: `O valor do estorno não pode ser maior que o valor disponível para estorno (R$ ${(remaining / 100).toFixed(2)}).` });
    }
    if (p.status === 'AUTHORIZED' && wanted !== remaining) {
      return fail(400, { code: 'invalid_value', description: 'Uma pré-autorização só pode ser estornada integralmente.' });
    }
    p.refunds = [...(p.refunds ?? []), {
      dateCreated: new Date().toISOString().replace('T', ' ').slice(0, 19), status: 'DONE', value: wanted / 100,
      description: body.description ?? null, endToEndIdentifier: p.billingType === 'PIX' ? `D${randomDigits(31)}` : null,
      effectiveDate: todayIso(), transactionReceiptUrl: `${SANDBOX_HOST}/comprovantes/${randomDigits(12)}`, refundedSplits: null,
    }];
    if (wanted === remaining) p.status = 'REFUNDED';
    return { status: 200, body: p };
  }

  /** Newest first: dateCreated is a bare date, so same-day payments keep their creation order, latest first [?]. */
  function listPayments(query: Json) {
    const all = [...payments.values()].reverse().filter((p) =>
      (!query.externalReference || p.externalReference === query.externalReference) && (!query.customer || p.customer === query.customer)
      && (!query.status || p.status === query.status) && (!query.billingType || p.billingType === query.billingType));
    return list(all, Number(query.offset ?? 0), Math.min(Number(query.limit ?? 10), 100));
  }
};

function authError(header: string | string[] | undefined): ErrorItem | undefined {
  const key = Array.isArray(header) ? header[0] : header;
  if (!key) {
    return { code: 'access_token_not_found', description: "O cabeçalho de autenticação 'access_token' é obrigatório e não foi encontrado na requisição." };
  }
  if (key.includes('invalid')) return { code: 'invalid_access_token', description: 'A chave de API fornecida é inválida.' };
  if (!key.startsWith('$aact_')) {
    return { code: 'invalid_access_token_format', description: 'O valor fornecido não parece ser uma chave de API válida do Asaas. Verifique o formato da sua chave.' };
  }
  return undefined;
}

function markPaid(p: Json, status: 'CONFIRMED' | 'RECEIVED'): void {
  const today = todayIso();
  p.status = status;
  p.confirmedDate = today;
  p.clientPaymentDate = today;
  if (status === 'RECEIVED') Object.assign(p, { paymentDate: today, creditDate: today, estimatedCreditDate: today });
  else p.estimatedCreditDate = addDays(today, p.billingType === 'DEBIT_CARD' ? 1 : 30);
  p.transactionReceiptUrl = `${SANDBOX_HOST}/comprovantes/${randomDigits(12)}`;
}

/** Asaas' list envelope. */
function list(items: unknown[], offset: number, limit: number): Json {
  return { object: 'list', hasMore: offset + limit < items.length, totalCount: items.length, limit, offset, data: items.slice(offset, offset + limit) };
}

/** Rough Asaas fees, only so netValue looks like the real one. */
function fee(billingType: string, value: number): number {
  if (billingType === 'CREDIT_CARD') return reais(value * 0.0299 + 0.49);
  if (billingType === 'DEBIT_CARD') return reais(value * 0.0189 + 0.35);
  return billingType === 'PIX' ? 0.99 : 1.99;
}

/** Emulator-only fields (QR payload, boleto line) kept on the object but left out of JSON bodies. */
function defineHidden(p: Json): void {
  for (const key of ['_pixPayload', '_line', '_barCode']) {
    if (key in p) Object.defineProperty(p, key, { value: p[key], enumerable: false, writable: true });
  }
}

/** A structurally valid (unpayable) BR Code with its CRC16, like the real `payload`. */
function pixPayload(value: number, id: string): string {
  return pixBrCode({ location: `pix-h.asaas.com/qr/cobv/${id.slice(4)}${randomDigits(8)}`, amountReais: value, merchantName: 'ASAAS SANDBOX', city: 'JOINVILLE' });
}


/** CPF (11) / CNPJ (14) check digits, which Asaas validates. */
export function validCpfCnpj(doc: string): boolean {
  if (!/^(\d{11}|\d{14})$/.test(doc) || /^(\d)\1+$/.test(doc)) return false;
  const digit = (base: string, weights: number[]) => {
    const r = base.split('').reduce((s, d, i) => s + Number(d) * weights[i], 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  if (doc.length === 11) {
    const d1 = digit(doc.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const d2 = digit(doc.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return doc.endsWith(`${d1}${d2}`);
  }
  const d1 = digit(doc.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = digit(doc.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return doc.endsWith(`${d1}${d2}`);
}
