import { createHash, createHmac } from 'node:crypto';
import type { GatewayId } from '../../gateways/types';
import type { WebhookConvention, WebhookEvent, WebhookSender } from './webhook-sender';

/**
 * What a gateway's emulator tells the core about its webhooks. The emulator calls `changed(id)` wherever a charge
 * may have changed; the core compares the resource's snapshot with the last one seen and, when it differs, asks
 * `events` what the gateway sends for that change. Comparing snapshots (not instrumenting every assignment) keeps
 * the gateway's code to one call per route, and a replayed or refused request sends nothing because nothing changed.
 */
export interface WebhookSpec<S, C = undefined> {
  convention: WebhookConvention;
  /** The resource's state as far as webhooks care (JSON-comparable); undefined for an unknown id. */
  snapshot(id: string): S | undefined;
  /** The events the gateway sends when the snapshot went from `before` (undefined: first seen) to `after`. */
  events(change: { id: string; before: S | undefined; after: S; context: C | undefined }): WebhookEvent[];
  /** URLs the charge itself carried (notification_url(s)); when none, the endpoint registered through the control API. */
  urls?(id: string): readonly string[];
  /** The secret that signs when the control API set none (default: the sandbox credential's webhookSecret). */
  secret?(id: string): string | undefined;
}

export interface Webhooks<C = undefined> {
  /** The resource `id` may have changed (`context`: what changed it, for gateways whose body depends on it). */
  changed(id: string, context?: C): void;
}

export function createWebhooks<S, C>(opts: {
  gateway: GatewayId;
  sender: WebhookSender;
  seen: Map<string, string>;
  defaultSecret: string | undefined;
  spec: WebhookSpec<S, C>;
}): Webhooks<C> {
  const { gateway, sender, seen, defaultSecret, spec } = opts;
  return {
    changed(id, context) {
      const after = spec.snapshot(id);
      if (after === undefined) return;
      const key = JSON.stringify(after);
      const previous = seen.get(id);
      if (previous === key) return;
      seen.set(id, key);
      const urls = spec.urls?.(id) ?? [];
      if (!sender.hasTarget(gateway, urls)) return; // nobody listens: do not even build the bodies
      const before = previous === undefined ? undefined : (JSON.parse(previous) as S);
      const secret = spec.secret?.(id) ?? defaultSecret;
      for (const event of spec.events({ id, before, after, context })) sender.send(gateway, spec.convention, event, urls, secret);
    },
  };
}

/** Lowercase hex HMAC-SHA256 of `message` with the secret's UTF-8 bytes as the key. */
export function hmacSha256Hex(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/** Lowercase hex SHA-256 of `message`. */
export function sha256Hex(message: string): string {
  return createHash('sha256').update(message, 'utf8').digest('hex');
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
