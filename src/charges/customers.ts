import type { AccountRow, SettingsRow } from '../store/accounts';
import type { CustomerRecord } from '../store/customers';
import { ADAPTERS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import { rgError } from '../errors';
import { callContext, type GatewayDeps } from './orchestrator';
import { toPublicError } from './outcomes';
import type { PayerAddress } from '../gateways/types';
import { createCustomerAt, newCustomerId } from './customer-registration';

export interface CustomerInput {
  gateway?: string; name: string; email: string; document: string; phone?: string; address?: PayerAddress; metadata?: Record<string, string>;
}

export function customerView(c: CustomerRecord): Record<string, unknown> {
  const v: Record<string, unknown> = { id: c.id, externalId: c.externalId, gateway: c.gateway, name: c.name, email: c.email, document: c.document };
  if (c.phone) v.phone = c.phone;
  if (c.address) v.address = c.address;
  if (c.metadata) v.metadata = c.metadata;
  v.createdAt = c.createdAt;
  return v;
}

/** Customers are created at one gateway; their externalId is what a later charge there sends as customerId. */
export class CustomerService {
  constructor(private readonly deps: GatewayDeps) {}

  async create(account: AccountRow, settings: SettingsRow, input: CustomerInput): Promise<{ customer: CustomerRecord; raw: unknown }> {
    const gateway = (input.gateway === undefined ? undefined : resolveGatewayId(input.gateway)) ?? (settings.primaryGateway as GatewayId | null);
    if (!gateway) {
      throw rgError('NO_GATEWAY_FOR_CUSTOMER');
    }
    const adapter = ADAPTERS[gateway];
    if (adapter.capabilities.customer === 'unsupported') {
      throw rgError('CUSTOMERS_UNSUPPORTED', { gateway }, { gateway });
    }
    const id = newCustomerId();
    const ctx = await callContext(this.deps, account.id, gateway, id, `${id}-create`);
    if (!ctx) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
    try {
      return await createCustomerAt(this.deps.store, adapter, ctx, account.id, {
        name: input.name, email: input.email, document: input.document, phone: input.phone, address: input.address, metadata: input.metadata,
      }, id);
    } catch (err) {
      throw toPublicError(err, gateway);
    }
  }
}
