import type { FastifyRequest } from 'fastify';
import qs from 'qs';
import { declineFor } from '../../sandbox/core';

// Stripe's wire conventions for the emulator: error bodies, form-decoded parameter parsing (every value
// arrives as a string), and the test cards. Pure functions; the routes are in ./emulator.ts.

export type Params = Record<string, any>;
export type Json = Record<string, any>;

export const DOCS = 'https://stripe.com/docs/error-codes';

/** An error answered with Stripe's `{error: {...}}` body. */
export class StripeError extends Error {
  constructor(public readonly status: number, public readonly body: { error: Json }) {
    super(String(body.error.message));
  }
}

export const invalid = (message: string, extra: Json = {}, status = 400) =>
  new StripeError(status, { error: { type: 'invalid_request_error', message, ...extra } });
export const missing = (param: string) =>
  invalid(`Missing required param: ${param}.`, { code: 'parameter_missing', param, doc_url: `${DOCS}/parameter-missing` });
// A missing object in the URL is 404; one named by a parameter is 400 (Stripe does the same).
export const noSuch = (kind: string, id: string, param?: string) =>
  invalid(`No such ${kind}: '${id}'`, { code: 'resource_missing', param: param ?? (kind === 'payment_intent' ? 'intent' : 'id'), doc_url: `${DOCS}/resource-missing` }, param ? 400 : 404);
export const cardError = (code: string, message: string, param: string) =>
  new StripeError(402, { error: { type: 'card_error', code, message, param, doc_url: `${DOCS}/${code.replace(/_/g, '-')}` } });

// ---------------------------------------------------------------------------------------------- params

export function int(p: Params, name: string, required = false): number | undefined {
  const v = p[name];
  if (v === undefined || v === '') {
    if (required) throw missing(name);
    return undefined;
  }
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw invalid(`Invalid integer: ${typeof v === 'string' ? v : 'object'}`, { code: 'parameter_invalid_integer', param: name });
  return Number(v);
}

export function bool(p: Params, name: string): boolean | undefined {
  const v = p[name];
  if (v === undefined) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  throw invalid(`Invalid boolean: ${String(v)}`, { code: 'parameter_invalid_boolean', param: name });
}

export function list(v: unknown): string[] {
  if (v === undefined || v === '') return [];
  return Array.isArray(v) ? v.map(String) : typeof v === 'object' ? Object.values(v as Json).map(String) : [String(v)];
}

export function oneOf(p: Params, name: string, allowed: string[], fallback?: string): string | undefined {
  const v = p[name] ?? fallback;
  if (v !== undefined && !allowed.includes(v)) {
    throw invalid(`Invalid ${name}: must be one of ${allowed.join(', ')}`, { code: 'parameter_invalid_string', param: name });
  }
  return v;
}

export function rejectUnknown(p: Params, allowed: string[]): void {
  const unknown = Object.keys(p).find((k) => !allowed.includes(k));
  if (unknown) throw invalid(`Received unknown parameter: ${unknown}`, { code: 'parameter_unknown', param: unknown, doc_url: `${DOCS}/parameter-unknown` });
}

export function metadataOf(p: Params): Record<string, string> {
  const m = p.metadata;
  if (m === undefined || m === '') return {};
  if (typeof m !== 'object' || Array.isArray(m)) throw invalid('Invalid object', { param: 'metadata' });
  // stripe.md section 2: at most 50 keys, keys up to 40 characters, values up to 500.
  const entries = Object.entries(m as Json);
  if (entries.length > 50) throw invalid('You can specify up to 50 keys.', { param: 'metadata' });
  const long = entries.find(([k, v]) => k.length > 40 || String(v).length > 500);
  if (long) throw invalid(`Metadata keys can be up to 40 characters and values up to 500 characters: ${long[0].slice(0, 40)}`, { param: `metadata[${long[0]}]` });
  return Object.fromEntries(Object.entries(m as Json).filter(([, v]) => v !== '').map(([k, v]) => [k, String(v)]));
}

export function queryParams(req: FastifyRequest): Params {
  const q = req.url.split('?')[1];
  return q ? qs.parse(q, { arrayLimit: 100 }) : {};
}

/** An amount as Stripe's messages print it, e.g. R$10.00. */
export const brl = (cents: number) => `R$${(cents / 100).toFixed(2)}`;

// ---------------------------------------------------------------------------------------------- cards

export interface StripeDecline { code: string; decline_code: string; message: string }

// The shared decline cards (src/sandbox/cards.ts) answer with Stripe's own code/decline_code pairs.
export const DECLINES: Record<string, StripeDecline> = {
  card_declined: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  insufficient_funds: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  expired_card: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  incorrect_cvc: { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  processing_error: { code: 'processing_error', decline_code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
  lost_card: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  stolen_card: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  card_velocity_exceeded: { code: 'card_declined', decline_code: 'card_velocity_exceeded', message: 'Your card was declined.' },
  fraudulent: { code: 'card_declined', decline_code: 'fraudulent', message: 'Your card was declined.' },
};
// Stripe's own test cards beyond the shared five (stripe.md section 8).
export const STRIPE_ONLY_DECLINES: Record<string, string> = {
  '4000000000009987': 'lost_card', '4000000000009979': 'stolen_card', '4000000000006975': 'card_velocity_exceeded', '4100000000000019': 'fraudulent',
};
export const DEBIT_CARDS = new Set(['4000056655665556', '5200828282828210']);
// `pm_card_<name>` and `tok_<name>` shortcuts.
export const TEST_CARDS: Record<string, string> = {
  visa: '4242424242424242', mastercard: '5555555555554444', amex: '378282246310005', visa_debit: '4000056655665556',
  mastercard_debit: '5200828282828210', chargeDeclined: '4000000000000002', visa_chargeDeclined: '4000000000000002',
  chargeDeclinedInsufficientFunds: '4000000000009995', visa_chargeDeclinedInsufficientFunds: '4000000000009995',
  chargeDeclinedExpiredCard: '4000000000000069', chargeDeclinedIncorrectCvc: '4000000000000127',
  chargeDeclinedProcessingError: '4000000000000119', visa_chargeDeclinedLostCard: '4000000000009987',
  visa_chargeDeclinedStolenCard: '4000000000009979', visa_chargeDeclinedVelocityLimitExceeded: '4000000000006975', radarBlock: '4100000000000019',
};

export function declineOf(number: string): StripeDecline | undefined {
  const shared = declineFor(number);
  const key = shared?.code ?? STRIPE_ONLY_DECLINES[number];
  return key ? DECLINES[key] : undefined;
}
