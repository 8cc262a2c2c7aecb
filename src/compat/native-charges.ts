import type { ChargeRecord } from '../store/charges';
import type { GatewayDeps } from '../charges/orchestrator';
import { chargeView } from '../charges/response-format';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';
import type { NormalizedCharge } from '../gateways/types';
import { fromUnit, type AmountUnit } from '../mapping/functions';
import { rgError } from '../errors';
import { MappingBudgetError, MappingEvaluationError } from '../mapping/loader';
import type { SchemaValidator } from '../http/schemas';
import { validationSummary } from '../http/validation-messages';
import type { CompatCharge, CompatSurface, NativeRequest, ValueSource } from './types';

/** What native.request and native.response need bound besides their input: the call's instant and the surface's own. */
export function nativeBindings(deps: GatewayDeps, surface: CompatSurface | undefined): Record<string, unknown> {
  return { now: new Date().toISOString(), ...(surface?.bindings?.(deps.wire ?? {}) ?? {}) };
}

/** The amount unit of the gateway's native bodies. */
export function nativeAmountUnit(deps: GatewayDeps, gateway: GatewayId, surface: CompatSurface): AmountUnit {
  return surface.amountUnit?.(deps.wire ?? {}) ?? ADAPTERS[gateway].amountUnit;
}

/**
 * A native create body -> the normalized charge, validated with the normalized schema (so a missing field is named
 * by its normalized path, which native.error renames to the native one). A customer id RouteGate returned (cus_rg_)
 * becomes the gateway's id it stands for.
 */
export async function nativeCreateToNormalized(
  deps: GatewayDeps, validator: SchemaValidator, gateway: GatewayId, surface: CompatSurface | undefined, accountId: string, body: unknown,
): Promise<NormalizedCharge> {
  const mapped = await readNativeRequest(deps, gateway, surface, body);
  const charge = (mapped && typeof mapped === 'object' ? mapped : {}) as Record<string, unknown>;
  if (typeof charge.customerId === 'string') {
    const stored = await deps.store.customers.findByAnyId(accountId, charge.customerId);
    if (stored) {
      charge.customerId = stored.externalId;
      // The customer the client named fills what the payment's own billing details leave out (the CPF, most often),
      // so any gateway the charge is routed to gets the payer it requires.
      const known = { name: stored.name, email: stored.email, document: stored.document, phone: stored.phone ?? undefined, address: stored.address ?? undefined };
      const inline = (charge.customer && typeof charge.customer === 'object' ? charge.customer : {}) as Record<string, unknown>;
      charge.customer = JSON.parse(JSON.stringify({ ...known, ...inline }));
    }
  }
  validator.assert('charge-request', charge, '', (errors) => rgError('INVALID_REQUEST', { fields: validationSummary(errors) }, { details: { errors } }));
  const valid = charge as unknown as NormalizedCharge;
  return valid;
}

/**
 * native.request over the client's body. A mapping that fails on what the client sent (a number where it takes a
 * string, a value out of range) is the client's 400, answered in the gateway's shape like any validation error; a
 * mapping stopped by its budget stays RouteGate's error.
 */
async function readNativeRequest(deps: GatewayDeps, gateway: GatewayId, surface: CompatSurface | undefined, body: unknown): Promise<unknown> {
  try {
    return await deps.mappings.get(gateway)!.evaluate<Record<string, unknown>>('native.request', body, nativeBindings(deps, surface));
  } catch (err) {
    if (err instanceof MappingEvaluationError && !(err instanceof MappingBudgetError)) {
      throw rgError('NATIVE_REQUEST_UNREADABLE', { gateway }, { cause: err, details: { mapping: 'native.request', reason: err.message } });
    }
    throw err;
  }
}

/** The mode of the account's credentials at the compat gateway (CompatSurface.livemode), read only where the surface tells one. */
export async function compatLivemode(deps: GatewayDeps, surface: CompatSurface | undefined, accountId: string, gateway: GatewayId): Promise<boolean | undefined> {
  if (!surface?.livemode) return undefined;
  return surface.livemode(await deps.vault.reveal(accountId, gateway));
}

/** The charge as a native answer shows it: the raw gateway body when the compat gateway holds it and RouteGate has one, else native.response's. */
export async function compatCharge(
  deps: GatewayDeps, gateway: GatewayId, surface: CompatSurface | undefined, charge: ChargeRecord, raw: unknown, request: unknown,
): Promise<CompatCharge> {
  const view: Record<string, unknown> = { ...chargeView(charge), ...(charge.refs ? { refs: charge.refs } : {}) };
  // The customer as the client knows it: a customer held by another gateway was answered by RouteGate's id (cus_rg_).
  const customer = charge.customerId ? await deps.store.customers.byExternalId(charge.accountId, charge.customerId) : undefined;
  if (customer && customer.gateway !== gateway) view.customerId = customer.id;
  const processedHere = charge.gateway === gateway;
  // A gateway whose payment ids are numbers: a charge it does not hold is answered by the charge's numeric id.
  if (surface?.numericIds && !processedHere) view.numericId = await deps.store.charges.numericId(charge.accountId, charge.id);
  const livemode = await compatLivemode(deps, surface, charge.accountId, gateway);
  if (processedHere && raw && typeof raw === 'object') return { view, native: surface?.answers.raw?.(raw, view, request ?? {}) ?? raw, processedHere, livemode };
  const bindings = { ...nativeBindings(deps, surface), ...(livemode === undefined ? {} : { livemode }) };
  const shaped = await deps.mappings.get(gateway)!.evaluate('native.response', { charge: view, request: request ?? {} }, bindings);
  const native = surface?.answers.complete ? await surface.answers.complete(shaped, view) : shaped;
  return { view, native, processedHere, livemode };
}

/** The first value present among `sources` of a native request. */
export function readValue(request: NativeRequest, sources: readonly ValueSource[] | undefined): { source: string; value: unknown } | undefined {
  for (const source of sources ?? []) {
    const [where, path] = [source.slice(0, source.indexOf(':')), source.slice(source.indexOf(':') + 1)];
    const root: unknown = where === 'param' ? request.params : where === 'query' ? request.query : request.body;
    const value = where === 'param' ? request.params[path] : path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), root);
    if (value !== undefined && value !== null && value !== '') return { source: path, value };
  }
  return undefined;
}

/** The native amount of `sources` in cents (through fromUnit, the one conversion); undefined when none was sent. */
export function readAmount(request: NativeRequest, sources: readonly ValueSource[] | undefined, unit: AmountUnit): number | undefined {
  const found = readValue(request, sources);
  if (!found) return undefined;
  const numeric = typeof found.value === 'number' || (typeof found.value === 'string' && /^\d+(\.\d+)?$/.test(found.value));
  const cents = numeric ? fromUnit(found.value, unit) : undefined;
  // Whole cents only: a fraction of a cent (or reais sent to a cents API) is refused, never rounded into a guess.
  const whole = unit === 'minor' ? /^\d+$/.test(String(found.value)) : cents !== undefined && Math.abs(Number(found.value) * 100 - cents) < 1e-6;
  if (cents === undefined || cents <= 0 || !whole) {
    throw rgError('NATIVE_AMOUNT_INVALID', { field: found.source, unit: unit === 'minor' ? 'cents (a whole number)' : 'major units (e.g. 19.99)' });
  }
  return cents;
}
