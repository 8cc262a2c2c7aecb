/**
 * The official gateway SDKs from npm, pointed at an arbitrary base URL (RouteGate, or a recording server) in the least
 * intrusive way each SDK supports, plus small typed wrappers for the calls the compatibility-mode tests make.
 *
 * - stripe: its own client options `host`, `port`, `protocol` (documented). Root paths only: the SDK has no base-path
 *   option, it always sends `/v1/...`.
 * - mercadopago: no base-URL, fetch or agent option (the base URL is a hard-coded constant and requests go through the
 *   global `fetch`). The application installs an undici global dispatcher (`setGlobalDispatcher`, the documented way
 *   to configure Node's built-in fetch) that sends requests for https://api.mercadopago.com to the base URL, prefix
 *   included; every other origin goes to the previous global dispatcher untouched. `close()` restores it.
 * - @pagarme/pagarme-nodejs-sdk: no base-URL option either (one environment, `https://api.pagar.me/core/v5`); its
 *   stable `httpClientOptions.httpsAgent` takes a custom https.Agent, and this one opens its connections to the base
 *   URL's host and port (TLS with that host's own name when the base URL is https, plain TCP when http). Root paths
 *   only: the SDK sends `/core/v5/...` with `Host: api.pagar.me`.
 *
 * docs/sdk-notes.md explains the choices and records what each SDK puts on the wire.
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import Stripe from 'stripe';
import { MercadoPagoConfig, Payment, PaymentRefund, Customer } from 'mercadopago';
import {
  Client as PagarmeClient,
  OrdersController,
  ChargesController,
  CustomersController,
  type CreateOrderRequest,
  type CreateCustomerRequest,
  type CreatePaymentRequest,
  type CreateCancelChargeRequest,
} from '@pagarme/pagarme-nodejs-sdk';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';

/** The origins the SDKs have hard-coded. */
export const MERCADOPAGO_ORIGIN = 'https://api.mercadopago.com';
export const PAGARME_HOST = 'api.pagar.me';

function rootOnly(sdk: string, base: URL): void {
  if (base.pathname !== '/' && base.pathname !== '') {
    throw new Error(`${sdk} SDK takes a host only (it always sends root paths); got path prefix ${base.pathname}`);
  }
}

function defaultPort(base: URL): number {
  return base.port ? Number(base.port) : base.protocol === 'https:' ? 443 : 80;
}

// ---------------------------------------------------------------------------------------------------------------
// Stripe
// ---------------------------------------------------------------------------------------------------------------

/**
 * `new Stripe(key, { host, port, protocol })`: the only change an existing Stripe integration makes. `extra` is for
 * test knobs such as `maxNetworkRetries: 0` (an outage test does not want the SDK's 2 automatic retries).
 */
export function stripeClient(baseUrl: string, apiKey: string, extra: Stripe.StripeConfig = {}): Stripe {
  const base = new URL(baseUrl);
  rootOnly('stripe', base);
  return new Stripe(apiKey, {
    host: base.hostname,
    port: defaultPort(base),
    protocol: base.protocol === 'http:' ? 'http' : 'https',
    ...extra,
  });
}

export interface StripeCardInput {
  amount: number;
  paymentMethod: string;
  manualCapture?: boolean;
  idempotencyKey?: string;
  metadata?: Record<string, string>;
}

export interface StripeBoletoInput {
  amount: number;
  taxId: string;
  name: string;
  email: string;
  address: { line1: string; city: string; state: string; postal_code: string; country: string };
  expiresAfterDays?: number;
  idempotencyKey?: string;
}

export const stripeCalls = {
  createCardPayment(stripe: Stripe, input: StripeCardInput): Promise<Stripe.Response<Stripe.PaymentIntent>> {
    return stripe.paymentIntents.create(
      {
        amount: input.amount,
        currency: 'brl',
        payment_method: input.paymentMethod,
        allowed_payment_method_types: ['card'],
        confirm: true,
        ...(input.manualCapture ? { capture_method: 'manual' as const } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
        expand: ['latest_charge'],
      },
      input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : undefined,
    );
  },
  createPixPayment(stripe: Stripe, amount: number, idempotencyKey?: string): Promise<Stripe.Response<Stripe.PaymentIntent>> {
    return stripe.paymentIntents.create(
      {
        amount,
        currency: 'brl',
        allowed_payment_method_types: ['pix'],
        payment_method_data: { type: 'pix' },
        payment_method_options: { pix: { expires_after_seconds: 3600 } },
        confirm: true,
      },
      idempotencyKey ? { idempotencyKey } : undefined,
    );
  },
  createBoletoPayment(stripe: Stripe, input: StripeBoletoInput): Promise<Stripe.Response<Stripe.PaymentIntent>> {
    return stripe.paymentIntents.create(
      {
        amount: input.amount,
        currency: 'brl',
        allowed_payment_method_types: ['boleto'],
        payment_method_data: {
          type: 'boleto',
          boleto: { tax_id: input.taxId },
          billing_details: { name: input.name, email: input.email, address: input.address },
        },
        payment_method_options: { boleto: { expires_after_days: input.expiresAfterDays ?? 3 } },
        confirm: true,
      },
      input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : undefined,
    );
  },
  retrievePayment(stripe: Stripe, id: string, expandLatestCharge = false): Promise<Stripe.Response<Stripe.PaymentIntent>> {
    return stripe.paymentIntents.retrieve(id, expandLatestCharge ? { expand: ['latest_charge'] } : {});
  },
  /** Full refund when `amount` is omitted. */
  refund(stripe: Stripe, paymentIntent: string, amount?: number, idempotencyKey?: string): Promise<Stripe.Response<Stripe.Refund>> {
    return stripe.refunds.create(
      { payment_intent: paymentIntent, ...(amount !== undefined ? { amount } : {}) },
      idempotencyKey ? { idempotencyKey } : undefined,
    );
  },
  createCustomer(
    stripe: Stripe,
    input: { name: string; email: string; cpf?: string; metadata?: Record<string, string> },
    idempotencyKey?: string,
  ): Promise<Stripe.Response<Stripe.Customer>> {
    return stripe.customers.create(
      {
        name: input.name,
        email: input.email,
        ...(input.cpf ? { tax_id_data: [{ type: 'br_cpf' as const, value: input.cpf }] } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      },
      idempotencyKey ? { idempotencyKey } : undefined,
    );
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Mercado Pago
// ---------------------------------------------------------------------------------------------------------------

/**
 * An undici dispatcher that sends requests for `fromOrigin` to `toBaseUrl` (origin replaced, the base URL's path
 * prefixed) and every other request to `fallback` unchanged.
 */
export function originRedirectDispatcher(fromOrigin: string, toBaseUrl: string, fallback: Dispatcher): { dispatcher: Dispatcher; agent: Agent } {
  const target = new URL(toBaseUrl);
  const prefix = target.pathname.replace(/\/+$/, '');
  const agent = new Agent();
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    const origin = opts.origin === undefined ? undefined : new URL(String(opts.origin)).origin;
    if (origin !== fromOrigin) return fallback.dispatch(opts, handler);
    return dispatch({ ...opts, origin: target.origin, path: prefix + opts.path }, handler);
  });
  return { dispatcher, agent };
}

export interface MercadoPagoClients {
  config: MercadoPagoConfig;
  payment: Payment;
  refund: PaymentRefund;
  customer: Customer;
  /** Puts the previous global dispatcher back and closes the redirecting agent. */
  close(): Promise<void>;
}

/**
 * The Mercado Pago SDK unchanged (`new MercadoPagoConfig({ accessToken })`); the application sets the global
 * dispatcher once. `options` is the SDK's own global request options (e.g. `maxRetries: 0` for an outage test).
 */
export function mercadoPagoClient(
  baseUrl: string,
  accessToken: string,
  options: ConstructorParameters<typeof MercadoPagoConfig>[0]['options'] = {},
): MercadoPagoClients {
  const previous = getGlobalDispatcher();
  const { dispatcher, agent } = originRedirectDispatcher(MERCADOPAGO_ORIGIN, baseUrl, previous);
  setGlobalDispatcher(dispatcher);
  const config = new MercadoPagoConfig({ accessToken, options });
  return {
    config,
    payment: new Payment(config),
    refund: new PaymentRefund(config),
    customer: new Customer(config),
    async close() {
      if (getGlobalDispatcher() === dispatcher) setGlobalDispatcher(previous);
      await agent.close();
    },
  };
}

type MpCreateBody = Parameters<Payment['create']>[0]['body'];
type MpPayer = NonNullable<MpCreateBody['payer']>;

export const mercadoPagoCalls = {
  createCardPayment(
    mp: MercadoPagoClients,
    input: { amount: number; token: string; paymentMethodId: string; payer: MpPayer; capture?: boolean; externalReference?: string },
    idempotencyKey?: string,
  ) {
    return mp.payment.create({
      body: {
        transaction_amount: input.amount,
        token: input.token,
        installments: 1,
        payment_method_id: input.paymentMethodId,
        payer: input.payer,
        ...(input.capture === false ? { capture: false } : {}),
        ...(input.externalReference ? { external_reference: input.externalReference } : {}),
      },
      requestOptions: idempotencyKey ? { idempotencyKey } : undefined,
    });
  },
  createPixPayment(mp: MercadoPagoClients, input: { amount: number; payer: MpPayer; description?: string }, idempotencyKey?: string) {
    return mp.payment.create({
      body: { transaction_amount: input.amount, payment_method_id: 'pix', payer: input.payer, description: input.description },
      requestOptions: idempotencyKey ? { idempotencyKey } : undefined,
    });
  },
  createBoletoPayment(mp: MercadoPagoClients, input: { amount: number; payer: MpPayer; dateOfExpiration?: string }, idempotencyKey?: string) {
    return mp.payment.create({
      body: {
        transaction_amount: input.amount,
        payment_method_id: 'bolbradesco',
        payer: input.payer,
        ...(input.dateOfExpiration ? { date_of_expiration: input.dateOfExpiration } : {}),
      },
      requestOptions: idempotencyKey ? { idempotencyKey } : undefined,
    });
  },
  getPayment(mp: MercadoPagoClients, id: string | number) {
    return mp.payment.get({ id });
  },
  /** Full refund: `PaymentRefund.total` (POST .../refunds with body `{}`). */
  refundFull(mp: MercadoPagoClients, paymentId: string | number, idempotencyKey?: string) {
    return mp.refund.total({ payment_id: paymentId, requestOptions: idempotencyKey ? { idempotencyKey } : undefined });
  },
  /** Partial refund: `PaymentRefund.create` with `{ amount }` in reais. */
  refundPartial(mp: MercadoPagoClients, paymentId: string | number, amount: number, idempotencyKey?: string) {
    return mp.refund.create({
      payment_id: paymentId,
      body: { amount },
      requestOptions: idempotencyKey ? { idempotencyKey } : undefined,
    });
  },
  createCustomer(
    mp: MercadoPagoClients,
    input: { email: string; firstName?: string; lastName?: string; cpf?: string },
    idempotencyKey?: string,
  ) {
    return mp.customer.create({
      body: {
        email: input.email,
        first_name: input.firstName,
        last_name: input.lastName,
        ...(input.cpf ? { identification: { type: 'CPF', number: input.cpf } } : {}),
      },
      requestOptions: idempotencyKey ? { idempotencyKey } : undefined,
    });
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Pagar.me
// ---------------------------------------------------------------------------------------------------------------

/**
 * An https.Agent for the Pagar.me SDK's `httpClientOptions.httpsAgent`: whatever host the SDK asks for, the
 * connection goes to the base URL's host and port: TLS (verified against the base URL's own host name) when the
 * base URL is https, plain TCP when it is http (a local RouteGate or a test server).
 */
export class BaseUrlHttpsAgent extends https.Agent {
  private readonly target: URL;

  constructor(baseUrl: string) {
    super({ keepAlive: true });
    this.target = new URL(baseUrl);
    rootOnly('@pagarme/pagarme-nodejs-sdk', this.target);
  }

  override createConnection(_options: unknown, callback?: (err: Error | null, stream: Duplex) => void): Duplex {
    const host = this.target.hostname;
    const port = defaultPort(this.target);
    const socket =
      this.target.protocol === 'https:'
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
        : net.connect({ host, port });
    if (callback) {
      const ready = this.target.protocol === 'https:' ? 'secureConnect' : 'connect';
      socket.once(ready, () => callback(null, socket));
      socket.once('error', (err) => callback(err, socket));
      return undefined as unknown as Duplex;
    }
    return socket;
  }
}

export interface PagarmeClients {
  client: PagarmeClient;
  orders: OrdersController;
  charges: ChargesController;
  customers: CustomersController;
  agent: BaseUrlHttpsAgent;
  close(): void;
}

/**
 * The Pagar.me SDK with Basic auth (secret key, empty password) and the redirecting agent; `httpClientOptions` extra
 * knobs (timeout, retryConfig) merge in.
 */
export function pagarmeClient(
  baseUrl: string,
  secretKey: string,
  httpClientOptions: { timeout?: number } = {},
): PagarmeClients {
  const agent = new BaseUrlHttpsAgent(baseUrl);
  const client = new PagarmeClient({
    basicAuthCredentials: { username: secretKey, password: '' },
    httpClientOptions: { ...httpClientOptions, httpsAgent: agent },
  });
  return {
    client,
    orders: new OrdersController(client),
    charges: new ChargesController(client),
    customers: new CustomersController(client),
    agent,
    close: () => agent.destroy(),
  };
}

/** The address shape the SDK's request schema demands in full (every field is required by the SDK, not the API). */
export function pagarmeAddress(overrides: Partial<CreateCustomerRequest['address']> = {}): CreateCustomerRequest['address'] {
  return {
    street: 'Av Paulista',
    number: '100',
    zipCode: '01310100',
    neighborhood: 'Bela Vista',
    city: 'Sao Paulo',
    state: 'SP',
    country: 'BR',
    complement: '',
    line1: '100, Av Paulista, Bela Vista',
    line2: '',
    ...overrides,
  };
}

export function pagarmeCustomer(overrides: Partial<CreateCustomerRequest> = {}): CreateCustomerRequest {
  return {
    name: 'Maria Souza',
    email: 'maria@example.com',
    document: '12345678909',
    type: 'individual',
    address: pagarmeAddress(),
    metadata: { source: 'sdk-test' },
    phones: { mobilePhone: { countryCode: '55', areaCode: '11', number: '987654321' } },
    code: 'cust-1',
    ...overrides,
  };
}

function pagarmeOrder(code: string, amount: number, payment: CreatePaymentRequest, customer = pagarmeCustomer()): CreateOrderRequest {
  return {
    code,
    closed: true,
    items: [{ amount, description: 'Pedido', quantity: 1, category: 'geral', code: 'SKU-1' }],
    customer,
    payments: [payment],
  };
}

export const pagarmeCalls = {
  createCardOrder(
    pg: PagarmeClients,
    input: { code: string; amount: number; cardNumber: string; operationType?: 'auth_and_capture' | 'auth_only' },
    idempotencyKey?: string,
  ) {
    return pg.orders.createOrder(
      pagarmeOrder(input.code, input.amount, {
        paymentMethod: 'credit_card',
        creditCard: {
          installments: 1,
          statementDescriptor: 'MINHALOJA',
          operationType: input.operationType ?? 'auth_and_capture',
          card: {
            number: input.cardNumber,
            holderName: 'MARIA SOUZA',
            expMonth: 12,
            expYear: 2030,
            cvv: '123',
            billingAddress: pagarmeAddress(),
          },
        },
      }),
      idempotencyKey,
    );
  },
  createPixOrder(pg: PagarmeClients, input: { code: string; amount: number; expiresIn?: number }, idempotencyKey?: string) {
    return pg.orders.createOrder(
      pagarmeOrder(input.code, input.amount, { paymentMethod: 'pix', pix: { expiresIn: input.expiresIn ?? 3600 } }),
      idempotencyKey,
    );
  },
  createBoletoOrder(pg: PagarmeClients, input: { code: string; amount: number; dueAt?: string }, idempotencyKey?: string) {
    return pg.orders.createOrder(
      pagarmeOrder(input.code, input.amount, {
        paymentMethod: 'boleto',
        boleto: {
          retries: 0,
          instructions: 'Nao receber apos vencimento',
          dueAt: input.dueAt ?? '2030-01-10T23:59:59Z',
          billingAddress: pagarmeAddress(),
          documentNumber: input.code,
          statementDescriptor: 'MINHALOJA',
        },
      }),
      idempotencyKey,
    );
  },
  getOrder(pg: PagarmeClients, orderId: string) {
    return pg.orders.getOrder(orderId);
  },
  getCharge(pg: PagarmeClients, chargeId: string) {
    return pg.charges.getCharge(chargeId);
  },
  /** Full refund/void: DELETE /charges/{id} with no request model. */
  refundFull(pg: PagarmeClients, chargeId: string, idempotencyKey?: string) {
    return pg.charges.cancelCharge(chargeId, undefined, idempotencyKey);
  },
  /** Partial refund: the SDK's request model requires `operationReference` besides `amount` (cents). */
  refundPartial(pg: PagarmeClients, chargeId: string, amount: number, operationReference: string, idempotencyKey?: string) {
    const request: CreateCancelChargeRequest = { amount, operationReference };
    return pg.charges.cancelCharge(chargeId, request, idempotencyKey);
  },
  createCustomer(pg: PagarmeClients, customer: CreateCustomerRequest = pagarmeCustomer(), idempotencyKey?: string) {
    return pg.customers.createCustomer(customer, idempotencyKey);
  },
};
