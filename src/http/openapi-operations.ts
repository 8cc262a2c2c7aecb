/**
 * What each operation answers, for the OpenAPI document at /docs/json: every status it can return, the headers on
 * those answers and the request headers it reads. Routes keep their own `schema.response` as the serializer's
 * allow-list (changing those would change what is sent); this table is the documentation, merged in by the
 * @fastify/swagger `transform` in docs.ts. test/openapi.test.ts sends requests to every operation and fails when
 * an answer's status or headers are not documented here, or when a route is missing from this table.
 */

import { rootRoutes } from '../compat/surfaces';

type Schema = Record<string, unknown>;

interface Operation {
  /** The success status and its body schema ($ref by schema $id, or inline). */
  success: { status: 200 | 201; description: string; schema?: Schema };
  /** Error statuses besides the ones every authenticated route can answer (400, 401, 403, 429, 500). */
  errors: number[];
  /** Takes a JSON body: 413 and 415 become possible. */
  body?: boolean;
  /** Answers carry X-RG-Gateway, X-RG-Fallback-Used and (when a charge exists) X-RG-Charge-Id. */
  rgHeaders?: boolean;
  /** Honours Idempotency-Key (POSTs of the charge routes). */
  idempotent?: boolean;
  /** Not behind x-api-key: /health, /ready, /metrics, the webhook receivers. */
  public?: boolean;
  /** The success body is not JSON. */
  produces?: string;
  /** A compatibility-mode family: the compat gateway's own answers, passthrough included. */
  compat?: boolean;
}

const ref = (id: string): Schema => ({ $ref: `${id}#` });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR (a sentence per problem), or MISSING_CREDENTIALS for the gateway used',
  401: 'MISSING_API_KEY, INVALID_API_KEY, GATEWAY_AUTH_ERROR when the gateway refused the stored credentials, UNAUTHORIZED (GET /metrics without its token), or WEBHOOK_SIGNATURE_INVALID (a webhook receiver)',
  403: 'CLIENT_INACTIVE, or GATEWAY_AUTH_ERROR (status follows the gateway)',
  201: 'compatibility mode: a create, capture or cancel where the compat gateway answers 201 Created (declines too, where it answers them so)',
  402: 'compatibility mode: a declined card, in the compat gateway\'s convention',
  404: 'NOT_FOUND: no such resource for this account',
  409: 'IDEMPOTENCY_CONFLICT (Idempotency-Key reused with another body, or its first request still running), CHARGE_BUSY (on a webhook receiver: the charge stayed busy; the gateway retries), or ALREADY_EXISTS (a coproducer e-mail in use)',
  413: 'PAYLOAD_TOO_LARGE: body over ROUTEGATE_BODY_LIMIT',
  415: 'UNSUPPORTED_MEDIA_TYPE: send the body as application/json',
  422: 'GATEWAY_UNSUPPORTED_OPERATION: the gateway cannot do this, or needs something first',
  429: 'RATE_LIMIT_EXCEEDED: per-key or per-IP limit; see Retry-After',
  500: 'INTERNAL_ERROR (logged with the request id)',
  502: 'GATEWAY_ERROR (declines included: the message starts with the decline code), GATEWAY_UNREACHABLE, or WEBHOOK_NOT_DELIVERED (a webhook receiver: stored, the merchant backend has not taken it yet; the gateway retries)',
  503: 'SERVICE_UNAVAILABLE: the database is not available or not writable, or mappings are missing',
  504: 'GATEWAY_TIMEOUT: the gateway did not answer in time; retry with the same Idempotency-Key',
};

const AUTHENTICATED = [400, 401, 403, 429, 500];

// Compatibility mode: one family per prefix and method (docs/compatibility.md lists each gateway's native paths).
const COMPAT_FAMILY: Operation = {
  success: { status: 200, description: 'the compat gateway\'s own answer: a translated operation in its native shape, or its answer to a passed-through call (X-RG-Passthrough: true; any status it sends)' },
  errors: [201, 402, 404, 409, 422, 502, 504], body: true, rgHeaders: true, idempotent: true, compat: true,
};
// The root paths are the compat surfaces' own (src/compat/surfaces.ts), so a gateway's surface documents itself.
const COMPAT_OPERATIONS = Object.fromEntries(['/compat/:gateway/*', ...rootRoutes()].flatMap((path) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [`${m} ${path}`, COMPAT_FAMILY])));

export const OPERATIONS: Record<string, Operation> = {
  'GET /health': { success: { status: 200, description: 'the process is up and the database answers' }, errors: [503], public: true },
  'GET /ready': { success: { status: 200, description: 'the database is writable and every gateway\'s charge mappings are loaded' }, errors: [503], public: true },
  'GET /metrics': {
    success: { status: 200, description: 'Prometheus text format. Needs `Authorization: Bearer <ROUTEGATE_METRICS_TOKEN>` when that variable is set.' },
    errors: [401], public: true, produces: 'text/plain',
  },
  'GET /ops/mappings': {
    success: { status: 200, description: 'the mapping set in use: folder, version, loadedAt, failingFixtures (docs/mappings.md). Needs `Authorization: Bearer <ROUTEGATE_METRICS_TOKEN>` when that variable is set, else a call from the same machine.' },
    errors: [401], public: true,
  },
  'POST /ops/mappings/reload': {
    success: { status: 200, description: '`data.reloaded` true: the folder compiled, every fixture passed through the money guard and the new set serves; false: the running set is kept and `data.problems` says why (docs/mappings.md). Same authorization as GET /ops/mappings.' },
    errors: [401], public: true,
  },
  'GET /api/v1/clients/me': { success: { status: 200, description: 'the account behind the key', schema: ref('client-response') }, errors: [] },
  'PATCH /api/v1/clients/settings': { success: { status: 200, description: 'the settings after the change', schema: ref('settings-response') }, errors: [], body: true },
  'POST /api/v1/credentials': { success: { status: 201, description: 'stored; values masked', schema: ref('credentials-response') }, errors: [], body: true },
  'GET /api/v1/credentials': { success: { status: 200, description: 'configured gateways, masked', schema: ref('credentials-list-response') }, errors: [] },
  'DELETE /api/v1/credentials/:gateway': {
    success: { status: 200, description: 'removed', schema: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { gateway: { type: 'string' }, deleted: { type: 'boolean' } } } } } },
    errors: [404],
  },
  'POST /api/v1/charges': {
    success: { status: 201, description: 'the charge (gateway answered; status says approved, pending, ...)', schema: ref('charge-response') },
    errors: [404, 409, 422, 502, 504], body: true, rgHeaders: true, idempotent: true,
  },
  'GET /api/v1/charges': {
    success: { status: 200, description: 'a page of charges, newest first', schema: ref('charge-list-response') },
    errors: [], rgHeaders: true,
  },
  'GET /api/v1/charges/:id': {
    success: { status: 200, description: 'the stored charge with its attempts; with refresh=true, as its gateway has it now', schema: ref('charge-response') },
    errors: [404, 409, 502, 504], rgHeaders: true,
  },
  'POST /api/v1/charges/:id/capture': {
    success: { status: 200, description: 'the captured charge', schema: ref('charge-response') },
    errors: [404, 409, 422, 502, 504], body: true, rgHeaders: true, idempotent: true,
  },
  'POST /api/v1/charges/:id/cancel': {
    success: { status: 200, description: 'the cancelled charge', schema: ref('charge-response') },
    errors: [404, 409, 422, 502, 504], body: true, rgHeaders: true, idempotent: true,
  },
  'POST /api/v1/charges/:id/refunds': {
    success: { status: 201, description: 'the refund was created: the charge with `refund`', schema: ref('charge-response') },
    errors: [404, 409, 422, 502, 504], body: true, rgHeaders: true, idempotent: true,
  },
  'POST /api/v1/coproducers': {
    success: { status: 201, description: 'the coproducer; split items name it by e-mail (coproducerEmail)', schema: ref('coproducer-response') },
    errors: [409], body: true,
  },
  'GET /api/v1/coproducers': {
    success: {
      status: 200, description: 'a page of coproducers, newest first',
      schema: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          data: { type: 'array', items: { type: 'object', additionalProperties: true, description: 'coproducer' } },
          pagination: { type: 'object', properties: { limit: { type: 'integer' }, nextCursor: { type: ['string', 'null'] } } },
        },
      },
    },
    errors: [],
  },
  'GET /api/v1/coproducers/:id': { success: { status: 200, description: 'the coproducer', schema: ref('coproducer-response') }, errors: [404] },
  'PATCH /api/v1/coproducers/:id': {
    success: { status: 200, description: 'the coproducer after the change', schema: ref('coproducer-response') }, errors: [404, 409], body: true,
  },
  'DELETE /api/v1/coproducers/:id': {
    success: { status: 200, description: 'deleted', schema: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { id: { type: 'string' }, deleted: { type: 'boolean' } } } } } },
    errors: [404],
  },
  'POST /api/v1/webhooks/:gateway/:token': {
    success: {
      status: 200,
      description: "taken: stored, forwarded (or nothing to forward), a duplicate, or an event RouteGate does not forward. No x-api-key: the gateway's signature (docs/webhooks.md) authenticates it",
      schema: ref('webhook-receipt'),
    },
    errors: [400, 401, 404, 409, 413, 500, 502], public: true,
  },
  'POST /api/v1/webhooks/:gateway': {
    success: { status: 200, description: "taken (see the token form); the account is the one whose charge the event names, and an event matching no account is acknowledged", schema: ref('webhook-receipt') },
    errors: [400, 401, 404, 409, 413, 500, 502], public: true,
  },
  'GET /api/v1/installments': {
    success: { status: 200, description: "the plans for the amount (count, installment, total, interest): from the account's installment settings, or with a gateway that quotes itself and a card's bin, that gateway's own quote (docs/installments.md)", schema: ref('installment-quote-response') },
    errors: [400, 422, 502, 504],
  },
  'GET /api/v1/events': { success: { status: 200, description: 'a page of events, newest first', schema: ref('event-list-response') }, errors: [] },
  'GET /api/v1/events/:id': { success: { status: 200, description: 'the event as forwarded, with every delivery and attempt', schema: ref('event-response') }, errors: [404] },
  'POST /api/v1/events/:id/redeliver': {
    success: { status: 200, description: 'a new delivery, attempted now; retried from the outbox if the backend does not take it', schema: ref('redelivery-response') },
    errors: [404],
  },
  'POST /api/v1/customers': {
    success: { status: 201, description: 'the customer as created at the gateway; send its externalId as customerId', schema: ref('customer-response') },
    errors: [409, 422, 502, 504], body: true, idempotent: true,
  },
  ...COMPAT_OPERATIONS,
};

const header = (type: string, description: string) => ({ type, description });


const COMMON_HEADERS = {
  'x-request-id': header('string', 'the request id: the one sent (if well-formed) or a generated UUID; on every log line of the request'),
};
const RATE_HEADERS = {
  'x-ratelimit-limit': header('integer', 'requests allowed per minute (per API key, and per client IP)'),
  'x-ratelimit-remaining': header('integer', 'requests left in the current window'),
  'x-ratelimit-reset': header('integer', 'seconds until the window resets'),
};
const RG_HEADERS = {
  'x-rg-gateway': header('string', 'the gateway that processed the call (or was asked for, before any attempt)'),
  'x-rg-fallback-used': header('string', '`true` when a fallback gateway processed the charge, else `false`'),
  'x-rg-charge-id': header('string', 'the internal charge id; absent when the request failed before a charge existed'),
  'x-rg-error-code': header('string', 'compatibility mode: the RouteGate error code of a native-shaped error'),
};
const PASSTHROUGH = { 'x-rg-passthrough': header('string', '`true` when the call was passed through to the compat gateway untranslated') };
const REPLAYED = { 'idempotent-replayed': header('string', '`true` when this is the stored answer to an earlier request with the same Idempotency-Key') };
const RETRY_AFTER = { 'retry-after': header('integer', 'seconds to wait before retrying') };

/** The OpenAPI responses of one operation, in the shape @fastify/swagger reads from `schema.response`. */
function responses(op: Operation): Record<string, Schema> {
  const headersFor = (status: number) => ({
    ...COMMON_HEADERS,
    ...(op.public ? {} : RATE_HEADERS),
    ...(status === 429 ? RETRY_AFTER : {}),
    ...(op.rgHeaders ? RG_HEADERS : {}),
    ...(op.idempotent && status !== 429 ? REPLAYED : {}),
    ...(op.compat ? PASSTHROUGH : {}),
  });
  const out: Record<string, Schema> = {};
  const successSchema = op.produces ? { type: 'string' } : op.success.schema ?? { type: 'object' };
  out[op.success.status] = { description: op.success.description, headers: headersFor(op.success.status), ...successSchema };
  const statuses = new Set([...(op.public ? [] : AUTHENTICATED), ...(op.body ? [413, 415] : []), ...op.errors]);
  for (const status of [...statuses].sort()) {
    // Native errors take the compat gateway's shape (its native.error mapping), not the envelope.
    const body = op.compat ? { type: 'object', description: status < 400 ? 'the compat gateway\'s native answer' : 'the compat gateway\'s native error body' } : ref('error-envelope');
    out[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'a native error', headers: headersFor(status), ...body };
  }
  return out;
}

/** @fastify/swagger `transform`: the route's schema with this table's responses and request headers. */
export function documentRoute({ schema, url, route }: { schema: Schema | undefined; url: string; route: { method: string | string[] } }): { schema: Schema; url: string } {
  const method = Array.isArray(route.method) ? route.method[0] : route.method;
  const op = OPERATIONS[`${method} ${url}`];
  if (!op || !schema || schema.hide) return { schema: schema ?? {}, url };
  const doc: Schema = { ...schema, response: responses(op) };
  if (op.produces) doc.produces = [op.produces];
  if (op.public) doc.security = [];
  const requestHeaders: Record<string, Schema> = {
    'x-request-id': header('string', 'optional; 1 to 128 characters of [A-Za-z0-9_.:-], echoed back and put on every log line'),
  };
  if (op.idempotent) {
    requestHeaders['idempotency-key'] = header('string',
      '1 to 255 visible ASCII characters. The same key and body replay the first answer (kept 24 hours); the same key with another body is 409.');
  }
  if (op.compat) {
    requestHeaders.authorization = header('string', 'the RouteGate key as `Bearer <key>`, or Basic with the key as user (also `access_token` or `x-api-key`)');
  }
  if (url === '/metrics') requestHeaders.authorization = header('string', '`Bearer <ROUTEGATE_METRICS_TOKEN>`, when that variable is set');
  doc.headers = { type: 'object', properties: requestHeaders };
  return { schema: doc, url };
}
