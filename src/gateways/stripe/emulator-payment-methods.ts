import { cardBrand, luhnValid, randomId, unixNow as now } from '../../sandbox/core';
import { type Params, type Json, type StripeDecline, invalid, missing, noSuch, cardError, int, rejectUnknown, DEBIT_CARDS, TEST_CARDS, declineOf } from './emulator-wire';

// Stripe PaymentMethods for the emulator (shared/gateways/stripe.md): cards (raw data on accounts with raw card
// data access, test tokens otherwise), and pix/boleto as payment_method_data. Also the emulator's state.

export interface StoredPm { json: Json; decline?: StripeDecline }

/** One Stripe account's objects, per emulator server (emptied by the control's reset). */
export function newState() {
  return {
    paymentMethods: new Map<string, StoredPm>(),
    intents: new Map<string, Json>(),
    charges: new Map<string, Json>(),
    refunds: new Map<string, Json>(),
    customers: new Map<string, Json>(),
    taxIds: new Map<string, Json[]>(),
    /** Disputes by the PaymentIntent whose charge is disputed (./emulator-disputes.ts). */
    disputes: new Map<string, Json>(),
  };
}
export type State = ReturnType<typeof newState>;

// ---------------------------------------------------------------------------------------------- payment methods

export function billingDetails(b: Params | undefined): Json {
  const a = (b?.address ?? {}) as Params;
  return {
    address: { city: a.city ?? null, country: a.country ?? null, line1: a.line1 ?? null, line2: a.line2 ?? null, postal_code: a.postal_code ?? null, state: a.state ?? null },
    email: b?.email ?? null, name: b?.name ?? null, phone: b?.phone ?? null, tax_id: b?.tax_id ?? null,
  };
}

function pmJson(type: string, details: Json, billing: Params | undefined, livemode: boolean): Json {
  return {
    id: randomId('pm_1', 23), object: 'payment_method', allow_redisplay: 'unspecified', billing_details: billingDetails(billing), created: now(), customer: null,
    customer_account: null, livemode, metadata: {}, type, [type]: details,
  };
}

function cardFromNumber(number: string, expMonth: number, expYear: number, cvc?: string): Json {
  return {
    brand: cardBrand(number), checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: cvc ? 'pass' : null },
    country: 'US', display_brand: cardBrand(number), exp_month: expMonth, exp_year: expYear, fingerprint: randomId('', 16),
    funding: DEBIT_CARDS.has(number) ? 'debit' : 'credit', generated_from: null, last4: number.slice(-4),
    networks: { available: [cardBrand(number)], preferred: null }, regulated_status: 'unregulated', three_d_secure_usage: { supported: true }, wallet: null,
  };
}

/** `tok_visa` / `pm_card_visa` style shortcuts become a fresh PaymentMethod, like Stripe's test mode. */
function fromShortcut(s: State, id: string, livemode: boolean): StoredPm | undefined {
  const name = id.startsWith('pm_card_') ? id.slice('pm_card_'.length) : id.startsWith('tok_') ? id.slice('tok_'.length) : undefined;
  const number = name === undefined ? undefined : TEST_CARDS[name];
  if (!number) return undefined;
  const stored = { json: pmJson('card', cardFromNumber(number, 12, new Date().getUTCFullYear() + 3, '123'), undefined, livemode), decline: declineOf(number) };
  s.paymentMethods.set(stored.json.id, stored);
  return stored;
}

export function createCardPm(s: State, p: Params, livemode: boolean, rawCards = false): StoredPm {
  const card = p.card as Params | undefined;
  if (!card || typeof card !== 'object') throw missing('card');
  if (card.token !== undefined) {
    const stored = fromShortcut(s, String(card.token), livemode);
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
  s.paymentMethods.set(stored.json.id, stored);
  return stored;
}

export function createPaymentMethod(s: State, p: Params, livemode: boolean, rawCards: boolean): Json {
  rejectUnknown(p, ['type', 'card', 'billing_details', 'metadata', 'expand']);
  if (!p.type) throw missing('type');
  if (p.type !== 'card') throw invalid(`This emulator creates PaymentMethods of type card only; send ${p.type} as payment_method_data on the PaymentIntent`, { param: 'type' });
  return createCardPm(s, p, livemode, rawCards).json;
}

const RAW_CARDS_REFUSED = 'Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.';

/** `payment_method_data` on a PaymentIntent: pix and boleto (RouteGate's profile), card only by token. */
export function pmFromData(s: State, d: Params, livemode: boolean): StoredPm {
  const type = d.type;
  if (!type) throw missing('payment_method_data[type]');
  if (type === 'card') {
    if (!d.card?.token) throw invalid('Sending credit card numbers directly to the Stripe API is generally unsafe. Create a PaymentMethod first, or send payment_method_data[card][token].', { param: 'payment_method_data[card]' });
    return createCardPm(s, d, livemode);
  }
  if (type === 'pix') return keep(s, { json: pmJson('pix', {}, d.billing_details, livemode) });
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
    return keep(s, { json: pmJson('boleto', { fingerprint: randomId('', 16), tax_id: taxId }, d.billing_details, livemode) });
  }
  throw invalid(`Invalid payment_method_data[type]: ${type}`, { code: 'parameter_invalid_string', param: 'payment_method_data[type]' });
}

function keep(s: State, stored: StoredPm): StoredPm {
  s.paymentMethods.set(stored.json.id, stored);
  return stored;
}

export function resolvePm(s: State, id: string, livemode: boolean): StoredPm {
  const stored = s.paymentMethods.get(id) ?? fromShortcut(s, id, livemode);
  if (!stored) throw noSuch('PaymentMethod', id, 'payment_method');
  return stored;
}

