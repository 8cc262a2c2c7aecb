import { pixBrCode, randomDigits, randomId, randomUuid, unixNow as now } from '../../sandbox/core';
import { type Params, type Json, type StripeDecline, DOCS, StripeError, invalid, missing, noSuch, int, bool, list, oneOf, rejectUnknown, metadataOf } from './emulator-wire';
import { type State, type StoredPm, pmFromData, resolvePm } from './emulator-payment-methods';
import { destinationOf } from './emulator-connect';

// Stripe PaymentIntents for the emulator (shared/gateways/stripe.md): create (per API version), confirm (cards
// authorize or decline with 402, pix and boleto wait for the payer), capture, cancel. Amounts are integer cents.

/**
 * API versions (stripe.md section 2): a call without Stripe-Version runs on the account's default version.
 * The emulated accounts default to 2026-10-28.endive, where PaymentIntent create has no payment_method_types
 * (it takes allowed_payment_method_types / excluded_payment_method_types): a client that does not pin the
 * version it was written for breaks here as it would at Stripe.
 */
export const STRIPE_ACCOUNT_DEFAULT_VERSION = '2026-10-28.endive';
const ENDIVE = '2026-10-28';
export const VERSION_FORMAT = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/;
const isEndiveOrLater = (version: string) => version.slice(0, 10) >= ENDIVE;

// ---------------------------------------------------------------------------------------------- payment intents

const PI_PARAMS = [
  'amount', 'currency', 'payment_method', 'payment_method_types', 'payment_method_data', 'payment_method_options', 'confirm',
  'capture_method', 'customer', 'description', 'metadata', 'receipt_email', 'statement_descriptor_suffix', 'return_url', 'off_session',
  'setup_future_usage', 'expand', 'automatic_payment_methods', 'confirmation_method', 'error_on_requires_action', 'shipping',
  'transfer_data', 'application_fee_amount', 'on_behalf_of', 'transfer_group',
];
const METHOD_TYPES = ['card', 'pix', 'boleto'];
const CANCELLABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

export function intentView(s: State, pi: Json, expand: string[]): Json {
  for (const e of expand) {
    if (!['latest_charge', 'payment_method', 'customer'].includes(e)) throw invalid(`This property cannot be expanded (${e}).`, { param: 'expand' });
  }
  const view: Json = { ...pi };
  if (expand.includes('latest_charge') && pi.latest_charge) view.latest_charge = s.charges.get(pi.latest_charge) ?? pi.latest_charge;
  if (expand.includes('payment_method') && pi.payment_method) view.payment_method = s.paymentMethods.get(pi.payment_method)?.json ?? pi.payment_method;
  if (expand.includes('customer') && pi.customer) view.customer = s.customers.get(pi.customer) ?? pi.customer;
  return view;
}

export function findIntent(s: State, id: string, param?: string): Json {
  const pi = s.intents.get(id);
  if (!pi) throw noSuch('payment_intent', id, param);
  return pi;
}

export function unexpectedState(pi: Json, message: string): StripeError {
  return invalid(message, { code: 'payment_intent_unexpected_state', doc_url: `${DOCS}/payment-intent-unexpected-state`, payment_intent: { ...pi } });
}

function methodOptions(p: Params, types: string[], captureMethod: string): Json {
  const o = (p.payment_method_options ?? {}) as Params;
  const out: Json = {};
  if (types.includes('card')) {
    const plan = o.card?.installments?.plan;
    out.card = {
      installments: plan ? { enabled: true, plan: { count: int(plan, 'count'), interval: plan.interval ?? 'month', type: plan.type ?? 'fixed_count' } } : null,
      mandate_options: null, network: null, request_three_d_secure: 'automatic', ...(o.card?.capture_method ? { capture_method: o.card.capture_method } : {}),
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

export function createIntent(s: State, p: Params, livemode: boolean, version: string = STRIPE_ACCOUNT_DEFAULT_VERSION): Json {
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
  if (p.customer && !s.customers.has(p.customer)) throw noSuch('customer', p.customer, 'customer');
  const pm = p.payment_method ? resolvePm(s, String(p.payment_method), livemode) : p.payment_method_data ? pmFromData(s, p.payment_method_data, livemode) : undefined;
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
  const connect = destinationOf(p, amount);
  const id = randomId('pi_3', 23);
  const pi: Json = {
    id, object: 'payment_intent', amount, amount_capturable: 0, amount_details: { tip: {} }, amount_received: 0, application: null,
    automatic_payment_methods: null, canceled_at: null, cancellation_reason: null, capture_method: captureMethod,
    client_secret: `${id}_secret_${randomId('', 25)}`, confirmation_method: 'automatic', created: now(), currency, customer: p.customer ?? null,
    customer_account: null, description: p.description ?? null, excluded_payment_method_types: null, last_payment_error: null, latest_charge: null,
    livemode, managed_payments: null, metadata: metadataOf(p), next_action: null, on_behalf_of: null, payment_method: pm?.json.id ?? null,
    payment_method_configuration_details: null, payment_method_options: options, payment_method_types: types, processing: null,
    receipt_email: p.receipt_email ?? null, review: null, setup_future_usage: null, shipping: null, source: null, statement_descriptor: null,
    statement_descriptor_suffix: p.statement_descriptor_suffix ?? null, status: pm ? 'requires_confirmation' : 'requires_payment_method',
    transfer_group: null, ...connect,
  };
  s.intents.set(id, pi);
  if (confirm) {
    if (!pm) throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.", { code: 'payment_intent_unexpected_state', param: 'payment_method' });
    confirmIntent(s, pi, pm);
  }
  return pi;
}

function newCharge(s: State, pi: Json, pm: StoredPm, outcome: { paid: boolean; captured: boolean; decline?: StripeDecline }): Json {
  const ch: Json = {
    id: randomId('ch_3', 23), object: 'charge', amount: pi.amount, amount_captured: outcome.captured ? pi.amount : 0, amount_refunded: 0,
    application: null, application_fee: null, application_fee_amount: pi.application_fee_amount ?? null,
    balance_transaction: outcome.captured ? randomId('txn_3', 23) : null, billing_details: pm.json.billing_details,
    calculated_statement_descriptor: pm.json.type === 'card' ? 'ROUTEGATE SANDBOX' : null, captured: outcome.captured,
    created: now(), currency: pi.currency, customer: pi.customer, description: pi.description,
    // Chargebacks are not emulated: no charge here is ever disputed.
    disputed: false, failure_balance_transaction: null,
    failure_code: outcome.decline?.code ?? null, failure_message: outcome.decline?.message ?? null, fraud_details: {}, livemode: pi.livemode, metadata: pi.metadata,
    on_behalf_of: pi.on_behalf_of ?? null,
    outcome: outcome.decline
      ? { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: 'declined_by_network', reason: outcome.decline.decline_code, risk_level: 'normal', seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' }
      : { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
    paid: outcome.paid, payment_intent: pi.id, payment_method: pm.json.id,
    payment_method_details: { type: pm.json.type, [pm.json.type]: methodDetails(pi, pm, outcome) },
    receipt_email: pi.receipt_email, receipt_number: null, receipt_url: `https://pay.stripe.com/receipts/payment/${randomId('', 40)}`,
    refunded: false, review: null, shipping: null, source: null, source_transfer: null, statement_descriptor: null,
    statement_descriptor_suffix: pi.statement_descriptor_suffix ?? null, status: outcome.decline ? 'failed' : 'succeeded',
    transfer_data: pi.transfer_data ?? null, transfer_group: pi.transfer_group ?? null,
  };
  s.charges.set(ch.id, ch);
  return ch;
}

/** charge.payment_method_details.<type>: what the card network or the pix/boleto rail reported. */
function methodDetails(pi: Json, pm: StoredPm, outcome: { paid: boolean }): Json {
  if (pm.json.type === 'boleto') return { tax_id: pm.json.boleto.tax_id };
  if (pm.json.type === 'pix') return { bank_transaction_id: randomId('E', 31).toUpperCase(), fingerprint: null };
  const card = pm.json.card;
  const plan = pi.payment_method_options.card?.installments?.plan;
  return {
    amount_authorized: outcome.paid ? pi.amount : null, authorization_code: outcome.paid ? randomDigits(6) : null, brand: card.brand, checks: card.checks,
    country: card.country, exp_month: card.exp_month, exp_year: card.exp_year, fingerprint: card.fingerprint, funding: card.funding,
    installments: plan ? { plan } : null, last4: card.last4, mandate: null, network: card.brand, network_token: { used: false },
    network_transaction_id: outcome.paid ? randomDigits(15) : null, regulated_status: card.regulated_status, three_d_secure: null,
    transaction_link_id: null, wallet: null,
  };
}

/** Confirmation: cards authorize (or decline with 402), pix and boleto wait for the payer (requires_action). */
export function confirmIntent(s: State, pi: Json, pm: StoredPm): void {
  if (pm.json.type === 'card') return confirmCard(s, pi, pm);
  pi.payment_method = pm.json.id;
  pi.status = 'requires_action';
  pi.next_action = pm.json.type === 'pix' ? pixAction(pi) : boletoAction(pi);
}

function confirmCard(s: State, pi: Json, pm: StoredPm): void {
  const manual = pi.capture_method === 'manual';
  if (pm.decline) {
    const ch = newCharge(s, pi, pm, { paid: false, captured: false, decline: pm.decline });
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
  const ch = newCharge(s, pi, pm, { paid: true, captured: !manual });
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

export function captureIntent(s: State, pi: Json, p: Params): Json {
  rejectUnknown(p, ['amount_to_capture', 'metadata', 'expand', 'final_capture', 'statement_descriptor_suffix', 'application_fee_amount']);
  if (pi.status !== 'requires_capture') {
    throw unexpectedState(pi, `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`);
  }
  const amount = int(p, 'amount_to_capture') ?? pi.amount_capturable;
  if (amount < 1 || amount > pi.amount_capturable) {
    throw invalid(`The amount_to_capture (${amount}) must be positive and no greater than the amount_capturable (${pi.amount_capturable}).`, { code: 'amount_too_large', param: 'amount_to_capture' });
  }
  const ch = s.charges.get(pi.latest_charge)!;
  Object.assign(ch, { captured: true, amount_captured: amount, balance_transaction: randomId('txn_3', 23) });
  Object.assign(pi, { status: 'succeeded', amount_received: amount, amount_capturable: 0, metadata: { ...pi.metadata, ...metadataOf(p) } });
  return pi;
}

export function cancelIntent(s: State, pi: Json, p: Params): Json {
  rejectUnknown(p, ['cancellation_reason', 'expand']);
  const reason = oneOf(p, 'cancellation_reason', ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']);
  if (!CANCELLABLE.includes(pi.status)) {
    throw unexpectedState(pi, `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELLABLE.join(', ')}.`);
  }
  // Cancelling an authorization releases the hold: the uncaptured charge is marked refunded.
  const ch = pi.status === 'requires_capture' ? s.charges.get(pi.latest_charge) : undefined;
  if (ch) Object.assign(ch, { amount_refunded: ch.amount, refunded: true });
  Object.assign(pi, { status: 'canceled', canceled_at: now(), cancellation_reason: reason ?? null, amount_capturable: 0, next_action: null });
  return pi;
}

/** Emulator-only hooks (no such Stripe route): the payer pays or lets a pix/boleto expire. */
export function settleVoucher(s: State, pi: Json, outcome: 'pay' | 'expire'): Json {
  if (pi.status !== 'requires_action') throw unexpectedState(pi, `Only a PaymentIntent in requires_action can be simulated; this one is ${pi.status}.`);
  const pm = s.paymentMethods.get(pi.payment_method)!;
  if (outcome === 'pay') {
    const ch = newCharge(s, pi, pm, { paid: true, captured: true });
    Object.assign(pi, { status: 'succeeded', latest_charge: ch.id, amount_received: pi.amount, next_action: null });
  } else {
    Object.assign(pi, {
      status: 'requires_payment_method', next_action: null, payment_method: null,
      last_payment_error: { type: 'invalid_request_error', code: 'payment_intent_payment_attempt_expired', message: `The payment attempt for this ${pm.json.type} PaymentIntent expired.`, payment_method: pm.json },
    });
  }
  return pi;
}

