import type { FastifyRequest } from 'fastify';
import { storedChargeError, type ChargeService, type ChargeResult, type GatewayDeps } from '../charges/orchestrator';
import type { CustomerService } from '../charges/customers';
import { customerView } from '../charges/customers';
import { rgHeaders } from '../charges/response-format';
import type { ChargeRecord } from '../store/charges';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import { chargeFromBody } from '../charges/charge-request';
import { rgError, type RouteGateError } from '../errors';
import type { SchemaValidator } from '../http/schemas';
import { validationSummary } from '../http/validation-messages';
import { nativeErrorAnswer, type NativeErrorContext } from './native-errors';
import type { ChargeLinkedAnswer } from '../http/idempotency';
import { compatCharge, compatLivemode, nativeAmountUnit, nativeCreateToNormalized, readAmount, readValue } from './native-charges';
import type { CompatRoute, CompatSurface, NativeAnswer, NativeRequest, RefundFacts } from './types';

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
    case 'refundList':
    case 'refundRetrieve': return refunds(s, call);
    case 'customerCreate': return customerCreate(s, call);
    case 'customerList': return customerList(s, call);
    case 'customerRetrieve': {
      const id = requireId(call);
      const customer = await s.deps.store.customers.findByAnyId(call.request.account.id, id);
      if (!customer) throw rgError('CUSTOMER_NOT_FOUND', { id });
      const livemode = await compatLivemode(s.deps, call.surface, call.request.account.id, call.gateway);
      return answer(call.surface.answers.customer({ view: customerView(customer), processedHere: customer.gateway === call.gateway, livemode }, native, route.operation));
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
  // A read's parameters are in its query (`GET ...?expand[]=latest_charge`): the gateway reads query and body alike.
  const request = call.native.method === 'GET' ? { ...objectOf(call.native.query), ...objectOf(call.native.body) } : call.native.body;
  return compatCharge(s.deps, call.gateway, call.surface, result.charge, result.raw, request);
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
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
  const normalized = chargeFromBody(valid, request.ip);
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

/**
 * A `cancelOrRefund` route's operation by what is stored now: cancel while the charge can still be cancelled and the
 * whole amount is meant, else refund (a partial amount on an uncaptured charge is then refused by the refund rules,
 * never voided whole). ChargeService checks the state again under the charge's lock.
 */
function cancelOrRefund(charge: ChargeRecord, amount: number | undefined): 'cancel' | 'refund' {
  const cancellable = (charge.status === 'approved' && charge.captured === false) || charge.status === 'pending' || charge.status === 'processing';
  return cancellable && (amount === undefined || amount === charge.amount) ? 'cancel' : 'refund';
}

/**
 * A native create retried under its Idempotency-Key after a "being confirmed" (504) answer: what the charge is now,
 * as that create would have answered it (the native body, or the native error), once the caller has run its one
 * read-only settle. `settled` false (still processing) leaves the key to answer again later.
 */
export async function nativeReplayAnswer(
  deps: GatewayDeps, call: { gateway: GatewayId; surface?: CompatSurface; body: unknown; accountId: string; production: boolean }, chargeId: string,
): Promise<ChargeLinkedAnswer | undefined> {
  const charge = await deps.store.charges.get(call.accountId, chargeId);
  if (!charge) return undefined;
  const headers = { ...rgHeaders(charge), 'content-type': 'application/json; charset=utf-8' };
  const stored = storedChargeError(charge);
  if (stored) {
    const err = charge.declineCode ? stored.with({ declineCode: charge.declineCode }) : stored;
    const context: NativeErrorContext = { chargeId: charge.id };
    if (err.extra.declineCode) context.charge = (await compatCharge(deps, call.gateway, call.surface, charge, undefined, call.body)).native;
    const a = await nativeErrorAnswer(deps.mappings, call.gateway, err, { production: call.production, context });
    return { status: a.status, headers: { ...headers, ...a.headers }, body: JSON.stringify(a.body), settled: charge.status !== 'processing' };
  }
  const native = await compatCharge(deps, call.gateway, call.surface, charge, undefined, call.body);
  return { status: call.surface?.createStatus ?? 200, headers, body: JSON.stringify(native.native), settled: true };
}

async function findCharge(s: CompatServices, call: OperationCall): Promise<ChargeRecord> {
  const id = requireId(call);
  const charge = await s.deps.store.charges.findByAnyId(call.request.account.id, id);
  if (!charge) throw rgError('CHARGE_NOT_FOUND', { id });
  return charge;
}

async function followUp(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { route, native, request } = call;
  const accountId = request.account.id;
  const before = await findCharge(s, call);
  call.errorContext.chargeId = before.id;
  const amount = readAmount(native, route.amount, nativeAmountUnit(s.deps, call.gateway, call.surface));
  // One native route for void and refund: the charge's state picks (ChargeService re-checks it under the lock).
  const operation = route.operation === 'cancelOrRefund' ? cancelOrRefund(before, amount) : route.operation;
  // The native Idempotency-Key is bound to the operation as on the API (docs/charges.md, "Follow-up idempotency").
  const opts = { clientKey: request.idempotencyKey };
  const result = operation === 'retrieve' ? await s.charges.refresh(accountId, before.id)
    : operation === 'capture' ? await s.charges.capture(accountId, before.id, amount, opts)
      : operation === 'cancel' ? await s.charges.cancel(accountId, before.id, opts)
        : await s.charges.refund(accountId, before.id, amount, opts);
  if (result.error) return failWith(s, call, { ...result, error: result.error });
  // A refund call's raw body is the gateway's refund, not the charge: the charge is then shown as native.response builds it.
  const charge = await nativeOf(s, call, operation === 'refund' ? { charge: result.charge } : result);
  const headers = rgHeaders(result.charge);
  if (operation === 'refund') {
    const seq = (await s.deps.store.charges.attempts(before.id)).filter((a) => a.operation === 'refund' && a.outcome === 'success').length;
    const refunded = result.refund?.amount ?? result.charge.refundedAmount - before.refundedAmount;
    const raw = charge.processedHere ? result.raw : undefined;
    return answer(call.surface.answers.refund(charge, { refundId: result.refund?.refundId, amount: refunded, status: result.refund?.status, seq, raw }, native), headers);
  }
  const shaped = (await call.surface.answers.charge?.(charge, native, operation)) ?? { body: charge.native };
  return answer(shaped, headers);
}

async function list(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const accountId = call.request.account.id;
  const { limit, offset, after: cursor } = page(call);
  const after = cursor ? await s.deps.store.charges.findByAnyId(accountId, cursor) : undefined;
  if (cursor && !after) throw rgError('CHARGE_NOT_FOUND', { id: cursor });
  // An offset (APIs that page by offset) skips that many rows of the same newest-first order.
  const rows = await s.deps.store.charges.list(accountId, { limit: limit + 1, offset, after: after && { createdAt: after.createdAt, id: after.id } });
  const items = await Promise.all(rows.slice(0, limit).map((c) => compatCharge(s.deps, call.gateway, call.surface, c, undefined, {})));
  return answer(call.surface.answers.list(items, rows.length > limit, call.native));
}

/** The surface's paging, bounded: 1 to 100 per page (default 10), a whole offset of 0 or more. */
function page(call: OperationCall): { limit: number; offset: number; after?: string } {
  const q = call.surface.listQuery?.(call.native) ?? {};
  const offset = Number.isInteger(q.offset) && q.offset! > 0 ? q.offset! : 0;
  return { limit: Math.min(Math.max(q.limit ?? 10, 1), 100), offset, after: q.after };
}

async function customerList(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const shape = call.surface.answers.customerList;
  if (!shape) throw rgError('ROUTE_NOT_FOUND', { method: call.native.method, path: call.native.path });
  const { limit, offset } = page(call);
  const rows = await s.deps.store.customers.list(call.request.account.id, limit + 1, offset);
  const items = rows.slice(0, limit).map((c) => ({ view: customerView(c), processedHere: c.gateway === call.gateway }));
  return answer(shape(items, rows.length > limit, call.native));
}

/**
 * A charge's refunds (refundList) or one of them (refundRetrieve): the charge read afresh at its gateway, and the
 * refunds RouteGate made on it (its successful refund attempts), oldest first. A refund is found by the id the
 * surface's answer gives it, so a synthesized id works as well as the gateway's.
 */
async function refunds(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const before = await findCharge(s, call);
  call.errorContext.chargeId = before.id;
  const result = await s.charges.refresh(call.request.account.id, before.id);
  if (result.error) return failWith(s, call, { ...result, error: result.error });
  const charge = await nativeOf(s, call, result);
  const facts = (await s.deps.store.charges.attempts(before.id)).filter((a) => a.operation === 'refund' && a.outcome === 'success')
    .map((a, i): RefundFacts => ({ refundId: a.externalId ?? undefined, amount: a.amount ?? 0, status: 'succeeded', seq: i + 1, createdAt: a.createdAt }));
  const { answers } = call.surface;
  const each = () => facts.map((f) => answers.refund(charge, f, call.native).body);
  const listed = answers.refundList?.(charge, facts, call.native) ?? { body: each() };
  const headers = rgHeaders(result.charge);
  if (call.route.operation === 'refundList') return answer(listed, headers);
  const found = readValue(call.native, call.route.refund);
  if (!found) throw rgError('NATIVE_PARAM_MISSING', { field: 'refund id' });
  const id = String(found.value);
  const item = (Array.isArray(listed.body) ? listed.body : each()).find((r) => String((r as { id?: unknown } | null)?.id) === id);
  if (item === undefined) {
    call.errorContext.chargeId = undefined; // the payment exists: the error is about the refund
    throw rgError('REFUND_NOT_FOUND', { id, charge: before.id });
  }
  return answer({ body: item }, headers);
}

async function customerCreate(s: CompatServices, call: OperationCall): Promise<OperationAnswer> {
  const { request, gateway } = call;
  const input = JSON.parse(JSON.stringify(call.surface.answers.customerInput(call.native))) as Record<string, unknown>;
  // The customer is made where the account's charges go (its primary), so a later charge there can use it; a primary
  // without customers (or without credentials) leaves it to the compat gateway, whose own ids its clients expect.
  const usable = async (g: GatewayId | null | undefined): Promise<boolean> => !!g && ADAPTERS[g]?.capabilities.customer !== 'unsupported' && await s.deps.vault.reveal(request.account.id, g) !== undefined;
  const primary = request.settings.primaryGateway as GatewayId | null;
  const target = (await usable(primary)) ? primary : (await usable(gateway)) ? gateway : undefined;
  if (target) input.gateway = target;
  s.validator.assert('customer-request', input, '', (errors) => rgError('INVALID_REQUEST', { fields: validationSummary(errors) }, { details: { errors } }));
  const { customer, raw } = await s.customers.create(request.account, request.settings, input as never);
  const livemode = await compatLivemode(s.deps, call.surface, request.account.id, gateway);
  return answer(call.surface.answers.customer({ view: customerView(customer), raw, processedHere: customer.gateway === gateway, livemode }, call.native, 'customerCreate'));
}
