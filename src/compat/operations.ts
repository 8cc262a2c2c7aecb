import type { FastifyRequest } from 'fastify';
import type { ChargeService, ChargeResult, GatewayDeps } from '../charges/orchestrator';
import type { CustomerService } from '../charges/customers';
import { customerView } from '../charges/customers';
import { rgHeaders } from '../charges/response-format';
import type { ChargeRecord } from '../store/charges';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import { rgError, type RouteGateError } from '../errors';
import type { SchemaValidator } from '../http/schemas';
import { validationSummary } from '../http/validation-messages';
import type { NativeErrorContext } from './native-errors';
import { compatCharge, nativeAmountUnit, nativeCreateToNormalized, readAmount, readValue } from './native-charges';
import type { CompatRoute, CompatSurface, NativeAnswer, NativeRequest } from './types';

export interface CompatServices { deps: GatewayDeps; charges: ChargeService; customers: CustomerService; validator: SchemaValidator }

export interface OperationCall {
  request: FastifyRequest;
  gateway: GatewayId;
  surface: CompatSurface;
  route: CompatRoute;
  native: NativeRequest;
  /** Filled before an error is thrown: what the native error says about the charge. */
  errorContext: NativeErrorContext;
}

export interface OperationAnswer { status: number; body: unknown; headers: Record<string, string> }

const answer = (a: NativeAnswer, headers: Record<string, string> = {}): OperationAnswer => ({ status: a.status ?? 200, body: a.body, headers });

/**
 * One translated native call, run through the same services as the normalized API (ChargeService keeps the
 * per-charge locks, the attempts and the gateway idempotency keys); the surface only shapes the answer.
 */
export async function runOperation(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { route, native } = call;
  switch (route.operation) {
    case 'create': return create(s, call);
    case 'list': return list(s, call);
    case 'customerCreate': return customerCreate(s, call);
    case 'customerRetrieve': {
      const id = requireId(call);
      const customer = s.deps.store.customers.findByAnyId(call.request.account.id, id);
      if (!customer) throw rgError('CUSTOMER_NOT_FOUND', { id });
      return answer(call.surface.answers.customer({ view: customerView(customer), processedHere: customer.gateway === call.gateway }, native, route.operation));
    }
    default: return followUp(s, call);
  }
}

function requireId(call: OperationCall): string {
  const found = readValue(call.native, call.route.id);
  if (!found || typeof found.value !== 'string') {
    const param = call.route.id?.find((src) => !src.startsWith('param:'))?.replace(/^\w+:/, '') ?? 'id';
    throw rgError('NATIVE_PARAM_MISSING', { field: param });
  }
  return found.value;
}

async function nativeOf(s: CompatServices, call: OperationCall, result: ChargeResult) {
  return compatCharge(s.deps, call.gateway, call.surface, result.charge, result.raw, call.native.body);
}

/** A charge that did not go through: the native error names it and carries it (a decline is a charge too). */
async function failWith(s: CompatServices, call: OperationCall, result: ChargeResult & { error: RouteGateError }): Promise<never> {
  call.errorContext.chargeId = result.charge.id;
  if (result.error.extra.declineCode) call.errorContext.charge = (await nativeOf(s, call, { charge: result.charge })).native;
  throw result.error.with({ headers: rgHeaders(result.charge) });
}

async function create(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { request } = call;
  const valid = await nativeCreateToNormalized(s.deps, s.validator, call.gateway, call.surface, request.account.id, call.native.body);
  const normalized = { ...valid, currency: (valid.currency ?? 'BRL').toUpperCase(), capture: valid.capture ?? true, clientIp: request.ip };
  const result = await s.charges.create(request.account, request.settings, normalized, {
    idempotencyKey: request.idempotencyKey, deadline: s.charges.deadline(), compatGateway: call.gateway,
  });
  return nativeCreateAnswer(s.deps, { gateway: call.gateway, surface: call.surface, body: call.native.body, errorContext: call.errorContext }, result);
}

/**
 * The native answer to a create (here and on POST /api/v1/charges in compatibility mode): the charge in the gateway's
 * create-response shape with the gateway's success status, or the error, carrying the declined charge.
 */
export async function nativeCreateAnswer(
  deps: GatewayDeps, call: { gateway: GatewayId; surface?: CompatSurface; body: unknown; errorContext: NativeErrorContext }, result: ChargeResult,
): Promise<OperationAnswer> {
  if (result.error) {
    call.errorContext.chargeId = result.charge.id;
    if (result.error.extra.declineCode) call.errorContext.charge = (await compatCharge(deps, call.gateway, call.surface, result.charge, undefined, call.body)).native;
    throw result.error.with({ headers: rgHeaders(result.charge) });
  }
  const charge = await compatCharge(deps, call.gateway, call.surface, result.charge, result.raw, call.body);
  return { status: call.surface?.createStatus ?? 200, body: charge.native, headers: rgHeaders(result.charge) };
}

function findCharge(s: CompatServices, call: OperationCall): ChargeRecord {
  const id = requireId(call);
  const charge = s.deps.store.charges.findByAnyId(call.request.account.id, id);
  if (!charge) throw rgError('CHARGE_NOT_FOUND', { id });
  return charge;
}

async function followUp(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { route, native, request } = call;
  const accountId = request.account.id;
  const before = findCharge(s, call);
  call.errorContext.chargeId = before.id;
  const amount = readAmount(native, route.amount, nativeAmountUnit(s.deps, call.gateway, call.surface));
  // One native route for void and refund: the charge's state picks (ChargeService re-checks it under the lock).
  const operation = route.operation === 'cancel' && route.refundsWhenCaptured && before.status === 'approved' && before.captured !== false
    ? 'refund' : route.operation;
  const result = operation === 'retrieve' ? await s.charges.refresh(accountId, before.id)
    : operation === 'capture' ? await s.charges.capture(accountId, before.id, amount)
      : operation === 'cancel' ? await s.charges.cancel(accountId, before.id)
        : await s.charges.refund(accountId, before.id, amount);
  if (result.error) return failWith(s, call, { ...result, error: result.error });
  // A refund call's raw body is the gateway's refund, not the charge: the charge is then shown as native.response builds it.
  const charge = await nativeOf(s, call, operation === 'refund' ? { charge: result.charge } : result);
  const headers = rgHeaders(result.charge);
  if (operation === 'refund') {
    const seq = s.deps.store.charges.attempts(before.id).filter((a) => a.operation === 'refund' && a.outcome === 'success').length;
    const refunded = result.refund?.amount ?? result.charge.refundedAmount - before.refundedAmount;
    return answer(call.surface.answers.refund(charge, { refundId: result.refund?.refundId, amount: refunded, status: result.refund?.status, seq }, native), headers);
  }
  const shaped = call.surface.answers.charge?.(charge, native, route.operation) ?? { body: charge.native };
  return answer(shaped, headers);
}

async function list(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const accountId = call.request.account.id;
  const q = call.surface.listQuery?.(call.native) ?? {};
  const limit = Math.min(Math.max(q.limit ?? 10, 1), 100);
  const after = q.after ? s.deps.store.charges.findByAnyId(accountId, q.after) : undefined;
  if (q.after && !after) throw rgError('CHARGE_NOT_FOUND', { id: q.after });
  const rows = s.deps.store.charges.list(accountId, { limit: limit + 1, after: after && { createdAt: after.createdAt, id: after.id } });
  const items = await Promise.all(rows.slice(0, limit).map((c) => compatCharge(s.deps, call.gateway, call.surface, c, undefined, {})));
  return answer(call.surface.answers.list(items, rows.length > limit, call.native));
}

async function customerCreate(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { request, gateway } = call;
  const input = JSON.parse(JSON.stringify(call.surface.answers.customerInput(call.native))) as Record<string, unknown>;
  // The customer is made where the account's charges go (its primary), so a later charge there can use it; a primary
  // without customers (or without credentials) leaves it to the compat gateway, whose own ids its clients expect.
  const usable = (g: GatewayId | null | undefined): g is GatewayId => !!g && ADAPTERS[g]?.capabilities.customer !== 'unsupported' && s.deps.vault.reveal(request.account.id, g) !== undefined;
  const primary = request.settings.primaryGateway as GatewayId | null;
  const target = usable(primary) ? primary : usable(gateway) ? gateway : undefined;
  if (target) input.gateway = target;
  s.validator.assert('customer-request', input, '', (errors) => rgError('INVALID_REQUEST', { fields: validationSummary(errors) }, { details: { errors } }));
  const { customer, raw } = await s.customers.create(request.account, request.settings, input as never);
  return answer(call.surface.answers.customer({ view: customerView(customer), raw, processedHere: customer.gateway === gateway }, call.native, 'customerCreate'));
}
