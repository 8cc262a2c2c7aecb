import { GATEWAYS } from '../../src/gateways/registry';
import type { GatewayDescriptor } from '../../src/gateways/descriptor';
import { PAYMENT_METHODS, type Capability, type ChargeOperation, type ChargeRequirement, type GatewayAdapter, type PaymentMethod } from '../../src/gateways/types';
import assert from 'node:assert/strict';
import { CARD, CUSTOMER, THREE_DS, type E2E } from '../helpers/e2e';

// The conformance matrix: every registered gateway x payment method x operation, read from what each gateway
// declares (adapter.capabilities, adapter.currencies, adapter.requirements, the descriptor). Nothing here names
// a gateway: registering one puts it under test, and what its charges need comes from its own declarations.

export const OPERATIONS: ChargeOperation[] = ['charge', 'capture', 'cancel', 'refund', 'partial_refund'];
export const FOLLOW_UPS = OPERATIONS.filter((op) => op !== 'charge') as Array<Exclude<ChargeOperation, 'charge'>>;

/** The route and body of each follow-up operation. */
export const FOLLOW_UP_CALL: Record<Exclude<ChargeOperation, 'charge'>, { path: string; body?: unknown }> = {
  capture: { path: 'capture', body: {} },
  cancel: { path: 'cancel' },
  refund: { path: 'refunds', body: {} },
  partial_refund: { path: 'refunds', body: { amount: 500 } },
};

export const gateways = (): readonly GatewayDescriptor[] => GATEWAYS;

export const isCard = (m: PaymentMethod) => m === 'credit_card' || m === 'debit_card';
/** Pix and boleto are paid later by the payer (the emulators' control API plays the payer). */
export const paidLater = (m: PaymentMethod) => !isCard(m);

export const supported = (c: Capability) => c !== 'unsupported';
export const needsOf = (c: Capability) => (typeof c === 'object' ? c.needs : undefined);

/** The methods a gateway charges (its capability cell for `charge` is not `unsupported`). */
export function chargeableMethods(adapter: GatewayAdapter): PaymentMethod[] {
  return PAYMENT_METHODS.filter((m) => supported(adapter.capabilities[m].charge));
}

/**
 * Every value a gateway may declare it needs, as a requirement path (ChargeRequirement.needs): the suite picks only
 * the paths a gateway declares. A declared path missing here fails loudly, so a new kind of requirement is added
 * here once, never per gateway.
 */
export const REFERENCE = {
  payer: CUSTOMER as Record<string, unknown>,
  charge: { debitCard: { authentication: THREE_DS } } as Record<string, unknown>,
};
/** What every charge carries about the payer whatever the gateway (name, e-mail, tax id). */
const BASE_PAYER = { name: CUSTOMER.name, email: CUSTOMER.email, document: CUSTOMER.document };

export const dueDate = () => new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

/** How to charge `method` on one gateway, derived from its declarations. */
export interface ChargeRecipe {
  /** The normalized charge body (routed by the account's primaryGateway, so the body names no gateway). */
  body: Record<string, unknown>;
  /** Account settings the requirements name (`setting.<name>` must be true). */
  settings: Record<string, boolean>;
  /** The capability says `needs: 'customerId'`: create the customer at the gateway first (with body.customer). */
  customerFirst: boolean;
  /** The requirements that applied, with the paths they made the suite fill. */
  applied: Array<{ requirement: ChargeRequirement; paths: string[] }>;
}

export function chargeRecipe(adapter: GatewayAdapter, method: PaymentMethod, extra: Record<string, unknown> = {}): ChargeRecipe {
  const body: Record<string, unknown> = {
    paymentMethod: method, amount: 1999, currency: 'BRL', description: 'Pedido 1001', customer: structuredClone(BASE_PAYER),
    ...(isCard(method) ? { creditCard: { ...CARD } } : {}),
    ...(method === 'pix' ? { pix: { expiresInSeconds: 3600 } } : {}),
    ...(method === 'boleto' ? { boleto: { dueDate: dueDate(), instructions: 'Não receber após o vencimento' } } : {}),
    ...extra,
  };
  const settings: Record<string, boolean> = {};
  const applied: ChargeRecipe['applied'] = [];
  for (const requirement of adapter.requirements ?? []) {
    if (!requirement.methods.includes(method)) continue;
    if (requirement.when && read(body, requirement.when) === undefined) continue;
    for (const need of requirement.needs) fill(body, settings, need);
    applied.push({ requirement, paths: [...requirement.needs] });
  }
  return { body, settings, customerFirst: needsOf(adapter.capabilities[method].charge) === 'customerId', applied };
}

/** Put the reference value of one requirement path into the body (or the settings). */
export function fill(body: Record<string, unknown>, settings: Record<string, boolean>, need: string): void {
  const [scope, ...rest] = need.split('.');
  const key = rest.join('.');
  if (scope === 'setting') {
    settings[key] = true;
    return;
  }
  const source = scope === 'payer' ? REFERENCE.payer : scope === 'charge' ? REFERENCE.charge : undefined;
  const value = source && readPath(source, key);
  if (value === undefined) throw new Error(`the conformance suite has no reference value for "${need}": add one to REFERENCE in test/conformance/matrix.ts`);
  writePath(body, scope === 'payer' ? `customer.${key}` : key, structuredClone(value));
}

/** Remove what one requirement path stands for, so the requirement is unmet. */
export function unfill(body: Record<string, unknown>, settings: Record<string, boolean>, need: string): void {
  const [scope, ...rest] = need.split('.');
  const key = rest.join('.');
  if (scope === 'setting') settings[key] = false;
  else deletePath(body, scope === 'payer' ? `customer.${key}` : key);
}

/** The client-facing name of a requirement path, as the router names it in its message. */
export function fieldOf(need: string): string {
  const [scope, ...rest] = need.split('.');
  const key = rest.join('.');
  return scope === 'payer' ? `customer.${key}` : scope === 'setting' ? `settings.${key}` : key;
}

function read(body: Record<string, unknown>, path: string): unknown {
  const [scope, ...rest] = path.split('.');
  return readPath(body, scope === 'payer' ? `customer.${rest.join('.')}` : rest.join('.'));
}

function readPath(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), root);
}

function writePath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = root;
  for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
  at[keys.at(-1)!] = value;
}

function deletePath(root: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  const parent = keys.length === 1 ? root : readPath(root, keys.slice(0, -1).join('.'));
  if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[keys.at(-1)!];
}

/**
 * An account whose primary gateway is `gateway` (no fallbacks) with the settings the recipe needs and, when the
 * gateway charges only its own customers, the customer created there first: the body to POST and the key.
 */
export async function prepareCharge(e2e: E2E, gateway: GatewayDescriptor, recipe: ChargeRecipe, settings: Record<string, unknown> = {}) {
  const key = await e2e.account({ primaryGateway: gateway.id, gatewayFallbacks: [], ...recipe.settings, ...settings });
  const body = structuredClone(recipe.body);
  if (recipe.customerFirst) {
    const res = await e2e.call('POST', '/api/v1/customers', { key, body: body.customer });
    assert.equal(res.status, 201, `${gateway.id} customer first: ${res.text}`);
    body.customerId = res.body.data.externalId;
  }
  return { key, body };
}

/** POST a charge and expect it created; the normalized data. */
export async function createCharge(e2e: E2E, key: string, body: unknown) {
  const res = await e2e.call('POST', '/api/v1/charges', { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}
