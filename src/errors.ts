/**
 * Every public error RouteGate answers with, declared once: code -> HTTP status. SPEC.md's error table
 * plus the few the service needs beyond it (conflict, media type, sizes, method, timeout, internal).
 */
export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  GATEWAY_AUTH_ERROR: 401, // or 403: follows the gateway's status
  CLIENT_INACTIVE: 403,
  UNAUTHORIZED: 401, // the operator token of GET /metrics (ROUTEGATE_METRICS_TOKEN) is missing or wrong
  NOT_FOUND: 404,
  MISSING_CREDENTIALS: 400,
  GATEWAY_UNSUPPORTED_OPERATION: 422,
  RATE_LIMIT_EXCEEDED: 429,
  GATEWAY_ERROR: 502,
  GATEWAY_UNREACHABLE: 502,
  GATEWAY_TIMEOUT: 504,
  IDEMPOTENCY_CONFLICT: 409,
  CHARGE_BUSY: 409, // another capture/cancel/refund of the same charge is running
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes SPEC.md's error table lists; a test keeps the catalogue a superset of it. */
export const SPEC_ERROR_CODES: ErrorCode[] = [
  'VALIDATION_ERROR', 'MISSING_API_KEY', 'INVALID_API_KEY', 'GATEWAY_AUTH_ERROR', 'CLIENT_INACTIVE', 'NOT_FOUND',
  'MISSING_CREDENTIALS', 'GATEWAY_UNSUPPORTED_OPERATION', 'RATE_LIMIT_EXCEEDED', 'GATEWAY_ERROR',
  'GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT',
];

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorDetails {
  errors?: FieldError[];
  [key: string]: unknown;
}

/** The one error type: a public code, its HTTP status, and what the envelope may carry. */
export class RouteGateError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { status?: number; gateway?: string; details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'RouteGateError';
    this.statusCode = extra.status ?? ERROR_CATALOGUE[code];
  }

  get gateway(): string | undefined {
    return this.extra.gateway;
  }

  get details(): ErrorDetails | undefined {
    return this.extra.details;
  }
}

export interface ErrorEnvelope {
  success: false;
  error: { code: ErrorCode; message: string; gateway?: string; details?: ErrorDetails };
}

/** The SPEC.md envelope. `details` only outside production. */
export function envelope(err: RouteGateError, production: boolean): ErrorEnvelope {
  const body: ErrorEnvelope = { success: false, error: { code: err.code, message: err.message } };
  if (err.gateway) body.error.gateway = err.gateway;
  if (!production && err.details) body.error.details = err.details;
  return body;
}

export function validationError(message: string, errors?: FieldError[]): RouteGateError {
  return new RouteGateError('VALIDATION_ERROR', message, errors ? { details: { errors } } : {});
}
