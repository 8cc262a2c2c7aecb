import { RouteGateError, rgError } from '../errors';
import { GatewayFailure, type FailureKind } from '../gateways/types';
import { MappingBudgetError, MappingEvaluationError } from '../mapping/loader';
import { MappingAmountError } from '../mapping/amount-guard';

/** Reasons an attempt was skipped before any network call. */
export type SkipReason = 'MISSING_CREDENTIALS' | 'CARD_TOKEN_NOT_PORTABLE' | 'GATEWAY_UNSUPPORTED_OPERATION' | 'SPLIT_RECIPIENT_UNAVAILABLE'
  | 'CURRENCY_NOT_SUPPORTED'
  // a card plan in installments the gateway's API cannot charge (count, currency, smallest installment)
  | 'INSTALLMENTS_UNSUPPORTED'
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
  INSTALLMENTS_UNSUPPORTED: true,
  RAW_CARD_NOT_ACCEPTED: true,
  MISSING_PAYER_DATA: true,
  AUTHENTICATION_REQUIRED: true,
};

/** The one place internal gateway failures become public errors. */
export function toPublicError(err: unknown, gateway: string): RouteGateError {
  if (err instanceof RouteGateError) return err;
  if (err instanceof MappingAmountError) return mappingAmountError(err);
  if (err instanceof MappingBudgetError) {
    return rgError('MAPPING_BUDGET_EXCEEDED', { gateway, mapping: err.mapping, reason: err.reason }, { gateway, cause: err });
  }
  if (err instanceof MappingEvaluationError) {
    return rgError('MAPPING_FAILED', { gateway, mapping: err.mapping }, { gateway, cause: err });
  }
  if (!(err instanceof GatewayFailure)) {
    return rgError('INTERNAL_ERROR', {}, { cause: err });
  }
  const extra = { gateway, cause: err } as const;
  switch (err.kind) {
    case 'auth':
      return rgError('GATEWAY_REJECTED_CREDENTIALS', { gateway, reason: err.message }, { status: err.info.status === 403 ? 403 : 401, ...extra });
    case 'decline': {
      const declineCode = err.info.declineCode ?? 'card_declined';
      // The spread last: a leading one costs a hidden class per key added after it (docs/performance.md, eighteenth round).
      return rgError('DECLINED', { declineCode, reason: err.message }, { declineCode, ...extra });
    }
    case 'timeout':
      return rgError('GATEWAY_NO_ANSWER', { failure: err.message }, extra);
    case 'unreachable':
      return rgError('GATEWAY_NO_CONNECTION', { failure: err.message }, extra);
    case 'unsupported':
      return rgError('GATEWAY_CANNOT', { failure: err.message }, extra);
    default: { // http_5xx, rate_limited, invalid_request, not_found, bad_response
      // The gateway's field-level messages, in its own field names: in the message (withFieldMessages) and as details.
      const fields = err.info.error?.fields;
      const withFields = Array.isArray(fields) && fields.length ? { gateway, cause: err, details: { gatewayFields: fields.slice(0, 20) } } : extra;
      return err.info.status == null
        ? rgError('GATEWAY_FAILED', { gateway, reason: err.message }, withFields)
        : rgError('GATEWAY_ANSWERED_ERROR', { gateway, status: err.info.status, reason: err.message }, withFields);
    }
  }
}

export function failureKindOf(err: unknown): FailureKind | undefined {
  return err instanceof GatewayFailure ? err.kind : undefined;
}

/** The money guard's refusal as the public error: which mapping, which field, expected against rendered. */
export function mappingAmountError(err: MappingAmountError): RouteGateError {
  const mapping = `${err.gateway}/${err.mapping}`;
  return rgError('MAPPING_AMOUNT_MISMATCH', {
    gateway: err.gateway, mapping, field: err.field, rendered: JSON.stringify(err.rendered) ?? 'nothing', expected: JSON.stringify(err.expected) ?? 'nothing', why: err.why,
  }, {
    gateway: err.gateway, cause: err,
    details: { mapping, field: err.field, expected: err.expected ?? null, rendered: err.rendered ?? null, unit: err.unit, cents: err.cents },
  });
}
