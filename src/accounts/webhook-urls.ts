import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';

/** `<ROUTEGATE_PUBLIC_URL>/api/v1/webhooks/<gateway>/<webhookToken>` (SPEC.md Account.webhookUrls). */
export function webhookUrl(publicUrl: string, gateway: GatewayId, webhookToken: string): string {
  return `${publicUrl}/api/v1/webhooks/${gateway}/${webhookToken}`;
}

export function webhookUrls(publicUrl: string, webhookToken: string): Record<GatewayId, string> {
  return Object.fromEntries(GATEWAY_IDS.map((g) => [g, webhookUrl(publicUrl, g, webhookToken)])) as Record<GatewayId, string>;
}
