import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { CustomerRecord } from '../store/customers';
import { nowIso } from '../store/db';
import type { CallContext, GatewayAdapter, Payer, PayerAddress } from '../gateways/types';

/** What a customer create takes (POST /api/v1/customers' body without the gateway): name, email and document required. */
export interface RegistrablePayer {
  name: string; email: string; document: string; phone?: string; address?: PayerAddress; metadata?: Record<string, string>;
}

/**
 * The payer as a customer create takes it, when it has what the normalized customer requires (name, email,
 * document, as POST /api/v1/customers does); undefined when anything is missing.
 */
export function registrablePayer(payer: Payer | undefined): RegistrablePayer | undefined {
  if (!payer?.name || !payer.email || !payer.document) return undefined;
  const p: RegistrablePayer = { name: payer.name, email: payer.email, document: payer.document };
  if (payer.phone) p.phone = payer.phone;
  if (payer.address) p.address = payer.address;
  if (payer.metadata) p.metadata = payer.metadata;
  return p;
}

export function newCustomerId(): string {
  return `cus_rg_${randomUUID().replace(/-/g, '')}`;
}

/** Creates the customer at the gateway (the adapter's createCustomer, mapping customer.request) and stores it. */
export async function createCustomerAt(
  store: Store, adapter: GatewayAdapter, ctx: CallContext, accountId: string, input: RegistrablePayer, id = newCustomerId(),
): Promise<{ customer: CustomerRecord; raw: unknown }> {
  const outcome = await adapter.createCustomer(ctx, {
    name: input.name, email: input.email, document: input.document, phone: input.phone, address: input.address, metadata: input.metadata,
  });
  const customer: CustomerRecord = {
    id, accountId, gateway: adapter.id, externalId: outcome.normalized.externalId, name: input.name, email: input.email,
    document: input.document, phone: input.phone ?? null, address: input.address ?? null, metadata: input.metadata ?? null, createdAt: nowIso(),
  };
  await store.customers.insert(customer);
  return { customer, raw: outcome.raw };
}

/**
 * The customer a charge's inline payer is charged as at a gateway that charges registered customers only: the one
 * RouteGate already created there for this account and document, else a new one (created and stored like
 * POST /api/v1/customers). `ctx.idempotencyKey` is the attempt's own, so a gateway that keeps keys never makes two.
 */
export async function customerFor(
  store: Store, adapter: GatewayAdapter, ctx: CallContext, accountId: string, payer: RegistrablePayer,
): Promise<{ customer: CustomerRecord; created: boolean }> {
  const existing = await store.customers.byDocument(accountId, adapter.id, payer.document);
  if (existing) return { customer: existing, created: false };
  return { customer: (await createCustomerAt(store, adapter, ctx, accountId, payer)).customer, created: true };
}
