import { RouteGateError, type ErrorCode } from '../errors';
import { GatewayFailure, type FailureKind } from '../gateways/types';
import { MappingEvaluationError } from '../mapping/loader';

/** Reasons an attempt was skipped before any network call. */
export type SkipReason = 'MISSING_CREDENTIALS' | 'CARD_TOKEN_NOT_PORTABLE' | 'GATEWAY_UNSUPPORTED_OPERATION' | 'SPLIT_RECIPIENT_UNAVAILABLE'
  | 'CURRENCY_NOT_SUPPORTED'
  // what the real API refuses a charge without (ChargeRequirement data on the adapters)
  | 'RAW_CARD_NOT_ACCEPTED' | 'MISSING_PAYER_DATA' | 'AUTHENTICATION_REQUIRED';

/**
 * DESIGN.md's fallback rule as data: after these the next gateway is tried; a decline, a validation error
 * or any other gateway error ends the charge. An ambiguous failure (the gateway may have acted: response
 * timeout, connection lost after writing, 5xx on a create) is first settled at the same gateway
 * (src/charges/settle.ts); only once the charge is proven absent there does this table apply.
 */
export const FALLBACK_ON: Record<FailureKind, boolean> = {
  unreachable: true,
  timeout: true,
  http_5xx: true,
  rate_limited: true,
  auth: true,
  unsupported: true,
  decline: false,
  invalid_request: false,
  not_found: false,
  bad_response: false,
};

export const FALLBACK_ON_SKIP: Record<SkipReason, boolean> = {
  MISSING_CREDENTIALS: true,
  GATEWAY_UNSUPPORTED_OPERATION: true,
  CARD_TOKEN_NOT_PORTABLE: true,
  SPLIT_RECIPIENT_UNAVAILABLE: true,
  CURRENCY_NOT_SUPPORTED: true,
  RAW_CARD_NOT_ACCEPTED: true,
  MISSING_PAYER_DATA: true,
  AUTHENTICATION_REQUIRED: true,
};

const PUBLIC_CODE: Record<FailureKind, ErrorCode> = {
  unreachable: 'GATEWAY_UNREACHABLE',
  timeout: 'GATEWAY_TIMEOUT',
  http_5xx: 'GATEWAY_ERROR',
  rate_limited: 'GATEWAY_ERROR',
  auth: 'GATEWAY_AUTH_ERROR',
  decline: 'GATEWAY_ERROR',
  invalid_request: 'GATEWAY_ERROR',
  not_found: 'GATEWAY_ERROR',
  bad_response: 'GATEWAY_ERROR',
  unsupported: 'GATEWAY_UNSUPPORTED_OPERATION',
};

/** The one place internal gateway failures become public errors. */
export function toPublicError(err: unknown, gateway: string): RouteGateError {
  if (err instanceof RouteGateError) return err;
  if (err instanceof MappingEvaluationError) {
    return new RouteGateError('GATEWAY_ERROR', `RouteGate could not translate the ${gateway} payload (${err.mapping}); see the mapping file`, { gateway, cause: err });
  }
  if (!(err instanceof GatewayFailure)) {
    return new RouteGateError('INTERNAL_ERROR', 'Internal server error', { cause: err });
  }
  const code = PUBLIC_CODE[err.kind];
  const extra = { gateway, cause: err } as const;
  switch (err.kind) {
    case 'auth':
      return new RouteGateError(code, `${gateway} rejected the stored credentials: ${err.message}`, { ...extra, status: err.info.status === 403 ? 403 : 401 });
    case 'decline': {
      const declineCode = err.info.declineCode ?? 'card_declined';
      return new RouteGateError(code, `${declineCode}: ${err.message}`, { ...extra, declineCode });
    }
    case 'timeout':
      return new RouteGateError(code, err.message, extra);
    case 'unreachable':
      return new RouteGateError(code, err.message, extra);
    case 'unsupported':
      return new RouteGateError(code, err.message, extra);
    default:
      return new RouteGateError(code, `${gateway} answered ${err.info.status ?? 'with an error'}: ${err.message}`, extra);
  }
}

export function failureKindOf(err: unknown): FailureKind | undefined {
  return err instanceof GatewayFailure ? err.kind : undefined;
}
