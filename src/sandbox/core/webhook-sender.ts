import { Agent, request } from 'undici';
import type { GatewayId } from '../../gateways/types';
import { randomId } from '../ids';

/**
 * How one gateway delivers its webhooks: the retry delays (the gateway's published schedule, in real
 * milliseconds; the sender scales them, see `timeScale`), which answers count as delivered, and how long it waits.
 */
export interface WebhookConvention {
  retries: readonly number[];
  /** Default: any 2xx (some gateways count only 200, or 200 and 201). */
  delivered?: (status: number) => boolean;
  timeoutMs?: number;
}

/** One request of one attempt, as the gateway renders it: gateways that re-sign each retry render anew. */
export interface WebhookMessage { headers: Record<string, string>; body: string; query?: string }

export interface WebhookEvent {
  /** The gateway's event name (or a description where it names none), for the record. */
  event: string;
  /** The gateway's id of the resource the event is about. */
  resource: string;
  /** `attempt` counts from 0; `secret` is the signing secret in force (control API, else the gateway's default). */
  render(input: { attempt: number; secret: string | undefined; url: string }): WebhookMessage;
}

export interface WebhookAttempt {
  at: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDelivery {
  id: string;
  gateway: GatewayId;
  event: string;
  resource: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
}

/** What the control API registered for a gateway: the dashboard's endpoint URL and/or the signing secret. */
export interface WebhookEndpoint { url?: string; secret?: string }

/**
 * Real schedules run over hours or days: by default one real minute lasts 60 ms here (scale 0.001), so the sandbox
 * shows retries happening; tests set a smaller scale through the control API.
 */
export const DEFAULT_WEBHOOK_TIME_SCALE = 0.001;
const KEEP_DELIVERIES = 1000;

/**
 * The emulators' webhook outbox, one per emulator server: queues each event to its target URLs, retries on the
 * gateway's schedule until an answer counts as delivered, and records every attempt for GET /__control/webhooks.
 */
export class WebhookSender {
  timeScale = DEFAULT_WEBHOOK_TIME_SCALE;
  private readonly endpoints = new Map<GatewayId, WebhookEndpoint>();
  private deliveries: WebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private generation = 0; // bumped by reset: attempts already in flight do not schedule retries afterwards
  private readonly agent = new Agent({ keepAliveTimeout: 1000, connect: { timeout: 5000 } });
  private stopped = false;

  register(gateway: GatewayId, endpoint: WebhookEndpoint): WebhookEndpoint {
    const merged = { ...this.endpoints.get(gateway), ...dropEmpty(endpoint) };
    this.endpoints.set(gateway, merged);
    return merged;
  }

  endpoint(gateway: GatewayId): WebhookEndpoint | undefined {
    return this.endpoints.get(gateway);
  }

  listEndpoints(): Array<{ gateway: GatewayId; url: string | null; secret: boolean }> {
    return [...this.endpoints].map(([gateway, e]) => ({ gateway, url: e.url ?? null, secret: e.secret !== undefined }));
  }

  /** Forgets the registered endpoints and the record (of one gateway, or all). */
  unregister(gateway?: GatewayId): void {
    if (gateway) this.endpoints.delete(gateway);
    else this.endpoints.clear();
    this.deliveries = gateway ? this.deliveries.filter((d) => d.gateway !== gateway) : [];
  }

  list(gateway?: GatewayId): WebhookDelivery[] {
    return gateway ? this.deliveries.filter((d) => d.gateway === gateway) : [...this.deliveries];
  }

  /** Whether an event of this gateway would go anywhere: URLs the charge carried, or a registered endpoint. */
  hasTarget(gateway: GatewayId, urls: readonly string[] = []): boolean {
    return urls.length > 0 || Boolean(this.endpoints.get(gateway)?.url);
  }

  /**
   * Queues `event` to the URLs the charge carried, else to the gateway's registered endpoint (none: nothing is sent).
   * `defaultSecret` signs unless the control API set a secret for the gateway.
   */
  send(gateway: GatewayId, convention: WebhookConvention, event: WebhookEvent, urls: readonly string[], defaultSecret: string | undefined): void {
    if (this.stopped) return;
    const endpoint = this.endpoints.get(gateway);
    const targets = urls.length ? urls : endpoint?.url ? [endpoint.url] : [];
    const secret = endpoint?.secret ?? defaultSecret;
    for (const url of targets) {
      const delivery: WebhookDelivery = { id: randomId('whd_', 16), gateway, event: event.event, resource: event.resource, url, state: 'pending', attempts: [] };
      this.deliveries.push(delivery);
      if (this.deliveries.length > KEEP_DELIVERIES) this.deliveries.splice(0, this.deliveries.length - KEEP_DELIVERIES);
      this.schedule(0, () => this.attempt(delivery, convention, event, secret, this.generation));
    }
  }

  private schedule(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private async attempt(delivery: WebhookDelivery, convention: WebhookConvention, event: WebhookEvent, secret: string | undefined, generation: number): Promise<void> {
    const n = delivery.attempts.length;
    const message = event.render({ attempt: n, secret, url: delivery.url });
    const url = message.query ? `${delivery.url}${delivery.url.includes('?') ? '&' : '?'}${message.query}` : delivery.url;
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const timeout = convention.timeoutMs ?? 10_000;
      const res = await request(url, {
        method: 'POST', headers: message.headers, body: message.body, dispatcher: this.agent, headersTimeout: timeout, bodyTimeout: timeout,
        maxRedirections: 0, // gateways do not follow redirects: a 3xx is a failed attempt
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (err) {
      error = (err as Error).message;
    }
    // The record never shows the secret itself (a gateway may send its token verbatim as a header).
    const headers = Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, secret && v === secret ? '[secret]' : v]));
    delivery.attempts.push({ at: new Date(started).toISOString(), url, headers, body: message.body, status, error, durationMs: Date.now() - started });
    const ok = status !== null && (convention.delivered ? convention.delivered(status) : status >= 200 && status < 300);
    if (ok) {
      delivery.state = 'delivered';
      return;
    }
    const wait = convention.retries[n];
    if (wait === undefined || this.stopped || generation !== this.generation) {
      delivery.state = 'failed';
      return;
    }
    this.schedule(Math.max(1, Math.round(wait * this.timeScale)), () => this.attempt(delivery, convention, event, secret, generation));
  }

  /** POST /__control/reset: pending retries stop and the record is emptied; registered endpoints stay (dashboard settings). */
  reset(): void {
    this.generation += 1;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.deliveries = [];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.reset();
    await this.agent.destroy();
  }
}

function dropEmpty(e: WebhookEndpoint): WebhookEndpoint {
  const out: WebhookEndpoint = {};
  if (e.url !== undefined) out.url = e.url;
  if (e.secret !== undefined) out.secret = e.secret;
  return out;
}
