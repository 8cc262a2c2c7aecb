/**
 * Every public error RouteGate answers with, declared once, in the spirit of Fastify's lib/errors.js.
 *
 * - PUBLIC_CODES: what a client sees in `error.code`, each with its HTTP status and whether a retry can
 *   succeed. SPEC.md's error table plus the few the service needs beyond it.
 * - ERRORS: every situation, keyed like Fastify's FST_ERR_* (key = situation, not code), each with its public
 *   code and a message template with named `{params}`. Several situations share one public code.
 * - rgError(key, params, extra): the only way src/ makes one; callers pass parameters, never text.
 *
 * docs/errors.md shows both tables; test/errors.test.ts keeps code, catalogue and docs in step.
 */

/** Whether retrying can succeed, as docs/errors.md says it. */
export type Retry =
  | 'no' | 'no, fix credentials' | 'yes' | 'yes, shortly' | 'yes, after Retry-After'
  | 'yes, with the same Idempotency-Key' | 'after reading the charge' | 'depends';

interface PublicCodeSpec {
  readonly status: number;
  /** A second status the answer may carry (GATEWAY_AUTH_ERROR follows the gateway's 401 or 403). */
  readonly altStatus?: number;
  readonly retry: Retry;
}

export const PUBLIC_CODES = {
  VALIDATION_ERROR: { status: 400, retry: 'no' },
  MISSING_API_KEY: { status: 401, retry: 'no' },
  INVALID_API_KEY: { status: 401, retry: 'no' },
  GATEWAY_AUTH_ERROR: { status: 401, altStatus: 403, retry: 'no, fix credentials' },
  CLIENT_INACTIVE: { status: 403, retry: 'no' },
  UNAUTHORIZED: { status: 401, retry: 'no' }, // the operator token of GET /metrics (ROUTEGATE_METRICS_TOKEN); a dashboard sign-in
  FORBIDDEN: { status: 403, retry: 'no' }, // dashboard: a form without its CSRF token, a page for the other kind of user
  NOT_FOUND: { status: 404, retry: 'no' },
  METHOD_NOT_ALLOWED: { status: 405, retry: 'no' },
  REQUEST_TIMEOUT: { status: 408, retry: 'yes' },
  IDEMPOTENCY_CONFLICT: { status: 409, retry: 'depends' },
  CHARGE_BUSY: { status: 409, retry: 'yes' }, // another capture/cancel/refund of the same charge is running
  OPERATION_UNSETTLED: { status: 409, retry: 'after reading the charge' }, // an earlier follow-up's outcome is not known yet
  ALREADY_EXISTS: { status: 409, retry: 'no' }, // a coproducer's e-mail is unique in its account
  PAYLOAD_TOO_LARGE: { status: 413, retry: 'no' },
  URI_TOO_LONG: { status: 414, retry: 'no' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retry: 'no' },
  HEADERS_TOO_LARGE: { status: 431, retry: 'no' },
  MISSING_CREDENTIALS: { status: 400, retry: 'no' },
  GATEWAY_UNSUPPORTED_OPERATION: { status: 422, retry: 'no' },
  RATE_LIMIT_EXCEEDED: { status: 429, retry: 'yes, after Retry-After' },
  INTERNAL_ERROR: { status: 500, retry: 'yes' },
  GATEWAY_ERROR: { status: 502, retry: 'depends' },
  GATEWAY_UNREACHABLE: { status: 502, retry: 'yes' },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, retry: 'no' }, // a webhook receiver: the gateway's signature did not verify
  WEBHOOK_NOT_DELIVERED: { status: 502, retry: 'yes' }, // a webhook receiver: stored, but the merchant backend has not taken it yet
  SERVICE_UNAVAILABLE: { status: 503, retry: 'yes' },
  GATEWAY_TIMEOUT: { status: 504, retry: 'yes, with the same Idempotency-Key' },
  // The money guard (docs/mappings.md): an edited mapping rendered an amount other than the operation's; nothing was sent.
  MAPPING_AMOUNT_MISMATCH: { status: 500, retry: 'no' },
} as const satisfies Record<string, PublicCodeSpec>;

export type ErrorCode = keyof typeof PUBLIC_CODES;

/** The codes SPEC.md's error table lists; a test keeps PUBLIC_CODES a superset of it. */
export const SPEC_ERROR_CODES: ErrorCode[] = [
  'VALIDATION_ERROR', 'MISSING_API_KEY', 'INVALID_API_KEY', 'GATEWAY_AUTH_ERROR', 'CLIENT_INACTIVE', 'NOT_FOUND',
  'MISSING_CREDENTIALS', 'GATEWAY_UNSUPPORTED_OPERATION', 'RATE_LIMIT_EXCEEDED', 'GATEWAY_ERROR',
  'GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT',
];

interface ErrorSpec {
  /** The public code; `inherit` (only through RouteGateError#extend): the code of the error it extends. */
  readonly code: ErrorCode | 'inherit';
  /** `{name}` is replaced by the parameter of that name. */
  readonly message: string;
  /** Refines the public code's retry for this situation. */
  readonly retry?: Retry;
  /** The one field at fault: becomes `details.errors` (a template too). */
  readonly field?: { readonly name: string; readonly message: string };
}

const MISSING_GATEWAY = { name: 'gateway', message: 'is required when the account has no primaryGateway' } as const;

export const ERRORS = {
  // Requests refused before any route or handler (src/http/)
  INVALID_REQUEST: { code: 'VALIDATION_ERROR', message: '{fields}' },
  NATIVE_REQUEST_UNREADABLE: { code: 'VALIDATION_ERROR', message: 'The request body is not a {gateway} request RouteGate can read: a value has the wrong type or is out of range' },
  INVALID_JSON: { code: 'VALIDATION_ERROR', message: 'Request body is not valid JSON' },
  EMPTY_JSON_BODY: { code: 'VALIDATION_ERROR', message: 'Request body is empty but content-type is application/json' },
  CONTENT_LENGTH_MISMATCH: { code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body' },
  NUL_CHARACTER: { code: 'VALIDATION_ERROR', message: 'The request holds a NUL character (\\u0000) in {where}: no identifier or text field may contain one' },
  MALFORMED_URL: { code: 'VALIDATION_ERROR', message: 'The URL is malformed: a percent sign must start a valid UTF-8 percent-encoding' },
  MALFORMED_HTTP_REQUEST: { code: 'VALIDATION_ERROR', message: 'Malformed HTTP request' },
  BAD_REQUEST: { code: 'VALIDATION_ERROR', message: 'Bad request: {reason}' },
  UNSUPPORTED_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content type: send the body as application/json' },
  BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the configured limit' },
  CHUNK_EXTENSIONS_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Chunk extensions are larger than allowed' },
  PATH_SEGMENT_TOO_LONG: { code: 'URI_TOO_LONG', message: 'A path segment is longer than any id RouteGate issues ({max} characters)' },
  HEADERS_TOO_LARGE: { code: 'HEADERS_TOO_LARGE', message: 'The request line and headers exceed {max} bytes' },
  REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' },
  NOT_FOUND: { code: 'NOT_FOUND', message: 'Not found' },
  ROUTE_NOT_FOUND: { code: 'NOT_FOUND', message: 'Route {method} {path} not found' },
  METHOD_NOT_ALLOWED: { code: 'METHOD_NOT_ALLOWED', message: 'Method {method} is not allowed on {path}; allowed: {allow}' },
  RATE_LIMIT_EXCEEDED: { code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit of {max} requests per minute exceeded; retry in {seconds} seconds' },
  RATE_LIMITED: { code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded: {reason}' },
  IDEMPOTENCY_KEY_INVALID: {
    code: 'VALIDATION_ERROR', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters', field: { name: 'Idempotency-Key', message: 'is invalid' },
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 'IDEMPOTENCY_CONFLICT', retry: 'no', message: 'Idempotency-Key {key} was already used with a different request; use a new key for a new request',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    code: 'IDEMPOTENCY_CONFLICT', retry: 'yes, shortly', message: 'A request with Idempotency-Key {key} is still being processed; retry shortly',
  },
  DATABASE_UNAVAILABLE: { code: 'SERVICE_UNAVAILABLE', message: 'Database is not available' },
  NOT_READY: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: {problems}' },
  OPERATOR_TOKEN_REQUIRED: { code: 'UNAUTHORIZED', message: 'The mapping operations need Authorization: Bearer <ROUTEGATE_METRICS_TOKEN> (or, with no token set, a call from this machine)' },
  METRICS_TOKEN_REQUIRED: { code: 'UNAUTHORIZED', message: 'GET /metrics needs Authorization: Bearer <ROUTEGATE_METRICS_TOKEN>' },
  METRICS_TOKEN_NOT_SET: { code: 'UNAUTHORIZED', message: 'GET /metrics is closed in production until ROUTEGATE_METRICS_TOKEN is set' },
  SERVICE_UNAVAILABLE: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' },
  INTERNAL_ERROR: { code: 'INTERNAL_ERROR', message: 'Internal server error' },

  // Authentication (src/auth/)
  API_KEY_IN_URL: { code: 'VALIDATION_ERROR', message: 'API keys are not accepted in the URL; send the key in the x-api-key header' },
  MISSING_API_KEY: { code: 'MISSING_API_KEY', message: 'Missing x-api-key header' },
  INVALID_API_KEY: { code: 'INVALID_API_KEY', message: 'Invalid API key' },
  CLIENT_INACTIVE: { code: 'CLIENT_INACTIVE', message: 'This account is deactivated; contact the operator' },

  // Accounts, settings and credentials (src/accounts/)
  SETTINGS_INVALID: { code: 'VALIDATION_ERROR', message: 'Invalid settings: {fields}' },
  INSTALLMENTS_NOT_OFFERED: { code: 'VALIDATION_ERROR', message: '{count} installments are not offered: {why} (GET /api/v1/installments lists the plans)' },
  INSTALLMENTS_TOTAL_CHANGED: { code: 'VALIDATION_ERROR', message: 'the {count}-installment plan totals {total} cents, not the {quoted} quoted; quote again with GET /api/v1/installments' },
  INSTALLMENTS_QUOTE_UNKNOWN: {
    code: 'VALIDATION_ERROR', message: 'installment quote {quoteId} is not one of this account\'s quotes; quote again with GET /api/v1/installments',
    field: { name: 'creditCard.installmentsQuoteId', message: 'is not a quote of this account' },
  },
  INSTALLMENTS_QUOTE_EXPIRED: {
    code: 'VALIDATION_ERROR', message: 'installment quote {quoteId} expired at {expiresAt}; quote again with GET /api/v1/installments',
    field: { name: 'creditCard.installmentsQuoteId', message: 'has expired' },
  },
  INSTALLMENTS_QUOTE_AMOUNT: {
    code: 'VALIDATION_ERROR', message: 'the charge is for {amount} cents but installment quote {quoteId} priced {quoted} cents; the amount must be the quoted one',
    field: { name: 'amount', message: 'is not the quoted amount ({quoted})' },
  },
  INSTALLMENTS_QUOTE_COUNT: {
    code: 'VALIDATION_ERROR', message: 'installment quote {quoteId} has no plan of {count} installments (it quotes {counts})',
    field: { name: 'creditCard.installments', message: 'is not a count of the quote' },
  },
  WEBHOOK_TOKEN_OVERLAP_INVALID: { code: 'VALIDATION_ERROR', message: 'The hours the old webhook URLs keep working must be a whole number from 0 to 720' },
  CREDENTIALS_INVALID: { code: 'VALIDATION_ERROR', message: 'Invalid {gateway} credentials: {fields}' },
  UNKNOWN_GATEWAY: { code: 'NOT_FOUND', message: 'Unknown gateway {gateway}' },
  CREDENTIALS_NOT_STORED: { code: 'NOT_FOUND', message: 'No credentials stored for {gateway}' },

  // The web dashboard's sign-ins and forms (src/auth/logins.ts, src/accounts/onboarding.ts, src/dashboard/)
  ACCOUNT_INVALID: { code: 'VALIDATION_ERROR', message: 'Invalid account: {fields}' },
  OWNER_EMAIL_TAKEN: {
    code: 'VALIDATION_ERROR', message: 'Another account owner already signs in with {email}', field: { name: 'email', message: 'already signs in to another account' },
  },
  OPERATOR_EXISTS: { code: 'VALIDATION_ERROR', message: 'An operator with e-mail {email} already exists', field: { name: 'email', message: 'is already an operator' } },
  PASSWORD_TOO_SHORT: {
    code: 'VALIDATION_ERROR', message: 'A password needs at least {min} characters', field: { name: 'password', message: 'needs at least {min} characters' },
  },
  CURRENT_PASSWORD_WRONG: { code: 'VALIDATION_ERROR', message: 'The current password is wrong', field: { name: 'currentPassword', message: 'is wrong' } },
  LOGIN_FAILED: { code: 'UNAUTHORIZED', message: 'Wrong e-mail or password' },
  LOGIN_THROTTLED: { code: 'RATE_LIMIT_EXCEEDED', retry: 'yes, after Retry-After', message: 'Too many failed sign-ins; try again in {minutes} minutes' },
  ACCOUNT_INACTIVE_LOGIN: { code: 'CLIENT_INACTIVE', message: 'This account is deactivated; contact the operator' },
  CSRF_INVALID: { code: 'FORBIDDEN', message: 'This form was not sent from a current dashboard page; reload the page and try again' },
  DASHBOARD_FORBIDDEN: { code: 'FORBIDDEN', message: 'This page is for {audience}s; sign in as one' },
  INVITATION_INVALID: { code: 'NOT_FOUND', message: 'This invitation link is unknown, used or expired; ask the operator for a new one' },
  ACCOUNT_NOT_FOUND: { code: 'NOT_FOUND', message: 'Account {id} not found' },
  // The dashboard's amount fields take reais with a decimal comma (src/dashboard/locale.ts).
  AMOUNT_INVALID: { code: 'VALIDATION_ERROR', message: 'The amount must be in reais, like 50,00, and at least 0,01', field: { name: 'amount', message: 'must be in reais, like 50,00, and at least 0,01' } },

  // Routing a charge (src/charges/router.ts): the first skipped gateway's reason answers when none took it
  NO_GATEWAY: {
    code: 'VALIDATION_ERROR', message: 'No gateway to charge: send "gateway" or set primaryGateway with PATCH /api/v1/clients/settings', field: MISSING_GATEWAY,
  },
  MISSING_CREDENTIALS: { code: 'MISSING_CREDENTIALS', message: 'No {gateway} credentials stored for this account: store them with POST /api/v1/credentials' },
  METHOD_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} does not support {method} charges' },
  CURRENCY_NOT_SUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} cannot charge {method} in {currency}' },
  INSTALLMENTS_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} cannot charge {count} installments in {currency}: {why}' },
  INSTALLMENTS_NO_GATEWAY_PLANS: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} quotes no installment plans for the card with bin {bin}' },
  CARD_TOKEN_NOT_PORTABLE: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: 'the card token belongs to {owner} and cannot be charged on {gateway}' },
  SPLIT_RECIPIENT_UNAVAILABLE: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: 'split recipient ids belong to {owner} and are unknown to {gateway}' },
  SPLIT_COPRODUCER_UNAVAILABLE: {
    code: 'GATEWAY_UNSUPPORTED_OPERATION', message: 'coproducer {email} has no {gateway} recipient (add one with PATCH /api/v1/coproducers/{id})',
  },
  SPLIT_OWN_RECIPIENT_MISSING: {
    code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} splits also name the account\'s own recipient: store it as {field} in the {gateway} credentials',
  },
  SPLIT_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} cannot split a payment' },
  SPLIT_TOO_MANY_RECIPIENTS: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} takes at most {max} split recipient(s) per charge; this split has {count}' },
  SPLIT_OPTION_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} cannot apply {option} to a split recipient' },
  CUSTOMER_ID_REQUIRED: {
    code: 'GATEWAY_UNSUPPORTED_OPERATION',
    message: '{gateway} needs a customer on every charge: send customer with name, email and document (RouteGate registers it at {gateway}), or create one with POST /api/v1/customers (gateway {gateway}) and send its externalId as customerId',
  },
  CUSTOMER_REQUIRED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} needs the buyer on every charge: send customer (name, email, document)' },
  // An adapter's ChargeRequirement: `why` is the gateway's rule, as the adapter states it
  RAW_CARD_NOT_ACCEPTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} {why}: {field} is missing' },
  AUTHENTICATION_REQUIRED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} {why}: {field} is missing' },
  MISSING_PAYER_DATA: { code: 'VALIDATION_ERROR', message: '{gateway} {why}: {field} is missing' },
  CUSTOMER_REGISTRATION_FAILED: { code: 'inherit', message: 'registering the payer as a customer at {gateway} failed, so nothing was charged there: {reason}' },
  NO_FALLBACK: { code: 'inherit', message: '{reason}; no fallback could take the charge: {others}' },

  // Creating a charge (src/charges/orchestrator.ts)
  SPLIT_NOT_RESOLVED: { code: 'INTERNAL_ERROR', message: 'The split was not resolved for {gateway}; nothing was sent' },
  CHARGE_OUTCOME_UNKNOWN: {
    code: 'GATEWAY_TIMEOUT',
    // one literal: a concatenation would lose the parameter types
    message: '{gateway} did not answer in time and its outcome is being confirmed (tried {tried}): charge {id} is stored as processing and will be settled to what {gateway} recorded; read GET /api/v1/charges/{id} or retry with the same Idempotency-Key. Do not charge again with a new key.',
  },
  DEADLINE_PASSED: {
    code: 'GATEWAY_TIMEOUT', retry: 'yes', message: 'The request deadline passed (tried {tried}) and no gateway took the charge; nothing was charged. Last error: {lastError}',
  },
  DEADLINE_PASSED_UNTRIED: {
    code: 'GATEWAY_TIMEOUT', retry: 'yes', message: 'The request deadline passed (no gateway was tried) and no gateway took the charge; nothing was charged',
  },
  CHARGE_INCOMPLETE: {
    code: 'INTERNAL_ERROR', retry: 'after reading the charge',
    message: 'Charge {id} may have reached {gateway} but could not be completed; read GET /api/v1/charges/{id} before retrying',
  },
  // Settled later by the reconciler, and answered to a replayed create
  NEVER_SENT: { code: 'GATEWAY_UNREACHABLE', message: 'no gateway call was made before the service stopped; nothing was charged' },
  NEVER_TAKEN: { code: 'GATEWAY_TIMEOUT', retry: 'yes', message: '{gateway} has no charge with reference {id}: it never took it; nothing was charged' },
  CHARGE_FAILED: { code: 'GATEWAY_ERROR', message: 'Charge {id} failed' },
  CHARGE_BEING_CONFIRMED: { code: 'GATEWAY_TIMEOUT', message: 'Charge {id} is being confirmed with {gateway}' },
  DECLINE_RECORDED: { code: 'GATEWAY_ERROR', retry: 'no', message: '{declineCode}: the payment was declined' },

  // Follow-ups on a charge (capture, cancel, refund, refresh)
  CHARGE_NOT_FOUND: { code: 'NOT_FOUND', message: 'Charge {id} not found' },
  CHARGE_BUSY: { code: 'CHARGE_BUSY', message: 'Another operation on charge {id} is still running; retry when it has finished' },
  OPERATION_OUTCOME_UNKNOWN: {
    code: 'GATEWAY_TIMEOUT',
    message: 'Charge {id}: the outcome of {operation} (operation {seq}) at {gateway} is not known yet; retry with the same Idempotency-Key to settle it',
  },
  OPERATION_UNSETTLED: {
    code: 'OPERATION_UNSETTLED',
    // One literal: the template's {params} are read from its type.
    message: 'Charge {id}: the outcome of {operation} (operation {seq}) at {gateway} is not known yet, so no other capture, cancel or refund may start. Settle it by retrying that request with its Idempotency-Key or by reading the charge with ?refresh=true, or wait for the reconciler (each replays it under its gateway key or finds it at the gateway), then retry this one',
  },
  OPERATION_SETTLED_JUST_NOW: {
    code: 'OPERATION_UNSETTLED',
    message: 'Charge {id}: {operation} (operation {seq}) at {gateway}, whose outcome was not known when this request arrived, turned out applied; nothing else was started. Read the charge, and send this request again if you mean another one',
  },
  CHARGE_UNCONFIRMED: {
    code: 'GATEWAY_TIMEOUT', retry: 'yes',
    message: 'Charge {id}: {gateway} has not confirmed whether it took the charge yet; RouteGate keeps checking. Retry later.',
  },
  CHARGE_NEVER_CREATED: { code: 'VALIDATION_ERROR', message: 'Charge {id} was never created at a gateway (status {status})' },
  OPERATION_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} does not support {operation} for {method} charges' },
  CAPTURE_NOT_PREAUTHORIZED: { code: 'VALIDATION_ERROR', message: 'Charge {id} is not an uncaptured pre-authorization (status {status})' },
  CAPTURE_ALREADY_CAPTURED: { code: 'VALIDATION_ERROR', message: 'Charge {id} is not an uncaptured pre-authorization (status {status}, already captured)' },
  CAPTURE_AMOUNT_TOO_LARGE: {
    code: 'VALIDATION_ERROR', message: 'Capture amount {amount} is larger than the authorized {authorized}', field: { name: 'amount', message: 'must be <= {authorized}' },
  },
  CANCEL_NOT_CANCELLABLE: { code: 'VALIDATION_ERROR', message: 'Charge {id} cannot be cancelled (status {status})' },
  CANCEL_CAPTURED: { code: 'VALIDATION_ERROR', message: 'Charge {id} cannot be cancelled (status {status}, captured: refund it instead)' },
  REFUND_NOT_REFUNDABLE: { code: 'VALIDATION_ERROR', message: 'Charge {id} cannot be refunded (status {status})' },
  REFUND_NOT_CAPTURED: { code: 'VALIDATION_ERROR', message: 'Charge {id} cannot be refunded (status {status}, not captured: cancel it instead)' },
  REFUND_NOTHING_LEFT: { code: 'VALIDATION_ERROR', message: 'Charge {id} has nothing left to refund' },
  REFUND_AMOUNT_TOO_LARGE: {
    code: 'VALIDATION_ERROR', message: 'Refund amount {amount} is larger than the refundable {refundable}', field: { name: 'amount', message: 'must be <= {refundable}' },
  },
  CURSOR_INVALID: { code: 'VALIDATION_ERROR', message: 'cursor is not one this API returned', field: { name: 'cursor', message: 'is invalid' } },

  // Coproducers (src/splits/)
  COPRODUCER_NOT_FOUND: { code: 'NOT_FOUND', message: 'Coproducer {id} not found' },
  COPRODUCER_EMAIL_TAKEN: {
    code: 'ALREADY_EXISTS', message: 'A coproducer with e-mail {email} already exists in this account ({id})',
    field: { name: 'email', message: 'is already used by coproducer {id}' },
  },

  // Customers (src/charges/customers.ts)
  NO_GATEWAY_FOR_CUSTOMER: { code: 'VALIDATION_ERROR', message: 'No gateway for the customer: send "gateway" or set primaryGateway', field: MISSING_GATEWAY },
  CUSTOMERS_UNSUPPORTED: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{gateway} has no customer resource; send the customer inline on each charge' },

  // Compatibility mode (src/compat/): a gateway's own API served by RouteGate
  PAYLOAD_FORMAT_INVALID: {
    code: 'VALIDATION_ERROR', message: 'X-Payload-Format accepts only "native" (this call in RouteGate\'s normalized format); got {value}',
    field: { name: 'X-Payload-Format', message: 'must be native' },
  },
  COMPAT_NOT_SERVED: { code: 'NOT_FOUND', message: 'RouteGate does not serve the {gateway} API (no compatibility mode for {gateway} in this version)' },
  COMPAT_NOT_ENABLED: {
    code: 'NOT_FOUND',
    message: 'Compatibility mode for {gateway} is not enabled on this account (it is {mode}): set compatibilityMode to {gateway} with PATCH /api/v1/clients/settings',
  },
  FORM_BODY_UNSUPPORTED: {
    code: 'UNSUPPORTED_MEDIA_TYPE', message: 'application/x-www-form-urlencoded is only taken in compatibility mode for a gateway whose API uses it; send the body as application/json',
  },
  NATIVE_PARAM_MISSING: { code: 'VALIDATION_ERROR', message: 'Missing required param: {field}', field: { name: '{field}', message: 'is required' } },
  NATIVE_AMOUNT_INVALID: {
    code: 'VALIDATION_ERROR', message: '{field} must be a positive amount in {unit}', field: { name: '{field}', message: 'must be a positive amount in {unit}' },
  },
  CUSTOMER_NOT_FOUND: { code: 'NOT_FOUND', message: 'Customer {id} not found' },
  REFUND_NOT_FOUND: { code: 'NOT_FOUND', message: 'Refund {id} of charge {charge} not found' },
  PASSTHROUGH_FAILED: { code: 'GATEWAY_UNREACHABLE', message: '{gateway} could not be reached for the passed-through call: {reason}' },

  // Gateway failures, mapped once (src/charges/outcomes.ts). `failure` is the adapter's or HTTP client's account.
  DECLINED: { code: 'GATEWAY_ERROR', retry: 'no', message: '{declineCode}: {reason}' },
  GATEWAY_REJECTED_CREDENTIALS: { code: 'GATEWAY_AUTH_ERROR', message: '{gateway} rejected the stored credentials: {reason}' },
  GATEWAY_ANSWERED_ERROR: { code: 'GATEWAY_ERROR', message: '{gateway} answered {status}: {reason}' },
  GATEWAY_FAILED: { code: 'GATEWAY_ERROR', message: '{gateway} answered with an error: {reason}' },
  GATEWAY_NO_ANSWER: { code: 'GATEWAY_TIMEOUT', message: '{failure}' },
  GATEWAY_NO_CONNECTION: { code: 'GATEWAY_UNREACHABLE', message: '{failure}' },
  GATEWAY_CANNOT: { code: 'GATEWAY_UNSUPPORTED_OPERATION', message: '{failure}' },
  // Webhooks (src/webhooks/)
  WEBHOOK_TOKEN_UNKNOWN: { code: 'NOT_FOUND', message: 'Unknown webhook URL: no account has this webhook token' },
  WEBHOOK_GATEWAY_UNKNOWN: { code: 'NOT_FOUND', message: 'Unknown gateway {gateway}: no webhook receiver for it' },
  WEBHOOK_SIGNATURE_INVALID: { code: 'WEBHOOK_SIGNATURE_INVALID', message: '{gateway} webhook rejected: {reason}' },
  WEBHOOK_BODY_UNREADABLE: { code: 'VALIDATION_ERROR', message: 'The body is not a {gateway} notification RouteGate can read: a value has the wrong type or is out of range' },
  WEBHOOK_NOT_DELIVERED: {
    code: 'WEBHOOK_NOT_DELIVERED', message: 'Event {id} is stored but the merchant backend did not take it ({reason}); RouteGate retries it from its outbox',
  },
  EVENT_NOT_FOUND: { code: 'NOT_FOUND', message: 'Event {id} not found' },
  NO_FORWARD_URL: { code: 'VALIDATION_ERROR', message: 'No webhookForwardUrl is set: set it with PATCH /api/v1/clients/settings first' },
  MAPPING_FAILED: { code: 'GATEWAY_ERROR', retry: 'no', message: 'RouteGate could not translate the {gateway} payload ({mapping}); see the mapping file' },
  MAPPING_AMOUNT_MISMATCH: {
    code: 'MAPPING_AMOUNT_MISMATCH',
    message: 'RouteGate refused to send the {gateway} request: mapping {mapping} renders {field} = {rendered}, expected {expected} ({why}); nothing was sent to {gateway}. Fix the mapping, then run npx routegate mappings check',
  },
  GATEWAY_AMOUNT_MISMATCH: {
    code: 'GATEWAY_ERROR', retry: 'after reading the charge',
    message: '{gateway} reports {reported} cents on {externalId} where RouteGate asked for {asked} cents: not reported approved; check and settle it at {gateway}',
  },
  MAPPING_BUDGET_EXCEEDED: {
    code: 'GATEWAY_ERROR', retry: 'no', message: 'RouteGate stopped the {gateway} mapping ({mapping}): it {reason}; see the mapping file',
  },
} as const satisfies Record<string, ErrorSpec>;

type Catalogue = typeof ERRORS;
export type ErrorKey = keyof Catalogue;
/** Keys rgError() makes; `inherit` ones only extend an existing error. */
export type OwnErrorKey = { [K in ErrorKey]: Catalogue[K]['code'] extends 'inherit' ? never : K }[ErrorKey];
export type ExtensionKey = Exclude<ErrorKey, OwnErrorKey>;

type ParamNames<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | ParamNames<Rest> : never;
type Param = string | number | boolean | null | undefined;
export type ErrorParams<K extends ErrorKey> = { [P in ParamNames<Catalogue[K]['message']>]: Param };
type ParamArgs<K extends ErrorKey, Extra> = [ParamNames<Catalogue[K]['message']>] extends [never] ? [params?: Record<string, never>, extra?: Extra]
  : [params: ErrorParams<K>, extra?: Extra];

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorDetails {
  errors?: FieldError[];
  [key: string]: unknown;
}

export interface ErrorExtra {
  /** Only a code's declared altStatus (GATEWAY_AUTH_ERROR 403). */
  status?: number; gateway?: string; details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown;
  /** Declines: the normalized decline code the message starts with (SPEC.md's five). */
  declineCode?: string;
}

function render(template: string, params: Record<string, Param> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => String(params[name]));
}

/**
 * The one error type: a public code, its HTTP status, and what the envelope may carry. Made by rgError(),
 * RouteGateError#extend or RouteGateError.restore only (test/errors.test.ts scans src/ for this).
 */
export class RouteGateError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: ErrorExtra = {},
    /** The catalogue situation, when it is known (a restored error's is not). */
    readonly key?: ErrorKey,
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'RouteGateError';
    const spec: PublicCodeSpec | undefined = Object.hasOwn(PUBLIC_CODES, code) ? PUBLIC_CODES[code] : undefined;
    if (!spec) throw new TypeError(`${code} is not a public error code: declare it in PUBLIC_CODES (src/errors.ts)`);
    if (extra.status !== undefined && extra.status !== spec.status && extra.status !== spec.altStatus) {
      throw new TypeError(`${code} cannot answer ${extra.status}`);
    }
    this.statusCode = extra.status ?? spec.status;
  }

  get gateway(): string | undefined {
    return this.extra.gateway;
  }

  get details(): ErrorDetails | undefined {
    return this.extra.details;
  }

  /** The same error with more to carry (headers, gateway). */
  with(extra: ErrorExtra): RouteGateError {
    // Object.assign, not `{ ...a, ...b }`: after a leading spread each key added costs a hidden class of its own
    // (docs/performance.md, eighteenth round), and a declined charge's error passes here.
    return new RouteGateError(this.code, this.message, Object.assign({}, this.extra, extra), this.key);
  }

  /** An `inherit` entry: this error's code and status, its message as `{reason}`, and what the entry adds. */
  extend<K extends ExtensionKey>(key: K, params: Omit<ErrorParams<K>, 'reason'>): RouteGateError {
    return new RouteGateError(this.code, render(ERRORS[key].message, { ...params, reason: this.message }), this.extra, key);
  }

  /** An error answered before and stored with a charge (code and message as they were rendered then). */
  static restore(code: ErrorCode, message: string, extra: ErrorExtra = {}): RouteGateError {
    return new RouteGateError(code, message, extra);
  }
}

/** The public error for one catalogue situation: `rgError('CHARGE_NOT_FOUND', { id })`. */
export function rgError<K extends OwnErrorKey>(key: K, ...[params, extra = {}]: ParamArgs<K, ErrorExtra>): RouteGateError {
  const spec: ErrorSpec = ERRORS[key];
  const p = params as Record<string, Param> | undefined;
  const details = spec.field ? { ...extra.details, errors: [{ field: render(spec.field.name, p), message: render(spec.field.message, p) }] } : extra.details;
  return new RouteGateError(spec.code as ErrorCode, render(spec.message, p), details ? { ...extra, details } : extra, key);
}

/** `field message; field message`: the `{fields}` parameter of a message over field errors. */
export function fieldSummary(errors: FieldError[]): string {
  return errors.map((e) => `${e.field} ${e.message}`).join('; ');
}

/** A situation's retry: its own, else its public code's. */
export function retryOf(key: ErrorKey): Retry | undefined {
  const spec: ErrorSpec = ERRORS[key];
  if (spec.retry) return spec.retry;
  return spec.code === 'inherit' ? undefined : PUBLIC_CODES[spec.code].retry;
}

export interface ErrorEnvelope {
  success: false;
  error: { code: ErrorCode; message: string; gateway?: string; declineCode?: string; details?: ErrorDetails };
}

/** The SPEC.md envelope. `details` only outside production. */
export function envelope(err: RouteGateError, production: boolean): ErrorEnvelope {
  const body: ErrorEnvelope = { success: false, error: { code: err.code, message: err.message } };
  if (err.gateway) body.error.gateway = err.gateway;
  if (err.extra.declineCode) body.error.declineCode = err.extra.declineCode;
  if (!production && err.details) body.error.details = err.details;
  return body;
}
