import type { Store } from '../store';
import type { NormalizedCharge, Payer } from '../gateways/types';

/**
 * The payer as RouteGate knows it: the inline customer, else the customer RouteGate stored when it created the
 * customerId (with its address and phone). undefined when the customerId was created outside RouteGate.
 */
export async function knownPayer(store: Store, accountId: string, charge: NormalizedCharge): Promise<Payer | undefined> {
  if (charge.customer) return charge.customer;
  if (!charge.customerId) return {};
  const stored = await store.customers.byExternalId(accountId, charge.customerId);
  if (!stored) return undefined;
  return {
    name: stored.name, email: stored.email, document: stored.document, phone: stored.phone ?? undefined, address: stored.address ?? undefined,
  };
}
