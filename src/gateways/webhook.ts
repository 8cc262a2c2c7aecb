import type { CallContext, WireSettings } from './types';

/** A gateway's notification as RouteGate's receiver got it: the exact bytes (signatures cover them) and the parsed JSON. */
export interface WebhookRequest {
  rawBody: Buffer;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The query string's parameters (a gateway may sign values found there). */
  query: Record<string, string>;
}

/** What a verifier may check a notification against. */
export interface WebhookKeys {
  /** The account's stored credentials for this gateway, decrypted (webhookSecret and the like). Never log. */
  credentials: Record<string, string>;
  /** Epoch ms (injectable: replay windows are tested without waiting). */
  now: number;
  /**
   * A JSON document from a URL a credential names (a JWKS): fetched under the production target policy, cached by its
   * caching headers; `refreshFor` a key id the cached copy lacks (fetched again at most once a minute).
   */
  fetchJson(url: string, opts?: { refreshFor?: string }): Promise<unknown>;
  /** The origin RouteGate reaches this gateway at (ROUTEGATE_<ID>_URL: the real API, or the emulators). */
  gatewayOrigin: string;
}

export type WebhookVerdict =
  | { result: 'verified'; scheme: string }
  | { result: 'invalid'; reason: string }
  /** Nothing to check with is stored: SPEC.md accepts the notification, with a warning. */
  | { result: 'unconfigured' };

/**
 * The gateway-specific half of a webhook receiver (src/webhooks/ is the generic half). Payload shapes stay in
 * mappings/<id>/webhook.jsonata; this holds what a mapping cannot: the signature scheme, the event id used for
 * dedupe, and any call the notification needs (a notification may carry only a resource id).
 */
export interface GatewayWebhook {
  /** Constant-time verification of every scheme the gateway (or SPEC.md) signs with. */
  verify(req: WebhookRequest, keys: WebhookKeys): WebhookVerdict | Promise<WebhookVerdict>;
  /**
   * The gateway's id for this event, stable across its retries; `resource` is what `resolve` fetched.
   * undefined: RouteGate dedupes on a hash of the body.
   */
  eventId(req: WebhookRequest, resource: unknown): string | undefined;
  /** Fetch what the notification only points to, with the account's credentials (the mapping's `resource`). */
  resolve?(ctx: CallContext, req: WebhookRequest): Promise<unknown>;
  /** Bindings the webhook mapping needs from the deployment's wire settings (an amount unit). */
  bindings?(wire: WireSettings | undefined): Record<string, unknown>;
}

export const verified = (scheme: string): WebhookVerdict => ({ result: 'verified', scheme });
export const invalid = (reason: string): WebhookVerdict => ({ result: 'invalid', reason });
export const UNCONFIGURED: WebhookVerdict = { result: 'unconfigured' };

/** A string field of a JSON object, or undefined. */
export function stringAt(value: unknown, ...path: string[]): string | undefined {
  let v: unknown = value;
  for (const key of path) {
    if (!v || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : undefined;
}
