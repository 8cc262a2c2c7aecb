import { request } from 'undici';
import type { GatewayId } from '../gateways/registry-ids';
import type { FaultKind, LedgerEntry, RecordedRequest, RefundOutcome } from './control';
import type { WebhookDelivery } from './core/webhook-sender';

/** A small client for an emulator server's /__control API (used by tests and users' own suites). */
export class EmulatorControlClient {
  constructor(private readonly baseUrl: string) {}

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
    const res = await request(`${this.baseUrl}/__control${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** `method` / `path` (below the gateway prefix, e.g. `/v1/payment_intents`) restrict the fault to matching calls. */
  fault(gateway: GatewayId, fault: FaultKind, options: { count?: number; latencyMs?: number; method?: string; path?: string } = {}): Promise<void> {
    return this.call('POST', '/faults', { gateway, fault, ...options });
  }

  /** One gateway's pending faults, or every gateway's. */
  clearFaults(gateway?: GatewayId): Promise<void> {
    return this.call('DELETE', `/faults${gateway ? `?gateway=${gateway}` : ''}`);
  }

  async requests(gateway?: GatewayId): Promise<RecordedRequest[]> {
    const out = await this.call('GET', `/requests${gateway ? `?gateway=${gateway}` : ''}`);
    return out.requests;
  }

  async lastRequest(gateway: GatewayId): Promise<RecordedRequest | undefined> {
    const list = await this.requests(gateway);
    return list[list.length - 1];
  }

  clearRequests(): Promise<void> {
    return this.call('DELETE', '/requests');
  }

  /** The charges the emulators hold (one gateway, or all five), amounts in cents. */
  async ledger(gateway?: GatewayId): Promise<LedgerEntry[]> {
    const out = await this.call('GET', `/ledger${gateway ? `?gateway=${gateway}` : ''}`);
    return out.entries;
  }

  /** Play the payer: settle a pending pix or boleto (id = the gateway's id, i.e. the charge's externalId). */
  pay(gateway: GatewayId, id: string): Promise<void> {
    return this.call('POST', '/pay', { gateway, id });
  }

  /**
   * Open a chargeback on a paid charge (id = the charge's externalId), as the gateway does it: its native state
   * changes and its real notification goes to the registered webhook URL. `amount` in cents (default: all paid).
   */
  async dispute(gateway: GatewayId, id: string, amount?: number): Promise<unknown> {
    return (await this.call('POST', '/dispute', { gateway, id, ...(amount === undefined ? {} : { amount }) })).dispute;
  }

  /** Settle the charge's open chargeback, won or lost, with the gateway's real notification. */
  async closeDispute(gateway: GatewayId, id: string, outcome: 'won' | 'lost'): Promise<unknown> {
    return (await this.call('POST', '/dispute/close', { gateway, id, outcome })).dispute;
  }

  /** The next `count` refunds at the gateway come back "not yet" in its own way (REFUND_OUTCOMES in control.ts). */
  refundOutcome(gateway: GatewayId, outcome: RefundOutcome, count = 1): Promise<void> {
    return this.call('POST', '/refund-outcomes', { gateway, outcome, count });
  }

  /** The gateway completes or rejects the refunds it holds in process on payment `id`, and notifies. */
  async settleRefunds(gateway: GatewayId, id: string, outcome: 'approved' | 'rejected'): Promise<number> {
    return (await this.call('POST', '/refunds/settle', { gateway, id, outcome })).settled;
  }

  /** Registers the gateway's webhook endpoint (its dashboard setting) and/or the secret its webhooks are signed with. */
  registerWebhook(gateway: GatewayId, endpoint: { url?: string; secret?: string }): Promise<void> {
    return this.call('POST', '/webhooks', { gateway, ...endpoint });
  }

  /** Every webhook the emulators sent (one gateway's, or all), each with its attempts. */
  async webhooks(gateway?: GatewayId): Promise<WebhookDelivery[]> {
    const out = await this.call('GET', `/webhooks${gateway ? `?gateway=${gateway}` : ''}`);
    return out.deliveries;
  }

  clearWebhooks(gateway?: GatewayId): Promise<void> {
    return this.call('DELETE', `/webhooks${gateway ? `?gateway=${gateway}` : ''}`);
  }

  /** Shrinks the gateways' retry schedules by `timeScale` (default 0.001). */
  webhookTimeScale(timeScale: number): Promise<void> {
    return this.call('POST', '/webhooks/settings', { timeScale });
  }

  reset(): Promise<void> {
    return this.call('POST', '/reset');
  }
}
