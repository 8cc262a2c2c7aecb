import { randomDigits, randomId, unixNow as now, type LedgerEntry } from '../../sandbox/core';
import { type Params, type Json, DOCS, invalid, missing, noSuch, int, list, oneOf, rejectUnknown, metadataOf, brl } from './emulator-wire';
import { matchesSearch, parseSearchQuery } from './emulator-search';
import { billingDetails, type State } from './emulator-payment-methods';
import { findIntent, intentView, unexpectedState } from './emulator-intents';
import { reversalOf } from './emulator-connect';

// Stripe's other resources for the emulator (shared/gateways/stripe.md): PaymentIntent search, refunds,
// customers, and the ledger the control API lists.

// ---------------------------------------------------------------------------------------------- search, ledger

/**
 * GET /v1/payment_intents/search: newest first, `limit` 1..100 (default 10), `page` the opaque cursor of a
 * previous `next_page`; `expand[]=data.<field>` expands inside each result, `expand[]=total_count` adds the count.
 * Unlike real Stripe, results are never stale (Stripe's index can lag up to a minute behind writes).
 */
export function searchIntents(s: State, p: Params, expand: string[]): Json {
  rejectUnknown(p, ['query', 'limit', 'page']);
  const query = parseSearchQuery(p.query);
  const limit = int(p, 'limit') ?? 10;
  if (limit < 1 || limit > 100) throw invalid('Invalid limit: must be between 1 and 100.', { code: 'parameter_invalid_integer', param: 'limit' });
  const offset = p.page === undefined ? 0 : pageOffset(p.page);
  const nested = expand.filter((e) => e !== 'total_count').map((e) => {
    if (!e.startsWith('data.')) throw invalid(`This property cannot be expanded (${e}).`, { param: 'expand' });
    return e.slice('data.'.length);
  });
  const found = [...s.intents.values()].filter((pi) => matchesSearch(pi, query)).reverse();
  const hasMore = offset + limit < found.length;
  return {
    object: 'search_result', url: '/v1/payment_intents/search', has_more: hasMore,
    data: found.slice(offset, offset + limit).map((pi) => intentView(s, pi, nested)),
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
export function ledgerOf(s: State): Array<Omit<LedgerEntry, 'gateway'>> {
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

export function createRefund(s: State, p: Params): Json {
  rejectUnknown(p, ['payment_intent', 'charge', 'amount', 'reason', 'metadata', 'expand', 'refund_application_fee', 'reverse_transfer']);
  if (!p.payment_intent && !p.charge) throw invalid('One of the following params should be provided for this request: payment_intent or charge.', { code: 'parameter_missing' });
  const ch = p.charge ? s.charges.get(p.charge) : undefined;
  if (p.charge && !ch) throw noSuch('charge', p.charge, 'charge');
  const pi = ch ? s.intents.get(ch.payment_intent)! : findIntent(s, String(p.payment_intent), 'payment_intent');
  const reason = oneOf(p, 'reason', ['duplicate', 'fraudulent', 'requested_by_customer']);
  const charge = ch ?? (pi.latest_charge ? s.charges.get(pi.latest_charge) : undefined);
  if (!charge || charge.status !== 'succeeded') throw unexpectedState(pi, `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`);
  if (!charge.captured) throw unexpectedState(pi, `Charge ${charge.id} has not been captured; cancel the PaymentIntent to release the authorization.`);
  if (pi.payment_method_types.includes('boleto')) throw invalid('Boleto payments cannot be refunded.', { code: 'charge_not_refundable', param: 'payment_intent' });
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (remaining <= 0) throw invalid(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded', doc_url: `${DOCS}/charge-already-refunded` });
  const amount = int(p, 'amount') ?? remaining;
  if (amount < 1) throw invalid('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
  if (amount > remaining) throw invalid(`Refund amount (${brl(amount)}) is greater than unrefunded amount on charge (${brl(remaining)})`, { code: 'amount_too_large', param: 'amount' });
  const reversal = reversalOf(p, pi, charge.id);
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded >= charge.amount_captured;
  const refund = {
    id: randomId('re_3', 23), object: 'refund', amount, balance_transaction: randomId('txn_3', 23), charge: charge.id, created: now(),
    currency: charge.currency, customer: charge.customer ?? null, customer_account: null, destination_details: destinationDetails(charge.payment_method_details.type),
    metadata: metadataOf(p), payment_intent: pi.id, payment_method: charge.payment_method, reason: reason ?? null, receipt_number: null,
    source_transfer_reversal: null, status: 'succeeded', ...reversal,
  };
  s.refunds.set(refund.id, refund);
  return refund;
}

/** Refund.destination_details: a card refund carries the acquirer reference once the network has one. */
function destinationDetails(type: string): Json {
  if (type === 'card') return { type, card: { reference: randomDigits(23), reference_status: 'available', reference_type: 'acquirer_reference_number', type: 'refund' } };
  return { type, [type]: {} };
}

const TAX_ID_DIGITS: Record<string, number> = { br_cpf: 11, br_cnpj: 14 };

export function createCustomer(s: State, p: Params, livemode: boolean): Json {
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
  s.customers.set(id, customer);
  s.taxIds.set(id, taxIds);
  return customer;
}

export function customerView(s: State, c: Json, expand: string[]): Json {
  if (!expand.includes('tax_ids')) return c;
  const data = s.taxIds.get(c.id) ?? [];
  return { ...c, tax_ids: { object: 'list', data, has_more: false, total_count: data.length, url: `/v1/customers/${c.id}/tax_ids` } };
}

