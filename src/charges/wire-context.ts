import type { Store } from '../store';
import type { GatewayId } from '../gateways/registry-ids';
import type { CallContext, WireSettings } from '../gateways/types';
import { webhookUrl } from '../accounts/webhook-urls';

/** What callContext adds for the wire: the deployment's wire settings and the account's webhook URL for the gateway. */
export async function wireContext(
  deps: { store: Store; wire?: WireSettings; publicUrl?: string }, accountId: string, gateway: GatewayId,
): Promise<Pick<CallContext, 'wire' | 'webhookUrl'>> {
  const token = deps.publicUrl ? (await deps.store.accounts.get(accountId))?.webhookToken : undefined;
  return { wire: deps.wire, webhookUrl: token ? webhookUrl(deps.publicUrl!, gateway, token) : undefined };
}
