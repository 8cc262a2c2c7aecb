/**
 * What the official SDKs (stripe, mercadopago, @pagarme/pagarme-nodejs-sdk) put on the wire, and how they parse the
 * answers, when pointed at a base URL in the way test/helpers/sdk-clients.ts does it. A recording node:http server
 * answers realistic bodies (from the gateway API notes); the SDKs themselves are not mocked. docs/sdk-notes.md sums
 * these facts up for the compatibility-mode server.
 */
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import Stripe from 'stripe';
import {
  MercadoPagoError,
  MPBadRequestError,
  MPNotFoundError,
  MPAuthenticationError,
  MPServerError,
} from 'mercadopago';
import { ApiError, CustomError, ResponseValidationError, ArgumentsValidationError } from '@pagarme/pagarme-nodejs-sdk';
import {
  stripeClient,
  stripeCalls,
  mercadoPagoClient,
  mercadoPagoCalls,
  pagarmeClient,
  pagarmeCalls,
  pagarmeCustomer,
  type MercadoPagoClients,
  type PagarmeClients,
} from './helpers/sdk-clients';

// An HTTP(S)_PROXY in the environment would make axios (inside the Pagar.me SDK) tunnel instead of using the agent.
for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy']) delete process.env[name];

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Answer {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

class Recorder {
  requests: Recorded[] = [];
  answer: (req: Recorded) => Answer = () => ({ status: 200, body: {} });
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.requests.push(rec);
      const a = this.answer(rec);
      const payload = a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body));
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
      res.end(payload);
    });
  });
  base = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reply(fn: (req: Recorded) => Answer): void {
    this.requests = [];
    this.answer = fn;
  }

  only(): Recorded {
    assert.equal(this.requests.length, 1, `expected exactly one request, got ${this.requests.map((r) => `${r.method} ${r.url}`).join(', ')}`);
    return this.requests[0]!;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function rejects<T extends Error>(p: Promise<unknown>, cls: new (...args: never[]) => T): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`);
    return err;
  }
  assert.fail(`expected ${cls.name}, the call resolved`);
}

// ---------------------------------------------------------------------------------------------------------------
// Realistic answers (gateway API notes)
// ---------------------------------------------------------------------------------------------------------------

const STRIPE_PI = {
  id: 'pi_3RgExAmPle01', object: 'payment_intent', amount: 1999, amount_capturable: 0, amount_received: 1999,
  capture_method: 'automatic_async', client_secret: 'pi_3RgExAmPle01_secret_x', confirmation_method: 'automatic',
  created: 1767225600, currency: 'brl', customer: null, description: 'Pedido 1001', last_payment_error: null,
  latest_charge: 'ch_3RgExAmPle01', livemode: false, metadata: { order_id: 'ord-1001' }, next_action: null,
  payment_method: 'pm_1RgExAmPleVisa', payment_method_types: ['card'], status: 'succeeded', transfer_data: null,
  x_routegate_unknown: { kept: true },
};
const STRIPE_DECLINE = {
  error: {
    charge: 'ch_3RgDeCl1nE01', code: 'card_declined', decline_code: 'insufficient_funds',
    doc_url: 'https://stripe.com/docs/error-codes/card-declined', message: 'Your card has insufficient funds.',
    payment_intent: {
      id: 'pi_3RgDeCl1nE01', object: 'payment_intent', amount: 1999, currency: 'brl', status: 'requires_payment_method',
      latest_charge: 'ch_3RgDeCl1nE01',
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', charge: 'ch_3RgDeCl1nE01', message: 'Your card has insufficient funds.' },
    },
    payment_method: { id: 'pm_1RgDeCl1nE', object: 'payment_method', type: 'card' },
    type: 'card_error',
  },
};
const STRIPE_REFUND = {
  id: 're_3RgExAmPle01', object: 'refund', amount: 500, charge: 'ch_3RgExAmPle01', created: 1767229200, currency: 'brl',
  metadata: {}, payment_intent: 'pi_3RgExAmPle01', reason: null, status: 'succeeded',
};
const STRIPE_CUSTOMER = {
  id: 'cus_RgExAmPle01', object: 'customer', address: null, balance: 0, created: 1767225600, currency: null,
  delinquent: false, description: null, email: 'maria@example.com', livemode: false, metadata: {}, name: 'Maria Souza',
};

const MP_PAYMENT = {
  id: 1325350416, date_created: '2026-01-01T10:00:00.000-03:00', date_approved: '2026-01-01T10:00:01.000-03:00',
  operation_type: 'regular_payment', payment_method_id: 'visa', payment_type_id: 'credit_card', status: 'approved',
  status_detail: 'accredited', currency_id: 'BRL', description: 'Pedido 1001', live_mode: false, captured: true,
  transaction_amount: 19.99, transaction_amount_refunded: 0, installments: 1, external_reference: 'ord-1001',
  payer: { id: '987654321', email: 'test_user_123@testuser.com', identification: { type: 'CPF', number: '12345678909' } },
  transaction_details: { net_received_amount: 19.1, total_paid_amount: 19.99, overpaid_amount: 0, installment_amount: 19.99 },
  refunds: [], x_routegate_unknown: 'kept',
};
const MP_REJECTED = {
  id: 1325350417, status: 'rejected', status_detail: 'cc_rejected_insufficient_amount', date_approved: null, captured: true,
  transaction_amount: 19.99, payment_method_id: 'visa', payment_type_id: 'credit_card',
  transaction_details: { net_received_amount: 0, total_paid_amount: 19.99 }, external_reference: 'ord-1001',
};
const MP_REFUND = {
  id: 3328707782, payment_id: 1325350416, amount: 5, metadata: {}, source: { id: '1234567890', name: 'Loja', type: 'collector' },
  date_created: '2026-01-02T10:00:00.000-03:00', unique_sequence_number: null, refund_mode: 'standard', adjustment_amount: 0,
  status: 'approved', reason: null, amount_refunded_to_payer: 5,
};
const MP_BAD_REQUEST = {
  message: 'notificaction_url attribute must be url valid', error: 'bad_request', status: 400,
  cause: [{ code: 4020, description: 'notificaction_url attribute must be url valid', data: null }],
};
const MP_PAYER = { email: 'test_user_123@testuser.com', identification: { type: 'CPF', number: '12345678909' } };

const PG_CARD_TX = {
  id: 'tran_AbCdEfGh12345678', transaction_type: 'credit_card', gateway_id: 'gw-1', amount: 1999, status: 'captured',
  success: true, installments: 1, statement_descriptor: 'MINHALOJA', operation_type: 'auth_and_capture',
  acquirer_name: 'simulator', acquirer_tid: '123456', acquirer_nsu: '654321', acquirer_auth_code: 'A1B2C3',
  acquirer_message: 'Transação capturada com sucesso', acquirer_return_code: '0000',
  card: { id: 'card_AbCdEfGh12345678', first_six_digits: '400000', last_four_digits: '0010', brand: 'Visa', holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, status: 'active', type: 'credit' },
  gateway_response: { code: '200', errors: [] }, antifraud_response: {},
};
const PG_CHARGE = {
  id: 'ch_3XqGmLDi1ZSVdnk1', code: 'ord-1001', gateway_id: 'gw-1', amount: 1999, paid_amount: 1999, status: 'paid',
  currency: 'BRL', payment_method: 'credit_card', paid_at: '2030-01-01T12:00:03Z', created_at: '2030-01-01T12:00:00Z',
  updated_at: '2030-01-01T12:00:03Z', last_transaction: PG_CARD_TX,
};
const PG_ORDER = {
  id: 'or_56GXnk6T0eU88qMm', code: 'ord-1001', amount: 1999, currency: 'BRL', closed: true, status: 'paid',
  items: [{ id: 'oi_AbCdEfGh12345678', description: 'Pedido', amount: 1999, quantity: 1, status: 'active' }],
  customer: { id: 'cus_AbCdEfGh12345678', name: 'Maria Souza', document: '12345678909', type: 'individual', delinquent: false },
  charges: [PG_CHARGE],
  created_at: '2030-01-01T12:00:00Z', updated_at: '2030-01-01T12:00:03Z', closed_at: '2030-01-01T12:00:01Z',
  x_routegate_unknown: 'dropped',
};
const PG_FAILED_ORDER = {
  ...PG_ORDER, status: 'failed',
  charges: [{ ...PG_CHARGE, status: 'failed', paid_amount: 0, last_transaction: { ...PG_CARD_TX, status: 'not_authorized', success: false, acquirer_message: 'Transação não autorizada', acquirer_return_code: '1016' } }],
};
const PG_PIX_ORDER = {
  ...PG_ORDER, status: 'pending',
  charges: [{
    ...PG_CHARGE, status: 'pending', payment_method: 'pix', paid_amount: undefined,
    last_transaction: { id: 'tran_PiXpIxPiX1234567', transaction_type: 'pix', amount: 1999, status: 'waiting_payment', success: true,
      qr_code: '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406019.995802BR6304E2CA',
      qr_code_url: 'https://api.pagar.me/core/v5/transactions/tran_PiXpIxPiX1234567/qrcode?payment_method=pix', expires_at: '2030-01-01T13:00:00Z' },
  }],
};
const PG_CUSTOMER = {
  id: 'cus_AbCdEfGh12345678', name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', type: 'individual',
  delinquent: false, metadata: { source: 'sdk-test' }, created_at: '2030-01-01T12:00:00Z', updated_at: '2030-01-01T12:00:00Z',
  phones: { mobile_phone: { country_code: '55', area_code: '11', number: '987654321' } },
};

const rec = new Recorder();
before(() => rec.start());
after(() => rec.stop());

// ---------------------------------------------------------------------------------------------------------------
// Stripe
// ---------------------------------------------------------------------------------------------------------------

describe('stripe SDK (options host, port, protocol)', () => {
  let stripe: Stripe;
  before(() => {
    stripe = stripeClient(rec.base, 'rg_test_key', { maxNetworkRetries: 0 });
  });

  function assertStripeHeaders(r: Recorded, idempotency: 'auto' | string | null): void {
    assert.equal(r.headers.authorization, 'Bearer rg_test_key');
    assert.equal(r.headers['content-type'], 'application/x-www-form-urlencoded'); // on GETs too
    assert.equal(r.headers.accept, 'application/json');
    assert.equal(r.headers['stripe-version'], '2026-10-28.endive');
    assert.match(String(r.headers['user-agent']), /^Stripe\/v1 NodeBindings\/23\.1\.0( |$)/);
    const ua = JSON.parse(String(r.headers['x-stripe-client-user-agent']));
    assert.equal(ua.bindings_version, '23.1.0');
    assert.equal(ua.lang, 'node');
    assert.equal(r.headers.host, rec.base.slice('http://'.length));
    if (idempotency === null) assert.equal(r.headers['idempotency-key'], undefined);
    else if (idempotency === 'auto') assert.match(String(r.headers['idempotency-key']), /^stripe-node-retry-[0-9a-f-]{36}$/);
    else assert.equal(r.headers['idempotency-key'], idempotency);
  }

  it('paymentIntents.create (card): POST /v1/payment_intents, form-encoded with indexed brackets; unknown response fields kept', async () => {
    rec.reply(() => ({ status: 200, body: STRIPE_PI, headers: { 'request-id': 'req_abc' } }));
    const pi = await stripeCalls.createCardPayment(stripe, { amount: 1999, paymentMethod: 'pm_card_visa', metadata: { order_id: 'ord-1001' }, idempotencyKey: 'idem-create-1' });
    const r = rec.only();
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/v1/payment_intents');
    assertStripeHeaders(r, 'idem-create-1');
    assert.equal(
      r.body,
      'amount=1999&currency=brl&payment_method=pm_card_visa&allowed_payment_method_types[0]=card&confirm=true&metadata[order_id]=ord-1001&expand[0]=latest_charge',
    );
    assert.deepEqual(qs.parse(r.body), {
      amount: '1999', currency: 'brl', payment_method: 'pm_card_visa', allowed_payment_method_types: ['card'], confirm: 'true',
      metadata: { order_id: 'ord-1001' }, expand: ['latest_charge'],
    });
    assert.equal(pi.id, 'pi_3RgExAmPle01');
    assert.equal(pi.status, 'succeeded');
    assert.deepEqual((pi as unknown as Record<string, unknown>).x_routegate_unknown, { kept: true });
    assert.equal(pi.lastResponse.requestId, 'req_abc');
    assert.equal(pi.lastResponse.statusCode, 200);
  });

  it('every POST carries an Idempotency-Key (stripe-node-retry-<uuid>) even when the caller gives none', async () => {
    rec.reply(() => ({ status: 200, body: STRIPE_PI }));
    await stripeCalls.createCardPayment(stripe, { amount: 1999, paymentMethod: 'pm_card_visa', manualCapture: true });
    const r = rec.only();
    assertStripeHeaders(r, 'auto');
    assert.equal(r.body, 'amount=1999&currency=brl&payment_method=pm_card_visa&allowed_payment_method_types[0]=card&confirm=true&capture_method=manual&expand[0]=latest_charge');
  });

  it('pix and boleto PaymentIntents: payment_method_data / payment_method_options nested brackets', async () => {
    rec.reply(() => ({ status: 200, body: { ...STRIPE_PI, status: 'requires_action' } }));
    await stripeCalls.createPixPayment(stripe, 1999, 'idem-pix');
    assert.equal(
      rec.only().body,
      'amount=1999&currency=brl&allowed_payment_method_types[0]=pix&payment_method_data[type]=pix&payment_method_options[pix][expires_after_seconds]=3600&confirm=true',
    );
    rec.reply(() => ({ status: 200, body: { ...STRIPE_PI, status: 'requires_action' } }));
    await stripeCalls.createBoletoPayment(stripe, {
      amount: 1999, taxId: '12345678909', name: 'Maria Souza', email: 'maria@example.com',
      address: { line1: 'Av Paulista 100', city: 'Sao Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' },
    });
    const r = rec.only();
    assert.deepEqual(qs.parse(r.body), {
      amount: '1999', currency: 'brl', allowed_payment_method_types: ['boleto'],
      payment_method_data: {
        type: 'boleto', boleto: { tax_id: '12345678909' },
        billing_details: { name: 'Maria Souza', email: 'maria@example.com', address: { line1: 'Av Paulista 100', city: 'Sao Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' } },
      },
      payment_method_options: { boleto: { expires_after_days: '3' } },
      confirm: 'true',
    });
    assert.match(r.body, /payment_method_data\[billing_details\]\[name\]=Maria%20Souza/); // space as %20, brackets raw
    assert.match(r.body, /\[email\]=maria%40example.com/);
  });

  it('paymentIntents.retrieve: GET /v1/payment_intents/{id}, expand as an indexed query string, no Idempotency-Key', async () => {
    rec.reply(() => ({ status: 200, body: STRIPE_PI }));
    await stripeCalls.retrievePayment(stripe, 'pi_3RgExAmPle01');
    let r = rec.only();
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/v1/payment_intents/pi_3RgExAmPle01');
    assert.equal(r.body, '');
    assertStripeHeaders(r, null);
    rec.reply(() => ({ status: 200, body: STRIPE_PI }));
    await stripeCalls.retrievePayment(stripe, 'pi_3RgExAmPle01', true);
    r = rec.only();
    assert.equal(r.url, '/v1/payment_intents/pi_3RgExAmPle01?expand[0]=latest_charge');
  });

  it('refunds.create: POST /v1/refunds, payment_intent (+ amount for a partial refund)', async () => {
    rec.reply(() => ({ status: 200, body: STRIPE_REFUND }));
    const partial = await stripeCalls.refund(stripe, 'pi_3RgExAmPle01', 500, 'idem-refund-1');
    let r = rec.only();
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/v1/refunds');
    assertStripeHeaders(r, 'idem-refund-1');
    assert.equal(r.body, 'payment_intent=pi_3RgExAmPle01&amount=500');
    assert.equal(partial.object, 'refund');
    assert.equal(partial.amount, 500);
    rec.reply(() => ({ status: 200, body: { ...STRIPE_REFUND, amount: 1999 } }));
    await stripeCalls.refund(stripe, 'pi_3RgExAmPle01');
    r = rec.only();
    assert.equal(r.body, 'payment_intent=pi_3RgExAmPle01');
    assertStripeHeaders(r, 'auto');
  });

  it('customers.create: POST /v1/customers, tax_id_data as an indexed array of objects', async () => {
    rec.reply(() => ({ status: 200, body: STRIPE_CUSTOMER }));
    const c = await stripeCalls.createCustomer(stripe, { name: 'Maria Souza', email: 'maria@example.com', cpf: '12345678909', metadata: { rg: '1' } }, 'idem-cus');
    const r = rec.only();
    assert.equal(r.url, '/v1/customers');
    assertStripeHeaders(r, 'idem-cus');
    assert.equal(r.body, 'name=Maria%20Souza&email=maria%40example.com&tax_id_data[0][type]=br_cpf&tax_id_data[0][value]=12345678909&metadata[rg]=1');
    assert.equal(c.id, 'cus_RgExAmPle01');
  });

  it('a 402 card_error becomes StripeCardError with code card_declined, decline_code and the raw payment_intent', async () => {
    rec.reply(() => ({ status: 402, body: STRIPE_DECLINE, headers: { 'request-id': 'req_decl' } }));
    const err = await rejects(stripeCalls.createCardPayment(stripe, { amount: 1999, paymentMethod: 'pm_card_chargeDeclined' }), Stripe.errors.StripeCardError);
    assert.equal(err.type, 'StripeCardError');
    assert.equal(err.rawType, 'card_error');
    assert.equal(err.statusCode, 402);
    assert.equal(err.code, 'card_declined');
    assert.equal(err.decline_code, 'insufficient_funds');
    assert.equal(err.message, 'Your card has insufficient funds.');
    assert.equal(err.charge, 'ch_3RgDeCl1nE01');
    assert.equal(err.payment_intent?.id, 'pi_3RgDeCl1nE01');
    assert.equal(err.payment_intent?.status, 'requires_payment_method');
    assert.equal(err.requestId, 'req_decl');
    assert.equal(rec.requests.length, 1);
  });

  it('the exception class follows the HTTP status, not error.type', async () => {
    const cases: Array<[number, unknown, new (...a: never[]) => Error]> = [
      [400, { error: { type: 'invalid_request_error', code: 'parameter_missing', param: 'amount', message: 'Missing required param: amount.' } }, Stripe.errors.StripeInvalidRequestError],
      [404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'intent', message: "No such payment_intent: 'pi_x'" } }, Stripe.errors.StripeInvalidRequestError],
      [400, { error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters' } }, Stripe.errors.StripeIdempotencyError],
      [401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: rg_t****_key' } }, Stripe.errors.StripeAuthenticationError],
      [402, { error: { type: 'invalid_request_error', code: 'card_declined', message: 'x' } }, Stripe.errors.StripeCardError],
      [403, { error: { type: 'invalid_request_error', message: 'restricted key' } }, Stripe.errors.StripePermissionError],
      [429, { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' } }, Stripe.errors.StripeRateLimitError],
      [503, { error: { type: 'api_error', message: 'Upstream unavailable' } }, Stripe.errors.StripeAPIError],
    ];
    for (const [status, body, cls] of cases) {
      rec.reply(() => ({ status, body }));
      const err = await rejects(stripeCalls.retrievePayment(stripe, 'pi_x'), cls);
      assert.equal((err as Stripe.errors.StripeError).statusCode, status);
    }
  });

  it('any JSON body with a top-level "error" key throws, even with HTTP 200; a non-JSON body is a StripeAPIError', async () => {
    rec.reply(() => ({ status: 200, body: { ...STRIPE_PI, error: { type: 'api_error', message: 'oops' } } }));
    await rejects(stripeCalls.retrievePayment(stripe, 'pi_x'), Stripe.errors.StripeAPIError);
    rec.reply(() => ({ status: 200, raw: '<html>bad gateway</html>' }));
    const err = await rejects(stripeCalls.retrievePayment(stripe, 'pi_x'), Stripe.errors.StripeAPIError);
    assert.equal(err.message, 'Invalid JSON received from the Stripe API');
  });

  it('retries (default maxNetworkRetries 2) on >=500 and 409 with the same Idempotency-Key unless Stripe-Should-Retry: false', async () => {
    const retrying = stripeClient(rec.base, 'rg_test_key', { maxNetworkRetries: 1 });
    rec.reply((r) => (rec.requests.length === 1 ? { status: 500, body: { error: { type: 'api_error', message: 'boom' } } } : { status: 200, body: STRIPE_PI }));
    void rec.requests; // first answer decides on requests.length after push
    await stripeCalls.createCardPayment(retrying, { amount: 1999, paymentMethod: 'pm_card_visa' });
    assert.equal(rec.requests.length, 2);
    assert.equal(rec.requests[0]!.headers['idempotency-key'], rec.requests[1]!.headers['idempotency-key']);
    rec.reply(() => ({ status: 503, body: { error: { type: 'api_error', message: 'down' } }, headers: { 'stripe-should-retry': 'false' } }));
    await rejects(stripeCalls.createCardPayment(retrying, { amount: 1999, paymentMethod: 'pm_card_visa' }), Stripe.errors.StripeAPIError);
    assert.equal(rec.requests.length, 1);
  });

  it('takes a host only: a base URL with a path prefix is refused by the helper', () => {
    assert.throws(() => stripeClient(`${rec.base}/compat/stripe`, 'k'), /host only/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Mercado Pago
// ---------------------------------------------------------------------------------------------------------------

describe('mercadopago SDK (undici global dispatcher redirecting https://api.mercadopago.com)', () => {
  let mp: MercadoPagoClients;
  beforeEach(async () => {
    if (mp) await mp.close();
    mp = mercadoPagoClient(`${rec.base}/compat/mercadopago`, 'rg_test_key', { maxRetries: 0 });
  });
  after(() => mp.close());

  function assertMpHeaders(r: Recorded, idempotency: 'auto' | string | null): void {
    assert.equal(r.headers.authorization, 'Bearer rg_test_key');
    assert.equal(r.headers['content-type'], 'application/json'); // on GETs too
    assert.equal(r.headers['user-agent'], `MercadoPago Node.js SDK v3.6.1 (node ${process.version}-${process.arch}-${process.platform})`);
    assert.equal(r.headers['x-product-id'], 'bc32b6ntrpp001u8nhkg');
    assert.equal(r.headers['x-tracking-id'], `platform:${process.version.split('.')[0]}|${process.version},type:SDK3.6.1,so;`);
    assert.equal(r.headers.host, rec.base.slice('http://'.length));
    if (idempotency === null) assert.equal(r.headers['x-idempotency-key'], undefined);
    else if (idempotency === 'auto') assert.match(String(r.headers['x-idempotency-key']), UUID);
    else assert.equal(r.headers['x-idempotency-key'], idempotency);
  }

  it('Payment.create (card): POST {prefix}/v1/payments, JSON, X-Idempotency-Key; the answer comes back with api_response added', async () => {
    rec.reply(() => ({ status: 201, body: MP_PAYMENT }));
    const p = await mercadoPagoCalls.createCardPayment(
      mp,
      { amount: 19.99, token: 'ff8080814c11e237014c1ff593b57b4d', paymentMethodId: 'visa', payer: MP_PAYER, externalReference: 'ord-1001' },
      'idem-mp-1',
    );
    const r = rec.only();
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/compat/mercadopago/v1/payments');
    assertMpHeaders(r, 'idem-mp-1');
    assert.equal(
      r.body,
      JSON.stringify({ transaction_amount: 19.99, token: 'ff8080814c11e237014c1ff593b57b4d', installments: 1, payment_method_id: 'visa', payer: MP_PAYER, external_reference: 'ord-1001' }),
    );
    assert.equal(p.id, 1325350416);
    assert.equal(p.status, 'approved');
    assert.equal((p as unknown as Record<string, unknown>).x_routegate_unknown, 'kept');
    assert.equal(p.api_response.status, 201);
    assert.deepEqual(p.api_response.headers['content-type' as unknown as 0], ['application/json']);
  });

  it('a rejected card (HTTP 201, status rejected) is returned normally', async () => {
    rec.reply(() => ({ status: 201, body: MP_REJECTED }));
    const p = await mercadoPagoCalls.createCardPayment(mp, { amount: 19.99, token: 'tok', paymentMethodId: 'visa', payer: MP_PAYER });
    assert.equal(p.status, 'rejected');
    assert.equal(p.status_detail, 'cc_rejected_insufficient_amount');
  });

  it('without a key every non-GET gets a fresh UUID; a key given in requestOptions sticks to the shared config for later calls', async () => {
    rec.reply(() => ({ status: 201, body: MP_PAYMENT }));
    await mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: MP_PAYER });
    await mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: MP_PAYER });
    assert.equal(rec.requests.length, 2);
    assertMpHeaders(rec.requests[0]!, 'auto');
    assert.notEqual(rec.requests[0]!.headers['x-idempotency-key'], rec.requests[1]!.headers['x-idempotency-key']);
    assert.equal(rec.requests[0]!.body, JSON.stringify({ transaction_amount: 19.99, payment_method_id: 'pix', payer: MP_PAYER }));

    rec.reply(() => ({ status: 201, body: MP_PAYMENT }));
    await mercadoPagoCalls.createBoletoPayment(mp, { amount: 19.99, payer: MP_PAYER, dateOfExpiration: '2030-05-30T23:59:59.000-03:00' }, 'sticky-key');
    rec.reply(() => ({ status: 201, body: MP_REFUND }));
    await mercadoPagoCalls.refundFull(mp, 1325350416); // no key given, yet it reuses the previous one
    assert.equal(rec.only().headers['x-idempotency-key'], 'sticky-key');
  });

  it('Payment.get: GET {prefix}/v1/payments/{id}, no body, no X-Idempotency-Key', async () => {
    rec.reply(() => ({ status: 200, body: MP_PAYMENT }));
    await mercadoPagoCalls.getPayment(mp, 1325350416);
    const r = rec.only();
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/compat/mercadopago/v1/payments/1325350416');
    assert.equal(r.body, '');
    assertMpHeaders(r, null);
  });

  it('PaymentRefund.total (full) sends body {}; PaymentRefund.create (partial) sends {amount} in reais; list adds a trailing slash', async () => {
    rec.reply(() => ({ status: 201, body: { ...MP_REFUND, amount: 19.99 } }));
    await mercadoPagoCalls.refundFull(mp, 1325350416, 'idem-rf-full');
    let r = rec.only();
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/compat/mercadopago/v1/payments/1325350416/refunds');
    assertMpHeaders(r, 'idem-rf-full');
    assert.equal(r.body, '{}');
    rec.reply(() => ({ status: 201, body: MP_REFUND }));
    const refund = await mercadoPagoCalls.refundPartial(mp, 1325350416, 5, 'idem-rf-part');
    r = rec.only();
    assert.equal(r.url, '/compat/mercadopago/v1/payments/1325350416/refunds');
    assert.equal(r.body, '{"amount":5}');
    assert.equal(refund.id, 3328707782);
    rec.reply(() => ({ status: 200, body: [MP_REFUND] }));
    await mp.refund.list({ payment_id: 1325350416 });
    r = rec.only();
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/compat/mercadopago/v1/payments/1325350416/refunds/');
  });

  it('Customer.create: POST {prefix}/v1/customers', async () => {
    rec.reply(() => ({ status: 201, body: { id: '1234567890-AbCdEfGhIjKlMn', email: 'maria@example.com' } }));
    const c = await mercadoPagoCalls.createCustomer(mp, { email: 'maria@example.com', firstName: 'Maria', lastName: 'Souza', cpf: '12345678909' }, 'idem-cus');
    const r = rec.only();
    assert.equal(r.url, '/compat/mercadopago/v1/customers');
    assertMpHeaders(r, 'idem-cus');
    assert.equal(r.body, JSON.stringify({ email: 'maria@example.com', first_name: 'Maria', last_name: 'Souza', identification: { type: 'CPF', number: '12345678909' } }));
    assert.equal(c.id, '1234567890-AbCdEfGhIjKlMn');
  });

  it('a 400 {message,error,status,cause} throws MPBadRequestError with message, error, status and causes (renamed)', async () => {
    rec.reply(() => ({ status: 400, body: MP_BAD_REQUEST }));
    const err = await rejects(mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: MP_PAYER }), MPBadRequestError);
    assert.ok(err instanceof MercadoPagoError);
    assert.equal(err.name, 'MPBadRequestError');
    assert.equal(err.message, MP_BAD_REQUEST.message);
    assert.equal(err.error, 'bad_request');
    assert.equal(err.status, 400);
    assert.deepEqual(err.causes, MP_BAD_REQUEST.cause);
    assert.deepEqual({ ...err }, { name: 'MPBadRequestError', status: 400, error: 'bad_request', causes: MP_BAD_REQUEST.cause });
  });

  it('status decides the class (404, 401, 5xx); status comes from HTTP; no message falls back to error, then a fixed text', async () => {
    rec.reply(() => ({ status: 404, body: { message: 'Payment not found', error: 'not_found', status: 404, cause: [{ code: 2000, description: 'Payment not found', data: null }] } }));
    await rejects(mercadoPagoCalls.getPayment(mp, 1), MPNotFoundError);
    rec.reply(() => ({ status: 401, body: { error: 'unauthorized', status: 401, cause: [] } }));
    const auth = await rejects(mercadoPagoCalls.getPayment(mp, 1), MPAuthenticationError);
    assert.equal(auth.message, 'unauthorized');
    rec.reply(() => ({ status: 502, raw: 'Bad Gateway' }));
    const server = await rejects(mercadoPagoCalls.getPayment(mp, 1), MPServerError);
    assert.equal(server.message, 'MercadoPago API error');
    assert.equal(server.status, 502);
    assert.deepEqual(server.causes, []);
  });

  it('retries 429/5xx (maxRetries, default 3 from 1 s) with the same X-Idempotency-Key', async () => {
    await mp.close();
    mp = mercadoPagoClient(`${rec.base}/compat/mercadopago`, 'rg_test_key', { maxRetries: 1, initialDelay: 1 });
    rec.reply(() => (rec.requests.length === 1 ? { status: 503, body: { message: 'down', error: 'service_unavailable', status: 503, cause: [] } } : { status: 201, body: MP_PAYMENT }));
    await mercadoPagoCalls.createPixPayment(mp, { amount: 19.99, payer: MP_PAYER });
    assert.equal(rec.requests.length, 2);
    assert.equal(rec.requests[0]!.headers['x-idempotency-key'], rec.requests[1]!.headers['x-idempotency-key']);
  });

  it('works at the root as well, and leaves every other origin to the previous dispatcher', async () => {
    await mp.close();
    mp = mercadoPagoClient(rec.base, 'rg_test_key', { maxRetries: 0 });
    rec.reply(() => ({ status: 200, body: MP_PAYMENT }));
    await mercadoPagoCalls.getPayment(mp, 7);
    assert.equal(rec.only().url, '/v1/payments/7');
    rec.reply(() => ({ status: 200, body: {} }));
    const res = await fetch(`${rec.base}/unrelated?x=1`);
    assert.equal(res.status, 200);
    assert.equal(rec.only().url, '/unrelated?x=1');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Pagar.me
// ---------------------------------------------------------------------------------------------------------------

describe('@pagarme/pagarme-nodejs-sdk (httpClientOptions.httpsAgent connecting to the base URL)', () => {
  let pg: PagarmeClients;
  before(() => {
    pg = pagarmeClient(rec.base, 'rg_test_key');
  });
  after(() => pg.close());

  function assertPgHeaders(r: Recorded, idempotency: string | null): void {
    assert.equal(r.headers.authorization, `Basic ${Buffer.from('rg_test_key:').toString('base64')}`);
    // JSON on POST and on DELETE (even without a body); none on GET
    assert.equal(r.headers['content-type'], r.method === 'GET' ? undefined : 'application/json');
    assert.equal(r.headers.accept, 'application/json');
    assert.equal(r.headers['user-agent'], 'PagarmeApiSDK - TypeScript 7.0.2');
    assert.equal(r.headers.host, 'api.pagar.me');
    assert.equal(r.headers.servicereferername, undefined);
    assert.equal(r.headers['idempotency-key'], idempotency ?? undefined);
  }

  it('createOrder (card): POST /core/v5/orders, Basic sk:, snake_case JSON with every field the SDK request model requires', async () => {
    rec.reply(() => ({ status: 200, body: PG_ORDER }));
    const res = await pagarmeCalls.createCardOrder(pg, { code: 'ord-1001', amount: 1999, cardNumber: '4000000000000010' }, 'idem-pg-1');
    const r = rec.only();
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/core/v5/orders');
    assertPgHeaders(r, 'idem-pg-1');
    const address = {
      street: 'Av Paulista', number: '100', zip_code: '01310100', neighborhood: 'Bela Vista', city: 'Sao Paulo', state: 'SP',
      country: 'BR', complement: '', line_1: '100, Av Paulista, Bela Vista', line_2: '',
    };
    assert.deepEqual(JSON.parse(r.body), {
      items: [{ amount: 1999, description: 'Pedido', quantity: 1, category: 'geral', code: 'SKU-1' }],
      customer: {
        name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', type: 'individual', address,
        metadata: { source: 'sdk-test' }, phones: { mobile_phone: { country_code: '55', number: '987654321', area_code: '11' } }, code: 'cust-1',
      },
      payments: [{
        payment_method: 'credit_card',
        credit_card: {
          installments: 1, statement_descriptor: 'MINHALOJA', operation_type: 'auth_and_capture',
          card: { number: '4000000000000010', holder_name: 'MARIA SOUZA', exp_month: 12, exp_year: 2030, cvv: '123', billing_address: address },
        },
      }],
      code: 'ord-1001',
      closed: true,
    });
    // The result is the camelCase model; fields the schema does not know are dropped; the raw text stays in body.
    assert.equal(res.statusCode, 200);
    assert.equal(res.result.id, 'or_56GXnk6T0eU88qMm');
    assert.equal(res.result.charges?.[0]?.lastTransaction?.transactionType, 'credit_card');
    assert.equal((res.result.charges?.[0]?.lastTransaction as { acquirerNsu?: string }).acquirerNsu, '654321');
    assert.equal((res.result as Record<string, unknown>).x_routegate_unknown, undefined);
    assert.match(String(res.body), /x_routegate_unknown/);
  });

  it('a declined order (HTTP 200, status failed) is returned normally; pix order fields map to qrCode/qrCodeUrl', async () => {
    rec.reply(() => ({ status: 200, body: PG_FAILED_ORDER }));
    const failed = await pagarmeCalls.createCardOrder(pg, { code: 'ord-1002', amount: 1999, cardNumber: '4000000000000028' });
    assertPgHeaders(rec.only(), null);
    assert.equal(failed.result.status, 'failed');
    assert.equal(failed.result.charges?.[0]?.lastTransaction?.status, 'not_authorized');
    rec.reply(() => ({ status: 200, body: PG_PIX_ORDER }));
    const pix = await pagarmeCalls.createPixOrder(pg, { code: 'ord-1003', amount: 1999 }, 'idem-pix');
    assert.deepEqual(JSON.parse(rec.only().body).payments, [{ payment_method: 'pix', pix: { expires_in: 3600 } }]);
    const tx = pix.result.charges?.[0]?.lastTransaction as { transactionType?: string; qrCode?: string; qrCodeUrl?: string };
    assert.equal(tx.transactionType, 'pix');
    assert.equal(tx.qrCode, PG_PIX_ORDER.charges[0]!.last_transaction.qr_code);
    assert.equal(tx.qrCodeUrl, PG_PIX_ORDER.charges[0]!.last_transaction.qr_code_url);
  });

  it('boleto order: the SDK model requires retries, instructions, billing_address, document_number, statement_descriptor', async () => {
    rec.reply(() => ({ status: 200, body: { ...PG_ORDER, status: 'pending' } }));
    await pagarmeCalls.createBoletoOrder(pg, { code: 'ord-1004', amount: 1999 }, 'idem-boleto');
    const payment = JSON.parse(rec.only().body).payments[0];
    assert.equal(payment.payment_method, 'boleto');
    assert.deepEqual(Object.keys(payment.boleto), ['retries', 'instructions', 'due_at', 'billing_address', 'document_number', 'statement_descriptor']);
    // A request model missing a required field never reaches the wire.
    rec.reply(() => ({ status: 200, body: PG_ORDER }));
    const incomplete = pagarmeCustomer();
    delete (incomplete as Partial<typeof incomplete>).phones;
    await rejects(pagarmeCalls.createCustomer(pg, incomplete), ArgumentsValidationError);
    assert.equal(rec.requests.length, 0);
  });

  it('getOrder / getCharge: GET /core/v5/orders/{id}, /core/v5/charges/{id}', async () => {
    rec.reply(() => ({ status: 200, body: PG_ORDER }));
    await pagarmeCalls.getOrder(pg, 'or_56GXnk6T0eU88qMm');
    let r = rec.only();
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/core/v5/orders/or_56GXnk6T0eU88qMm');
    assert.equal(r.body, '');
    assertPgHeaders(r, null);
    rec.reply(() => ({ status: 200, body: PG_CHARGE }));
    const ch = await pagarmeCalls.getCharge(pg, 'ch_3XqGmLDi1ZSVdnk1');
    r = rec.only();
    assert.equal(r.url, '/core/v5/charges/ch_3XqGmLDi1ZSVdnk1');
    assert.equal(ch.result.paidAmount, 1999);
  });

  it('cancelCharge: DELETE /core/v5/charges/{id}, no body for a full refund, {amount, operation_reference} for a partial one', async () => {
    rec.reply(() => ({ status: 200, body: { ...PG_CHARGE, status: 'canceled', canceled_amount: 1999 } }));
    const full = await pagarmeCalls.refundFull(pg, 'ch_3XqGmLDi1ZSVdnk1', 'idem-cancel');
    let r = rec.only();
    assert.equal(r.method, 'DELETE');
    assert.equal(r.url, '/core/v5/charges/ch_3XqGmLDi1ZSVdnk1');
    assert.equal(r.body, '');
    assert.equal(r.headers['content-length'], undefined);
    assertPgHeaders(r, 'idem-cancel');
    assert.equal(full.result.canceledAmount, 1999);
    rec.reply(() => ({ status: 200, body: { ...PG_CHARGE, canceled_amount: 500 } }));
    await pagarmeCalls.refundPartial(pg, 'ch_3XqGmLDi1ZSVdnk1', 500, 'refund-ref-1', 'idem-partial');
    r = rec.only();
    assert.equal(r.body, '{"amount":500,"operation_reference":"refund-ref-1"}');
  });

  it('createCustomer: POST /core/v5/customers', async () => {
    rec.reply(() => ({ status: 200, body: PG_CUSTOMER }));
    const c = await pagarmeCalls.createCustomer(pg, pagarmeCustomer(), 'idem-cus');
    const r = rec.only();
    assert.equal(r.url, '/core/v5/customers');
    assertPgHeaders(r, 'idem-cus');
    assert.equal(JSON.parse(r.body).phones.mobile_phone.area_code, '11');
    assert.equal(c.result.id, 'cus_AbCdEfGh12345678');
    assert.equal(c.result.phones?.mobilePhone?.areaCode, '11');
  });

  it('400/401/404/412/422/500 throw CustomError (an ApiError) with an EMPTY message, statusCode, raw body and parsed result', async () => {
    const cases: Array<[number, unknown]> = [
      [422, { message: 'The request is invalid.', errors: { 'order.customer.name': ['The name field is required.'] }, request: {} }],
      [400, { message: 'Order not found.' }],
      [401, { message: 'Authorization has been denied for this request.' }],
      [404, { message: 'Charge not found.' }],
      [412, { message: 'Charge already canceled.' }],
      [500, { message: 'An error has occurred.' }],
    ];
    for (const [status, body] of cases) {
      rec.reply(() => ({ status, body }));
      const err = await rejects(pagarmeCalls.getOrder(pg, 'or_x'), CustomError);
      assert.ok(err instanceof ApiError);
      // client.ts passes 'Contract validation error' etc. where throwOn expects isTemplate, so no message survives
      assert.equal(err.message, '');
      assert.equal(err.statusCode, status);
      assert.equal(err.body, JSON.stringify(body));
      assert.deepEqual(JSON.parse(JSON.stringify(err.result)), body); // json-bigint: null-prototype objects
      assert.equal(err.headers['content-type'], 'application/json');
      assert.deepEqual(Object.keys(err).sort(), ['body', 'headers', 'request', 'result', 'statusCode']);
    }
  });

  it('other non-2xx statuses (403, 409, 429, 502, 503) throw a plain ApiError without result', async () => {
    for (const status of [403, 409, 429, 502, 503]) {
      rec.reply(() => ({ status, body: { message: 'nope' } }));
      const err = await rejects(pagarmeCalls.getOrder(pg, 'or_x'), ApiError);
      assert.ok(!(err instanceof CustomError));
      assert.equal(err.message, `Response status code was not ok: ${status}.`);
      assert.equal(err.statusCode, status);
      assert.equal(err.result, undefined);
      assert.equal(err.body, '{"message":"nope"}');
    }
  });

  it('response deserialization: every field optional, types strict for strings, numeric strings coerced', async () => {
    const ok = async (body: unknown) => {
      rec.reply(() => ({ status: 200, body }));
      // JSON round trip: dropped nulls show up as keys holding undefined
      return JSON.parse(JSON.stringify((await pagarmeCalls.getOrder(pg, 'or_x')).result)) as Awaited<ReturnType<typeof pagarmeCalls.getOrder>>['result'];
    };
    const bad = async (body: unknown) => {
      rec.reply(() => ({ status: 200, body }));
      return rejects(pagarmeCalls.getOrder(pg, 'or_x'), ResponseValidationError);
    };
    assert.deepEqual(await ok({}), {});
    assert.deepEqual(await ok({ id: 'or_1', amount: '1999', closed: 'true', customer: null }), { id: 'or_1', amount: 1999, closed: true, customer: null });
    // unknown transaction_type falls back to the base transaction schema
    assert.equal((await ok({ charges: [{ last_transaction: { transaction_type: 'future_method', amount: 1 } }] })).charges?.[0]?.lastTransaction?.transactionType, 'future_method');

    const numericId = await bad({ id: 1234 });
    assert.equal(numericId.statusCode, 200);
    assert.match(numericId.message, /^The response did not match the response schema\./);
    await bad({ metadata: { attempt: 1 } }); // dict(string()): values must be strings
    await bad({ amount: 'R$ 19,99' });
    await bad({ closed: 1 });
    await bad({ charges: {} }); // arrays must be arrays
    // optional() also takes null (the key is then dropped), nullable() keys may be missing (they become null)
    assert.deepEqual(await ok({ integration: { code: null }, charges: [{ payment_origin: { charge_id: null }, last_transaction: { transaction_type: 'credit_card', acquirer_nsu: null } }] }), {
      integration: {}, charges: [{ paymentOrigin: {}, lastTransaction: { transactionType: 'credit_card' } }],
    });
    assert.deepEqual((await ok({ charges: [{ last_transaction: { transaction_type: 'credit_card', retry_info: { transaction_limit: 1 } } }] })).charges?.[0]?.lastTransaction, {
      transactionType: 'credit_card', retryInfo: { brandFailureReturnCode: null, transactionLimit: 1, transactionDateLimit: null },
    });
    // a wrong type deep inside is caught too
    await bad({ charges: [{ last_transaction: { transaction_type: 'pix', qr_code: 123 } }] });
    await bad({ customer: { phones: { mobile_phone: { area_code: 11 } } } });
  });

  it('an empty or non-JSON 2xx body is an error, so a refund answered 204 would throw', async () => {
    rec.reply(() => ({ status: 204 }));
    const empty = await rejects(pagarmeCalls.refundFull(pg, 'ch_x'), Error);
    assert.match(empty.message, /^Could not parse body as JSON\. The response body is empty\./);
    rec.reply(() => ({ status: 200, raw: 'ok' }));
    const notJson = await rejects(pagarmeCalls.getCharge(pg, 'ch_x'), Error);
    assert.match(notJson.message, /^Could not parse body as JSON\./);
  });

  it('takes a host only: a base URL with a path prefix is refused by the helper', () => {
    assert.throws(() => pagarmeClient(`${rec.base}/compat/pagarme`, 'k'), /host only/);
  });
});
