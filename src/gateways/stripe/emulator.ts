import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorPlugin } from '../../sandbox/types';
import { cardBrand, luhnValid } from '../../sandbox/cards';
import { randomDigits, randomId, randomUuid } from '../../sandbox/ids';
import { pixBrCode } from '../../sandbox/br-code';
import {
  type Params, type Json, DOCS, StripeError, invalid, missing, noSuch, cardError, int, bool, list, oneOf, rejectUnknown, metadataOf,
  queryParams, now, reais, type StripeDecline, DEBIT_CARDS, TEST_CARDS, declineOf,
} from './emulator-wire';
import { matchesSearch, parseSearchQuery } from './emulator-search';
import type { LedgerEntry } from '../../sandbox/control';

// Stripe PaymentIntents API emulator (shared/gateways/stripe.md): payment methods, intents, charges, refunds,
// customers and idempotency, with state per server instance. Wire conventions live in ./stripe-wire.ts.
// Amounts are integer cents.

// ---------------------------------------------------------------------------------------------- state

interface StoredPm { json: Json; decline?: StripeDecline }
interface Stored { status: number; body: unknown; endpoint: string; params: string }

function newState() {
  return {
    paymentMethods: new Map<string, StoredPm>(),
    intents: new Map<string, Json>(),
    charges: new Map<string, Json>(),
    refunds: new Map<string, Json>(),
    customers: new Map<string, Json>(),
    taxIds: new Map<string, Json[]>(),
    idempotency: new Map<string, Stored>(),
  };
}
type State = ReturnType<typeof newState>;

/**
 * The state of the emulator instance handling the current request. Each instance owns its state; `routeFor`
 * points this at it before running a handler, and handlers are synchronous, so no other request can run
 * in between.
 */
let state: State = newState();

function reset(s: State): void {
  for (const m of Object.values(s)) m.clear();
}

// ---------------------------------------------------------------------------------------------- payment methods

function billingDetails(b: Params | undefined): Json {
  const a = (b?.address ?? {}) as Params;
  return {
    address: { city: a.city ?? null, country: a.country ?? null, line1: a.line1 ?? null, line2: a.line2 ?? null, postal_code: a.postal_code ?? null, state: a.state ?? null },
    email: b?.email ?? null, name: b?.name ?? null, phone: b?.phone ?? null,
  };
}

function pmJson(type: string, details: Json, billing: Params | undefined, livemode: boolean): Json {
  return { id: randomId('pm_1', 23), object: 'payment_method', billing_details: billingDetails(billing), created: now(), customer: null, livemode, metadata: {}, type, [type]: details };
}

function cardFromNumber(number: string, expMonth: number, expYear: number, cvc?: string): Json {
  return {
    brand: cardBrand(number), checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: cvc ? 'pass' : null },
    country: 'US', exp_month: expMonth, exp_year: expYear, fingerprint: randomId('', 16), funding: DEBIT_CARDS.has(number) ? 'debit' : 'credit',
    last4: number.slice(-4), networks: { available: [cardBrand(number)], preferred: null }, wallet: null,
  };
}

/** `tok_visa` / `pm_card_visa` style shortcuts become a fresh PaymentMethod, like Stripe's test mode. */
function fromShortcut(id: string, livemode: boolean): StoredPm | undefined {
  const name = id.startsWith('pm_card_') ? id.slice('pm_card_'.length) : id.startsWith('tok_') ? id.slice('tok_'.length) : undefined;
  const number = name === undefined ? undefined : TEST_CARDS[name];
  if (!number) return undefined;
  const stored = { json: pmJson('card', cardFromNumber(number, 12, new Date().getUTCFullYear() + 3, '123'), undefined, livemode), decline: declineOf(number) };
  state.paymentMethods.set(stored.json.id, stored);
  return stored;
}

function createCardPm(p: Params, livemode: boolean, rawCards = false): StoredPm {
  const card = p.card as Params | undefined;
  if (!card || typeof card !== 'object') throw missing('card');
  if (card.token !== undefined) {
    const stored = fromShortcut(String(card.token), livemode);
    if (!stored) throw noSuch('token', String(card.token), 'card[token]');
    return stored;
  }
  const number = String(card.number ?? '').replace(/\s+/g, '');
  if (!number) throw missing('card[number]');
  // Real accounts refuse raw card numbers unless Stripe enabled raw card data access for them.
  if (!rawCards) throw invalid(RAW_CARDS_REFUSED);
  if (!/^\d+$/.test(number) || !luhnValid(number)) throw cardError('incorrect_number', 'Your card number is incorrect.', 'number');
  const expMonth = int(card, 'exp_month', true)!;
  const expYear = int(card, 'exp_year', true)!;
  if (expMonth < 1 || expMonth > 12) throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'exp_month');
  const fullYear = expYear < 100 ? 2000 + expYear : expYear;
  if (fullYear < new Date().getUTCFullYear()) throw cardError('invalid_expiry_year', "Your card's expiration year is invalid.", 'exp_year');
  if (card.cvc !== undefined && !/^\d{3,4}$/.test(String(card.cvc))) throw cardError('invalid_cvc', "Your card's security code is invalid.", 'cvc');
  // Only brand/last4/expiry are kept, like Stripe: the full number never leaves this function.
  const stored = { json: pmJson('card', cardFromNumber(number, expMonth, fullYear, card.cvc), p.billing_details, livemode), decline: declineOf(number) };
  state.paymentMethods.set(stored.json.id, stored);
  return stored;
}

function createPaymentMethod(p: Params, livemode: boolean, rawCards: boolean): Json {
  rejectUnknown(p, ['type', 'card', 'billing_details', 'metadata', 'expand']);
  if (!p.type) throw missing('type');
  if (p.type !== 'card') throw invalid(`This emulator creates PaymentMethods of type card only; send ${p.type} as payment_method_data on the PaymentIntent`, { param: 'type' });
  return createCardPm(p, livemode, rawCards).json;
}

const RAW_CARDS_REFUSED = 'Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.';

/**
 * API versions (stripe.md section 2): a call without Stripe-Version runs on the account's default version.
 * The emulated accounts default to 2026-10-28.endive, where PaymentIntent create has no payment_method_types
 * (it takes allowed_payment_method_types / excluded_payment_method_types): a client that does not pin the
 * version it was written for breaks here as it would at Stripe.
 */
export const STRIPE_ACCOUNT_DEFAULT_VERSION = '2026-10-28.endive';
const ENDIVE = '2026-10-28';
const VERSION_FORMAT = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/;
const isEndiveOrLater = (version: string) => version.slice(0, 10) >= ENDIVE;

/** `payment_method_data` on a PaymentIntent: pix and boleto (RouteGate's profile), card only by token. */
function pmFromData(d: Params, livemode: boolean): StoredPm {
  const type = d.type;
  if (!type) throw missing('payment_method_data[type]');
  if (type === 'card') {
    if (!d.card?.token) throw invalid('Sending credit card numbers directly to the Stripe API is generally unsafe. Create a PaymentMethod first, or send payment_method_data[card][token].', { param: 'payment_method_data[card]' });
    return createCardPm(d, livemode);
  }
  if (type === 'pix') return keep({ json: pmJson('pix', {}, d.billing_details, livemode) });
  if (type === 'boleto') {
    const taxId = String(d.boleto?.tax_id ?? '').replace(/\D+/g, '');
    if (!d.boleto?.tax_id) throw missing('payment_method_data[boleto][tax_id]');
    if (taxId.length !== 11 && taxId.length !== 14) throw invalid('Invalid tax_id: use a CPF (11 digits) or CNPJ (14 digits).', { code: 'parameter_invalid_string', param: 'payment_method_data[boleto][tax_id]' });
    if (!d.billing_details?.name) throw missing('payment_method_data[billing_details][name]');
    if (!d.billing_details?.email) throw missing('payment_method_data[billing_details][email]');
    // stripe.md section 2: a boleto needs the billing address (line1, city, state as the UF, postal_code, country BR).
    const a = (d.billing_details.address ?? {}) as Params;
    for (const f of ['line1', 'city', 'state', 'postal_code', 'country']) {
      if (!a[f]) throw missing(`payment_method_data[billing_details][address][${f}]`);
    }
    if (!/^\d{5}-?\d{3}$/.test(String(a.postal_code))) throw invalid('Invalid postal_code for BR: use XXXXX-XXX or 8 digits.', { code: 'postal_code_invalid', param: 'payment_method_data[billing_details][address][postal_code]' });
    if (!/^[A-Z]{2}$/.test(String(a.state))) throw invalid('Invalid state: use the two-letter UF.', { param: 'payment_method_data[billing_details][address][state]' });
    return keep({ json: pmJson('boleto', { fingerprint: randomId('', 16), tax_id: taxId }, d.billing_details, livemode) });
  }
  throw invalid(`Invalid payment_method_data[type]: ${type}`, { code: 'parameter_invalid_string', param: 'payment_method_data[type]' });
}

function keep(stored: StoredPm): StoredPm {
  state.paymentMethods.set(stored.json.id, stored);
  return stored;
}

function resolvePm(id: string, livemode: boolean): StoredPm {
  const stored = state.paymentMethods.get(id) ?? fromShortcut(id, livemode);
  if (!stored) throw noSuch('PaymentMethod', id, 'payment_method');
  return stored;
}

// ---------------------------------------------------------------------------------------------- payment intents

const PI_PARAMS = [
  'amount', 'currency', 'payment_method', 'payment_method_types', 'payment_method_data', 'payment_method_options', 'confirm',
  'capture_method', 'customer', 'description', 'metadata', 'receipt_email', 'statement_descriptor_suffix', 'return_url', 'off_session',
  'setup_future_usage', 'expand', 'automatic_payment_methods', 'confirmation_method', 'error_on_requires_action', 'shipping',
  'transfer_data', 'application_fee_amount', 'on_behalf_of', 'transfer_group',
];
const METHOD_TYPES = ['card', 'pix', 'boleto'];
const CANCELLABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

function intentView(pi: Json, expand: string[]): Json {
  for (const e of expand) {
    if (!['latest_charge', 'payment_method', 'customer'].includes(e)) throw invalid(`This property cannot be expanded (${e}).`, { param: 'expand' });
  }
  const view: Json = { ...pi };
  if (expand.includes('latest_charge') && pi.latest_charge) view.latest_charge = state.charges.get(pi.latest_charge) ?? pi.latest_charge;
  if (expand.includes('payment_method') && pi.payment_method) view.payment_method = state.paymentMethods.get(pi.payment_method)?.json ?? pi.payment_method;
  if (expand.includes('customer') && pi.customer) view.customer = state.customers.get(pi.customer) ?? pi.customer;
  return view;
}

function findIntent(id: string, param?: string): Json {
  const pi = state.intents.get(id);
  if (!pi) throw noSuch('payment_intent', id, param);
  return pi;
}

function unexpectedState(pi: Json, message: string): StripeError {
  return invalid(message, { code: 'payment_intent_unexpected_state', doc_url: `${DOCS}/payment-intent-unexpected-state`, payment_intent: { ...pi } });
}

function methodOptions(p: Params, types: string[], captureMethod: string): Json {
  const o = (p.payment_method_options ?? {}) as Params;
  const out: Json = {};
  if (types.includes('card')) {
    const plan = o.card?.installments?.plan;
    out.card = {
      installments: plan ? { enabled: true, plan: { count: int(plan, 'count'), interval: plan.interval ?? 'month', type: plan.type ?? 'fixed_count' } } : null,
      request_three_d_secure: 'automatic', ...(o.card?.capture_method ? { capture_method: o.card.capture_method } : {}),
    };
    if (captureMethod === 'manual' && types.some((t) => t !== 'card')) throw invalid('capture_method manual is only supported for card payments.', { param: 'capture_method' });
  }
  if (types.includes('pix')) {
    const seconds = int(o.pix ?? {}, 'expires_after_seconds');
    if (seconds !== undefined && (seconds < 10 || seconds > 1209600)) throw invalid('expires_after_seconds must be between 10 and 1209600.', { param: 'payment_method_options[pix][expires_after_seconds]' });
    out.pix = { expires_after_seconds: seconds ?? (o.pix?.expires_at ? null : 86400), expires_at: int(o.pix ?? {}, 'expires_at') ?? null };
  }
  if (types.includes('boleto')) {
    const days = int(o.boleto ?? {}, 'expires_after_days') ?? 3;
    if (days < 0 || days > 60) throw invalid('expires_after_days must be between 0 and 60.', { param: 'payment_method_options[boleto][expires_after_days]' });
    out.boleto = { expires_after_days: days };
  }
  return out;
}

function createIntent(p: Params, livemode: boolean, version: string = STRIPE_ACCOUNT_DEFAULT_VERSION): Json {
  if (isEndiveOrLater(version)) {
    rejectUnknown(p, [...PI_PARAMS.filter((k) => k !== 'payment_method_types'), 'allowed_payment_method_types', 'excluded_payment_method_types']);
    p = { ...p, payment_method_types: p.allowed_payment_method_types };
    delete p.allowed_payment_method_types;
    delete p.excluded_payment_method_types;
  } else {
    rejectUnknown(p, PI_PARAMS);
  }
  const amount = int(p, 'amount', true)!;
  if (!p.currency) throw missing('currency');
  const currency = String(p.currency).toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${p.currency}.`, { param: 'currency' });
  if (amount < 50) throw invalid(`Amount must be at least ${currency === 'brl' ? 'R$0.50 brl' : '$0.50 usd'}`, { code: 'amount_too_small', param: 'amount', doc_url: `${DOCS}/amount-too-small` });
  if (amount > 99999999) throw invalid('Amount must be no more than 999,999.99', { code: 'amount_too_large', param: 'amount' });
  const confirm = bool(p, 'confirm') ?? false;
  const captureMethod = oneOf(p, 'capture_method', ['automatic', 'automatic_async', 'manual'], 'automatic_async')!;
  if (p.customer && !state.customers.has(p.customer)) throw noSuch('customer', p.customer, 'customer');
  const pm = p.payment_method ? resolvePm(String(p.payment_method), livemode) : p.payment_method_data ? pmFromData(p.payment_method_data, livemode) : undefined;
  let types = list(p.payment_method_types);
  if (types.length === 0) {
    // stripe.md section 2 gotcha: automatic payment methods + confirm need a return_url.
    if (confirm && !p.return_url && p.automatic_payment_methods?.allow_redirects !== 'never') {
      throw invalid('A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.');
    }
    types = [pm?.json.type ?? 'card'];
  }
  const badType = types.find((t) => !METHOD_TYPES.includes(t));
  if (badType) throw invalid(`The payment method type "${badType}" is invalid. Please ensure the provided type is activated in your dashboard (https://dashboard.stripe.com/account/payments/settings) and your account is enabled for any preview features that you are trying to use.`, { param: 'payment_method_types' });
  if (pm && !types.includes(pm.json.type)) {
    throw invalid(`The PaymentMethod provided (${pm.json.type}) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${types.join(', ')}.`, { param: 'payment_method' });
  }
  if (types.some((t) => t !== 'card') && currency !== 'brl') throw invalid(`The currency provided (${currency}) is invalid. Payments with ${types.join(', ')} support the following currencies: brl.`, { param: 'currency' });
  const options = methodOptions(p, types, captureMethod);
  const id = randomId('pi_3', 23);
  const pi: Json = {
    id, object: 'payment_intent', amount, amount_capturable: 0, amount_details: { tip: {} }, amount_received: 0, application: null,
    application_fee_amount: null, automatic_payment_methods: null, canceled_at: null, cancellation_reason: null, capture_method: captureMethod,
    client_secret: `${id}_secret_${randomId('', 25)}`, confirmation_method: 'automatic', created: now(), currency, customer: p.customer ?? null,
    description: p.description ?? null, last_payment_error: null, latest_charge: null, livemode, metadata: metadataOf(p), next_action: null,
    on_behalf_of: null, payment_method: pm?.json.id ?? null, payment_method_options: options, payment_method_types: types, processing: null,
    receipt_email: p.receipt_email ?? null, review: null, setup_future_usage: null, shipping: null, source: null, statement_descriptor: null,
    statement_descriptor_suffix: p.statement_descriptor_suffix ?? null, status: pm ? 'requires_confirmation' : 'requires_payment_method',
    transfer_data: null, transfer_group: null,
  };
  state.intents.set(id, pi);
  if (confirm) {
    if (!pm) throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.", { code: 'payment_intent_unexpected_state', param: 'payment_method' });
    confirmIntent(pi, pm);
  }
  return pi;
}

function newCharge(pi: Json, pm: StoredPm, outcome: { paid: boolean; captured: boolean; decline?: StripeDecline }): Json {
  const ch: Json = {
    id: randomId('ch_3', 23), object: 'charge', amount: pi.amount, amount_captured: outcome.captured ? pi.amount : 0, amount_refunded: 0,
    balance_transaction: outcome.captured ? randomId('txn_3', 23) : null, billing_details: pm.json.billing_details, captured: outcome.captured,
    created: now(), currency: pi.currency, customer: pi.customer, description: pi.description,
    failure_code: outcome.decline?.code ?? null, failure_message: outcome.decline?.message ?? null, livemode: pi.livemode, metadata: pi.metadata,
    outcome: outcome.decline
      ? { network_status: 'declined_by_network', reason: outcome.decline.decline_code, risk_level: 'normal', seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' }
      : { network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
    paid: outcome.paid, payment_intent: pi.id, payment_method: pm.json.id,
    payment_method_details: { type: pm.json.type, [pm.json.type]: pm.json.type === 'card' ? { ...pm.json.card, installments: pi.payment_method_options.card?.installments?.plan ? { plan: pi.payment_method_options.card.installments.plan } : null } : {} },
    receipt_email: pi.receipt_email, refunded: false, status: outcome.decline ? 'failed' : 'succeeded',
  };
  state.charges.set(ch.id, ch);
  return ch;
}

/** Confirmation: cards authorize (or decline with 402), pix and boleto wait for the payer (requires_action). */
function confirmIntent(pi: Json, pm: StoredPm): void {
  if (pm.json.type === 'card') return confirmCard(pi, pm);
  pi.payment_method = pm.json.id;
  pi.status = 'requires_action';
  pi.next_action = pm.json.type === 'pix' ? pixAction(pi) : boletoAction(pi);
}

function confirmCard(pi: Json, pm: StoredPm): void {
  const manual = pi.capture_method === 'manual';
  if (pm.decline) {
    const ch = newCharge(pi, pm, { paid: false, captured: false, decline: pm.decline });
    const doc = `${DOCS}/${pm.decline.code.replace(/_/g, '-')}`;
    Object.assign(pi, {
      status: 'requires_payment_method', latest_charge: ch.id, payment_method: null,
      last_payment_error: { type: 'card_error', charge: ch.id, code: pm.decline.code, decline_code: pm.decline.decline_code, doc_url: doc, message: pm.decline.message, payment_method: pm.json },
    });
    throw new StripeError(402, {
      error: {
        charge: ch.id, code: pm.decline.code, decline_code: pm.decline.decline_code, doc_url: doc, message: pm.decline.message,
        payment_intent: { ...pi }, payment_method: pm.json, request_log_url: `https://dashboard.stripe.com/test/logs/${randomId('req_', 14)}`, type: 'card_error',
      },
    });
  }
  const ch = newCharge(pi, pm, { paid: true, captured: !manual });
  Object.assign(pi, {
    payment_method: pm.json.id, latest_charge: ch.id, status: manual ? 'requires_capture' : 'succeeded',
    amount_capturable: manual ? pi.amount : 0, amount_received: manual ? 0 : pi.amount,
  });
}



function pixAction(pi: Json): Json {
  const o = pi.payment_method_options.pix;
  const expiresAt = o.expires_at ?? now() + o.expires_after_seconds;
  const brCode = pixBrCode({ key: randomUuid(), amountReais: pi.amount / 100, merchantName: 'STRIPE PAGAMENTOS', city: 'SAO PAULO', txid: pi.id.replace(/[^A-Za-z0-9]/g, '') });
  const ref = `test_${randomId('', 40)}`;
  return {
    type: 'pix_display_qr_code',
    pix_display_qr_code: {
      data: brCode, expires_at: expiresAt, hosted_instructions_url: `https://payments.stripe.com/pix/instructions/${ref}`,
      image_url_png: `https://qr.stripe.com/${ref}.png`, image_url_svg: `https://qr.stripe.com/${ref}.svg`,
    },
  };
}

/** Boletos expire at 23:59:59 America/Sao_Paulo (UTC-3) `expires_after_days` days from today. */
function boletoAction(pi: Json): Json {
  const sp = new Date(Date.now() - 3 * 3600_000);
  const expiresAt = Date.UTC(sp.getUTCFullYear(), sp.getUTCMonth(), sp.getUTCDate() + pi.payment_method_options.boleto.expires_after_days, 23, 59, 59) / 1000 + 3 * 3600;
  const voucher = `https://payments.stripe.com/boleto/voucher/test_${randomId('', 40)}`;
  return {
    type: 'boleto_display_details',
    boleto_display_details: { expires_at: expiresAt, hosted_voucher_url: voucher, number: `23793${randomDigits(42)}`, pdf: `${voucher}/pdf` },
  };
}

function captureIntent(pi: Json, p: Params): Json {
  rejectUnknown(p, ['amount_to_capture', 'metadata', 'expand', 'final_capture', 'statement_descriptor_suffix', 'application_fee_amount']);
  if (pi.status !== 'requires_capture') {
    throw unexpectedState(pi, `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`);
  }
  const amount = int(p, 'amount_to_capture') ?? pi.amount_capturable;
  if (amount < 1 || amount > pi.amount_capturable) {
    throw invalid(`The amount_to_capture (${amount}) must be positive and no greater than the amount_capturable (${pi.amount_capturable}).`, { code: 'amount_too_large', param: 'amount_to_capture' });
  }
  const ch = state.charges.get(pi.latest_charge)!;
  Object.assign(ch, { captured: true, amount_captured: amount, balance_transaction: randomId('txn_3', 23) });
  Object.assign(pi, { status: 'succeeded', amount_received: amount, amount_capturable: 0, metadata: { ...pi.metadata, ...metadataOf(p) } });
  return pi;
}

function cancelIntent(pi: Json, p: Params): Json {
  rejectUnknown(p, ['cancellation_reason', 'expand']);
  const reason = oneOf(p, 'cancellation_reason', ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']);
  if (!CANCELLABLE.includes(pi.status)) {
    throw unexpectedState(pi, `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELLABLE.join(', ')}.`);
  }
  // Cancelling an authorization releases the hold: the uncaptured charge is marked refunded.
  const ch = pi.status === 'requires_capture' ? state.charges.get(pi.latest_charge) : undefined;
  if (ch) Object.assign(ch, { amount_refunded: ch.amount, refunded: true });
  Object.assign(pi, { status: 'canceled', canceled_at: now(), cancellation_reason: reason ?? null, amount_capturable: 0, next_action: null });
  return pi;
}

/** Emulator-only hooks (no such Stripe route): the payer pays or lets a pix/boleto expire. */
function settleVoucher(pi: Json, outcome: 'pay' | 'expire'): Json {
  if (pi.status !== 'requires_action') throw unexpectedState(pi, `Only a PaymentIntent in requires_action can be simulated; this one is ${pi.status}.`);
  const pm = state.paymentMethods.get(pi.payment_method)!;
  if (outcome === 'pay') {
    const ch = newCharge(pi, pm, { paid: true, captured: true });
    Object.assign(pi, { status: 'succeeded', latest_charge: ch.id, amount_received: pi.amount, next_action: null });
  } else {
    Object.assign(pi, {
      status: 'requires_payment_method', next_action: null, payment_method: null,
      last_payment_error: { type: 'invalid_request_error', code: 'payment_intent_payment_attempt_expired', message: `The payment attempt for this ${pm.json.type} PaymentIntent expired.`, payment_method: pm.json },
    });
  }
  return pi;
}

// ---------------------------------------------------------------------------------------------- search, ledger

/**
 * GET /v1/payment_intents/search: newest first, `limit` 1..100 (default 10), `page` the opaque cursor of a
 * previous `next_page`; `expand[]=data.<field>` expands inside each result, `expand[]=total_count` adds the count.
 * Unlike real Stripe, results are never stale (Stripe's index can lag up to a minute behind writes).
 */
function searchIntents(p: Params, expand: string[]): Json {
  rejectUnknown(p, ['query', 'limit', 'page']);
  const query = parseSearchQuery(p.query);
  const limit = int(p, 'limit') ?? 10;
  if (limit < 1 || limit > 100) throw invalid('Invalid limit: must be between 1 and 100.', { code: 'parameter_invalid_integer', param: 'limit' });
  const offset = p.page === undefined ? 0 : pageOffset(p.page);
  const nested = expand.filter((e) => e !== 'total_count').map((e) => {
    if (!e.startsWith('data.')) throw invalid(`This property cannot be expanded (${e}).`, { param: 'expand' });
    return e.slice('data.'.length);
  });
  const found = [...state.intents.values()].filter((pi) => matchesSearch(pi, query)).reverse();
  const hasMore = offset + limit < found.length;
  return {
    object: 'search_result', url: '/v1/payment_intents/search', has_more: hasMore,
    data: found.slice(offset, offset + limit).map((pi) => intentView(pi, nested)),
    next_page: hasMore ? Buffer.from(JSON.stringify({ offset: offset + limit })).toString('base64url') : null,
    ...(expand.includes('total_count') ? { total_count: found.length } : {}),
  };
}

function pageOffset(page: unknown): number {
  try {
    const offset = JSON.parse(Buffer.from(String(page), 'base64url').toString('utf8')).offset;
    if (Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // fall through to the error Stripe gives for a cursor it did not issue
  }
  throw invalid(`Invalid page: ${String(page)}`, { code: 'parameter_invalid_string', param: 'page' });
}

/** One ledger entry per PaymentIntent, declined ones included (Stripe keeps them as requires_payment_method). */
function ledgerOf(s: State): Array<Omit<LedgerEntry, 'gateway'>> {
  return [...s.intents.values()].map((pi) => {
    const ch = pi.latest_charge ? s.charges.get(pi.latest_charge) : undefined;
    const type = pi.payment_method_types[0];
    const debit = pi.metadata.rg_payment_method === 'debit_card' || ch?.payment_method_details?.card?.funding === 'debit';
    return {
      id: pi.id, reference: pi.metadata.rg_charge_id ?? null, paymentMethod: type === 'card' ? (debit ? 'debit_card' : 'credit_card') : type,
      status: pi.status, amount: pi.amount, paidAmount: pi.amount_received,
      // Cancelling an authorization marks its charge refunded; that releases a hold, it refunds nothing.
      refundedAmount: ch?.captured ? ch.amount_refunded : 0,
      refunds: [...s.refunds.values()].filter((r) => r.payment_intent === pi.id).length,
    };
  });
}

// ---------------------------------------------------------------------------------------------- refunds, customers

function createRefund(p: Params): Json {
  rejectUnknown(p, ['payment_intent', 'charge', 'amount', 'reason', 'metadata', 'expand', 'refund_application_fee', 'reverse_transfer']);
  if (!p.payment_intent && !p.charge) throw invalid('One of the following params should be provided for this request: payment_intent or charge.', { code: 'parameter_missing' });
  const ch = p.charge ? state.charges.get(p.charge) : undefined;
  if (p.charge && !ch) throw noSuch('charge', p.charge, 'charge');
  const pi = ch ? state.intents.get(ch.payment_intent)! : findIntent(String(p.payment_intent), 'payment_intent');
  const reason = oneOf(p, 'reason', ['duplicate', 'fraudulent', 'requested_by_customer']);
  const charge = ch ?? (pi.latest_charge ? state.charges.get(pi.latest_charge) : undefined);
  if (!charge || charge.status !== 'succeeded') throw unexpectedState(pi, `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`);
  if (!charge.captured) throw unexpectedState(pi, `Charge ${charge.id} has not been captured; cancel the PaymentIntent to release the authorization.`);
  if (pi.payment_method_types.includes('boleto')) throw invalid('Boleto payments cannot be refunded.', { code: 'charge_not_refundable', param: 'payment_intent' });
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (remaining <= 0) throw invalid(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded', doc_url: `${DOCS}/charge-already-refunded` });
  const amount = int(p, 'amount') ?? remaining;
  if (amount < 1) throw invalid('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
  if (amount > remaining) throw invalid(`Refund amount (${reais(amount)}) is greater than unrefunded amount on charge (${reais(remaining)})`, { code: 'amount_too_large', param: 'amount' });
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded >= charge.amount_captured;
  const refund = {
    id: randomId('re_3', 23), object: 'refund', amount, balance_transaction: randomId('txn_3', 23), charge: charge.id, created: now(),
    currency: charge.currency, destination_details: { type: pi.payment_method_types[0], [pi.payment_method_types[0]]: {} }, metadata: metadataOf(p),
    payment_intent: pi.id, reason: reason ?? null, receipt_number: null, source_transfer_reversal: null, status: 'succeeded', transfer_reversal: null,
  };
  state.refunds.set(refund.id, refund);
  return refund;
}

const TAX_ID_DIGITS: Record<string, number> = { br_cpf: 11, br_cnpj: 14 };

function createCustomer(p: Params, livemode: boolean): Json {
  rejectUnknown(p, ['name', 'email', 'phone', 'description', 'metadata', 'address', 'shipping', 'tax_id_data', 'preferred_locales', 'expand', 'invoice_settings', 'payment_method']);
  if (p.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(p.email)) throw invalid(`Invalid email address: ${p.email}`, { code: 'email_invalid', param: 'email' });
  const id = randomId('cus_', 14);
  const taxIds = Object.values((p.tax_id_data ?? {}) as Json).map((t: Params, i) => {
    if (!t.type) throw missing(`tax_id_data[${i}][type]`);
    if (!t.value) throw missing(`tax_id_data[${i}][value]`);
    const want = TAX_ID_DIGITS[t.type];
    if (want && String(t.value).replace(/\D+/g, '').length !== want) throw invalid(`Invalid value for ${t.type}.`, { code: 'tax_id_invalid', param: `tax_id_data[${i}][value]` });
    return { id: randomId('txi_', 24), object: 'tax_id', country: 'BR', created: now(), customer: id, livemode, type: t.type, value: String(t.value), verification: null };
  });
  const customer: Json = {
    id, object: 'customer', address: p.address ? billingDetails({ address: p.address }).address : null, balance: 0, created: now(), currency: null,
    default_source: null, delinquent: false, description: p.description ?? null, email: p.email ?? null, invoice_prefix: randomId('', 8).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null }, livemode,
    metadata: metadataOf(p), name: p.name ?? null, next_invoice_sequence: 1, phone: p.phone ?? null, preferred_locales: list(p.preferred_locales),
    shipping: null, tax_exempt: 'none', test_clock: null,
  };
  state.customers.set(id, customer);
  state.taxIds.set(id, taxIds);
  return customer;
}

function customerView(c: Json, expand: string[]): Json {
  if (!expand.includes('tax_ids')) return c;
  const data = state.taxIds.get(c.id) ?? [];
  return { ...c, tax_ids: { object: 'list', data, has_more: false, total_count: data.length, url: `/v1/customers/${c.id}/tax_ids` } };
}

// ---------------------------------------------------------------------------------------------- http

const API_KEY_MISSING = "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";

function apiKeyOf(req: FastifyRequest): string | undefined {
  const [scheme, value] = String(req.headers.authorization ?? '').split(' ');
  if (/^bearer$/i.test(scheme ?? '')) return value?.trim() || undefined;
  if (/^basic$/i.test(scheme ?? '') && value) return Buffer.from(value, 'base64').toString('utf8').split(':')[0] || undefined;
  return undefined;
}

/** Stripe shows only the key's mode prefix and last four characters. */
function maskKey(key: string): string {
  const prefix = /^(sk|rk)_(test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}${'*'.repeat(Math.max(4, key.length - prefix.length - 4))}${key.slice(-4)}`;
}

function authError(key: string | undefined): Json | undefined {
  if (!key) return { error: { type: 'invalid_request_error', message: API_KEY_MISSING } };
  if (key.includes('invalid') || !/^(sk|rk)_(test|live)_/.test(key)) {
    return { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${maskKey(key)}` } };
  }
  return undefined;
}

/** Sorted-key JSON so that the same parameters in another order count as the same request. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Json)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

interface Call { params: Params; livemode: boolean; id: string; expand: string[]; version: string; rawCards: boolean }
type Handler = (call: Call) => Json;

/** Auth, parameter decoding, idempotency replay (stripe.md section 1) and error bodies for every route. */
function routeFor(own: State, handler: Handler) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    state = own;
    reply.header('request-id', randomId('req_', 14));
    const key = apiKeyOf(req);
    const denied = authError(key);
    if (denied) return reply.code(401).send(denied);
    const pinned = req.headers['stripe-version'];
    if (pinned !== undefined && (typeof pinned !== 'string' || !VERSION_FORMAT.test(pinned))) {
      return reply.code(400).send({ error: { type: 'invalid_request_error', message: `Invalid Stripe API version: ${String(pinned)}` } });
    }
    const version = typeof pinned === 'string' ? pinned : STRIPE_ACCOUNT_DEFAULT_VERSION;
    reply.header('stripe-version', version);
    const body = req.body && typeof req.body === 'object' ? (req.body as Params) : {};
    const params: Params = { ...queryParams(req), ...body };
    const endpoint = req.url.split('?')[0].replace(/^\/stripe/, '');
    const idemKey = req.method === 'POST' ? (req.headers['idempotency-key'] as string | undefined) : undefined;
    const slot = idemKey ? `${key}\n${idemKey}` : undefined;
    const prior = slot ? state.idempotency.get(slot) : undefined;
    if (prior) {
      if (prior.endpoint !== endpoint) {
        return reply.code(400).send({ error: { type: 'invalid_request_error', message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${prior.endpoint}' vs '${endpoint}'). Try using a key other than '${idemKey}' if you meant to execute a different request.` } });
      }
      if (prior.params !== stable(params)) {
        return reply.code(400).send({ error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.` } });
      }
      return reply.code(prior.status).header('idempotent-replayed', 'true').send(prior.body);
    }
    let status = 200;
    let out: unknown;
    try {
      const { expand, ...rest } = params;
      out = handler({
        params: rest, livemode: key!.includes('_live_'), id: (req.params as { id?: string }).id ?? '', expand: list(expand), version,
        // Emulated accounts whose secret key contains "rawcard" have raw card data access (the real one is granted by Stripe).
        rawCards: key!.includes('rawcard'),
      });
    } catch (err) {
      if (err instanceof StripeError) {
        status = err.status;
        out = err.body;
      } else {
        req.log.error({ err }, 'stripe emulator handler failed');
        status = 500;
        out = { error: { type: 'api_error', message: 'An unknown error occurred' } };
      }
    }
    // Stripe saves whatever an endpoint that began executing answered, "including 402 declines and 500s"
    // (stripe.md section 1); a 400 from parameter validation saves nothing and can be retried with the same key.
    if (slot && (status === 200 || status === 402 || status >= 500)) state.idempotency.set(slot, { status, body: out, endpoint, params: stable(params) });
    return reply.code(status).send(out);
  };
}

export const stripeEmulator: EmulatorPlugin = async (app, opts) => {
  const own = newState();
  opts.control.onReset(() => reset(own));
  opts.control.onLedger('stripe', () => ledgerOf(own));
  const route = (handler: Handler) => routeFor(own, handler);
  opts.control.onPay('stripe', (id) => {
    const pi = own.intents.get(id);
    if (!pi) return { ok: false, status: 404, message: `No such payment_intent: '${id}'` };
    if (pi.status !== 'requires_action') return { ok: false, status: 409, message: `payment_intent ${id} is ${pi.status}, not awaiting the payer` };
    state = own;
    settleVoucher(pi, 'pay');
    return { ok: true };
  });

  app.post('/v1/payment_methods', route(({ params, livemode, rawCards }) => createPaymentMethod(params, livemode, rawCards)));
  app.get('/v1/payment_methods/:id', route(({ id }) => {
    const pm = state.paymentMethods.get(id);
    if (!pm) throw noSuch('PaymentMethod', id);
    return pm.json;
  }));

  app.post('/v1/payment_intents', route(({ params, livemode, expand, version }) => intentView(createIntent(params, livemode, version), expand)));
  app.get('/v1/payment_intents/search', route(({ params, expand }) => searchIntents(params, expand)));
  app.get('/v1/payment_intents/:id', route(({ id, expand }) => intentView(findIntent(id), expand)));
  app.post('/v1/payment_intents/:id/confirm', route(({ id, params, livemode, expand }) => {
    const pi = findIntent(id);
    if (!['requires_payment_method', 'requires_confirmation'].includes(pi.status)) {
      throw unexpectedState(pi, `This PaymentIntent's status is ${pi.status}, but it must be requires_payment_method or requires_confirmation to be confirmed.`);
    }
    rejectUnknown(params, ['payment_method', 'payment_method_data', 'return_url', 'off_session', 'receipt_email']);
    const pm = params.payment_method ? resolvePm(String(params.payment_method), livemode)
      : params.payment_method_data ? pmFromData(params.payment_method_data, livemode) : pi.payment_method ? state.paymentMethods.get(pi.payment_method) : undefined;
    if (!pm) throw missing('payment_method');
    pi.last_payment_error = null;
    confirmIntent(pi, pm);
    return intentView(pi, expand);
  }));
  app.post('/v1/payment_intents/:id/capture', route(({ id, params, expand }) => intentView(captureIntent(findIntent(id), params), expand)));
  app.post('/v1/payment_intents/:id/cancel', route(({ id, params, expand }) => intentView(cancelIntent(findIntent(id), params), expand)));

  app.get('/v1/charges/:id', route(({ id }) => {
    const ch = state.charges.get(id);
    if (!ch) throw noSuch('charge', id);
    return ch;
  }));
  app.post('/v1/refunds', route(({ params }) => createRefund(params)));
  app.get('/v1/refunds/:id', route(({ id }) => {
    const re = state.refunds.get(id);
    if (!re) throw noSuch('refund', id);
    return re;
  }));

  app.post('/v1/customers', route(({ params, livemode, expand }) => customerView(createCustomer(params, livemode), expand)));
  app.get('/v1/customers/:id', route(({ id, expand }) => {
    const c = state.customers.get(id);
    if (!c) throw noSuch('customer', id);
    return customerView(c, expand);
  }));

  app.post('/_emulator/payment_intents/:id/pay', route(({ id }) => settleVoucher(findIntent(id), 'pay')));
  app.post('/_emulator/payment_intents/:id/expire', route(({ id }) => settleVoucher(findIntent(id), 'expire')));

  // Stripe checks the key first, then answers unknown routes with its own 404 body.
  app.setNotFoundHandler((req, reply) => {
    const denied = authError(apiKeyOf(req));
    if (denied) return reply.code(401).send(denied);
    return reply.code(404).send({
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url.replace(/^\/stripe/, '')}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` },
    });
  });
};
