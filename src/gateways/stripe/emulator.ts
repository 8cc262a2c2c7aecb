import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineEmulator, randomId, type Idempotency, type Outcome } from '../../sandbox/core';
import { type Params, type Json, StripeError, noSuch, missing, list, rejectUnknown, queryParams } from './emulator-wire';
import { newState, createPaymentMethod, pmFromData, resolvePm } from './emulator-payment-methods';
import {
  STRIPE_ACCOUNT_DEFAULT_VERSION, VERSION_FORMAT, intentView, findIntent, unexpectedState, createIntent, confirmIntent, captureIntent, cancelIntent,
  settleVoucher,
} from './emulator-intents';
import { searchIntents, ledgerOf, createRefund, createCustomer, customerView } from './emulator-resources';
import { stripeWebhooks } from './emulator-webhooks';
import { closeDispute, findDispute, openDispute } from './emulator-disputes';

// Stripe PaymentIntents API emulator (shared/gateways/stripe.md): the routes, with Stripe's auth, API versions,
// form-decoded parameters, idempotency and error bodies. Payment methods, intents and the other resources are
// in ./emulator-payment-methods.ts, ./emulator-intents.ts and ./emulator-resources.ts; wire conventions in
// ./emulator-wire.ts. Amounts are integer cents.

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

/** Query and form body together, as Stripe reads parameters. */
function paramsOf(req: FastifyRequest): Params {
  const body = req.body && typeof req.body === 'object' ? (req.body as Params) : {};
  return { ...queryParams(req), ...body };
}

const endpointOf = (req: FastifyRequest) => req.url.split('?')[0].replace(/^\/stripe/, '');

/**
 * Idempotency-Key (stripe.md section 1): on POST, per API key; the first answer is replayed with
 * `Idempotent-Replayed: true`, and reusing a key on another endpoint or with other parameters is a 400.
 */
const IDEMPOTENCY = {
  header: 'idempotency-key',
  methods: ['POST'],
  slot: (req: FastifyRequest, key: string) => `${apiKeyOf(req)}\n${key}`,
  fingerprint: (req: FastifyRequest) => ({ endpoint: endpointOf(req), params: stable(paramsOf(req)) }),
  conflict(first: { endpoint: string; params: string }, now: { endpoint: string; params: string }, key: string): Outcome | undefined {
    if (first.endpoint !== now.endpoint) {
      return { status: 400, body: { error: { type: 'invalid_request_error', message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${first.endpoint}' vs '${now.endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.` } } };
    }
    if (first.params !== now.params) {
      return { status: 400, body: { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` } } };
    }
    return undefined;
  },
  // Stripe saves whatever an endpoint that began executing answered, "including 402 declines and 500s"
  // (stripe.md section 1); a 400 from parameter validation saves nothing and can be retried with the same key.
  stores: (status: number) => status === 200 || status === 402 || status >= 500,
  replayHeaders: { 'idempotent-replayed': 'true' },
};

interface Call { params: Params; livemode: boolean; id: string; expand: string[]; version: string; rawCards: boolean }
type Handler = (call: Call) => Json;

/** Auth, API version, parameter decoding, idempotency replay and error bodies for every route. */
function routeFor(idempotency: Idempotency, handler: Handler) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
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
    const { expand, ...params } = paramsOf(req);
    return idempotency.run(req, reply, () => {
      try {
        return {
          status: 200,
          body: handler({
            params, livemode: key!.includes('_live_'), id: (req.params as { id?: string }).id ?? '', expand: list(expand), version,
            // Emulated accounts whose secret key contains "rawcard" have raw card data access (the real one is granted by Stripe).
            rawCards: key!.includes('rawcard'),
          }),
        };
      } catch (err) {
        if (err instanceof StripeError) return { status: err.status, body: err.body };
        req.log.error({ err }, 'stripe emulator handler failed');
        return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
      }
    });
  };
}

export const stripeEmulator = defineEmulator((app, core) => {
  const s = core.state(newState());
  core.ledger(() => ledgerOf(s));
  const idempotency = core.idempotency(IDEMPOTENCY);
  const webhooks = stripeWebhooks(core, s);
  // Whatever a call answered or refused with (a decline is a 402 carrying the intent), its intent may have changed.
  const touched = (body: Json | undefined) => {
    const id = body?.object === 'payment_intent' ? body.id : body?.object === 'refund' ? body.payment_intent : undefined;
    if (id) webhooks.changed(id);
  };
  const route = (handler: Handler) => routeFor(idempotency, (call) => {
    try {
      const out = handler(call);
      touched(out);
      return out;
    } catch (err) {
      if (err instanceof StripeError) touched(err.body.error?.payment_intent);
      throw err;
    }
  });
  core.payer((id) => {
    const pi = s.intents.get(id);
    if (!pi) return { ok: false, status: 404, message: `No such payment_intent: '${id}'` };
    if (pi.status !== 'requires_action') return { ok: false, status: 409, message: `payment_intent ${id} is ${pi.status}, not awaiting the payer` };
    settleVoucher(s, pi, 'pay');
    webhooks.changed(id);
    return { ok: true };
  });

  core.disputes({
    open(id, amount) {
      const outcome = openDispute(s, id, amount);
      if (outcome.ok) webhooks.changed(id);
      return outcome;
    },
    close(id, result) {
      const outcome = closeDispute(s, id, result);
      if (outcome.ok) webhooks.changed(id);
      return outcome;
    },
  });
  app.get('/v1/disputes/:id', route(({ id }) => findDispute(s, id)));

  app.post('/v1/payment_methods', route(({ params, livemode, rawCards }) => createPaymentMethod(s, params, livemode, rawCards)));
  app.get('/v1/payment_methods/:id', route(({ id }) => {
    const pm = s.paymentMethods.get(id);
    if (!pm) throw noSuch('PaymentMethod', id);
    return pm.json;
  }));

  app.post('/v1/payment_intents', route(({ params, livemode, expand, version }) => intentView(s, createIntent(s, params, livemode, version), expand)));
  app.get('/v1/payment_intents/search', route(({ params, expand }) => searchIntents(s, params, expand)));
  app.get('/v1/payment_intents/:id', route(({ id, expand }) => intentView(s, findIntent(s, id), expand)));
  app.post('/v1/payment_intents/:id/confirm', route(({ id, params, livemode, expand }) => {
    const pi = findIntent(s, id);
    if (!['requires_payment_method', 'requires_confirmation'].includes(pi.status)) {
      throw unexpectedState(pi, `This PaymentIntent's status is ${pi.status}, but it must be requires_payment_method or requires_confirmation to be confirmed.`);
    }
    rejectUnknown(params, ['payment_method', 'payment_method_data', 'return_url', 'off_session', 'receipt_email']);
    const pm = params.payment_method ? resolvePm(s, String(params.payment_method), livemode)
      : params.payment_method_data ? pmFromData(s, params.payment_method_data, livemode) : pi.payment_method ? s.paymentMethods.get(pi.payment_method) : undefined;
    if (!pm) throw missing('payment_method');
    pi.last_payment_error = null;
    confirmIntent(s, pi, pm);
    return intentView(s, pi, expand);
  }));
  app.post('/v1/payment_intents/:id/capture', route(({ id, params, expand }) => intentView(s, captureIntent(s, findIntent(s, id), params), expand)));
  app.post('/v1/payment_intents/:id/cancel', route(({ id, params, expand }) => intentView(s, cancelIntent(s, findIntent(s, id), params), expand)));

  app.get('/v1/charges/:id', route(({ id }) => {
    const ch = s.charges.get(id);
    if (!ch) throw noSuch('charge', id);
    return ch;
  }));
  app.post('/v1/refunds', route(({ params }) => createRefund(s, params)));
  app.get('/v1/refunds/:id', route(({ id }) => {
    const re = s.refunds.get(id);
    if (!re) throw noSuch('refund', id);
    return re;
  }));

  app.post('/v1/customers', route(({ params, livemode, expand }) => customerView(s, createCustomer(s, params, livemode), expand)));
  app.get('/v1/customers/:id', route(({ id, expand }) => {
    const c = s.customers.get(id);
    if (!c) throw noSuch('customer', id);
    return customerView(s, c, expand);
  }));

  app.post('/_emulator/payment_intents/:id/pay', route(({ id }) => settleVoucher(s, findIntent(s, id), 'pay')));
  app.post('/_emulator/payment_intents/:id/expire', route(({ id }) => settleVoucher(s, findIntent(s, id), 'expire')));

  // Stripe checks the key first, then answers unknown routes with its own 404 body.
  app.setNotFoundHandler((req, reply) => {
    const denied = authError(apiKeyOf(req));
    if (denied) return reply.code(401).send(denied);
    return reply.code(404).send({
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url.replace(/^\/stripe/, '')}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` },
    });
  });
});
