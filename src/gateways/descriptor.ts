import type { GatewayAdapter } from './types';
import type { EmulatorPlugin } from '../sandbox/types';
import type { CompatSurface } from '../compat/types';
import type { GatewayWebhook } from './webhook';
import type { AmountDeclaration } from '../mapping/amount-guard';

/** One credential field of a gateway: how it is validated, and whether it is a secret (masked, never logged). */
export interface CredentialField {
  required: boolean;
  secret: boolean;
  description: string;
  /** A regular expression the value must match (JSON Schema `pattern`). */
  pattern?: string;
}

/**
 * A deployment-wide wire choice of one gateway, read once from the environment by the service and the emulators
 * alike (where SPEC.md and the real API disagree, DESIGN.md keeps SPEC.md's variant one setting away).
 */
export interface WireSettingSpec {
  env: string;
  default: string;
  /** The accepted values, or a pattern they must match. */
  accepts: readonly string[] | RegExp;
  description: string;
}

/** See GatewayDescriptor.webhookAck. */
export type WebhookAck = 'after-forward' | 'on-store';

/** An account setting that only one gateway reads (e.g. whether the account may send it raw card data). */
export interface AccountSettingSpec {
  type: 'boolean';
  default: boolean;
  description: string;
}

/**
 * Everything RouteGate knows about one gateway, in the gateway's own folder (src/gateways/<id>/): the registry
 * lists these, and every gateway list elsewhere (schemas' enums, env names, the sandbox, the CLI, log redaction,
 * docs tables) is derived from them. Payload shapes stay in mappings/<id>/.
 */
export interface GatewayDescriptor {
  id: string;
  /** Human name, for docs and messages. */
  name: string;
  /** Other accepted spellings: SPEC.md's neutral label (gateway_N) and any alias. */
  aliases: readonly string[];
  adapter: GatewayAdapter;
  /**
   * The money guard's declaration (src/gateways/<id>/amounts.ts): where each request mapping's output carries the
   * operation's amount and in which unit, and where the create's answer reports it. Checked in code before every
   * send, by `mappings check` and at start-up; no mapping edit can remove it (docs/mappings.md).
   */
  amounts: AmountDeclaration;
  /** The gateway emulator (a fastify plugin mounted under /<id>), following the real API. */
  emulator: EmulatorPlugin;
  credentials: Readonly<Record<string, CredentialField>>;
  /** Webhook verification, event ids and fetches (src/gateways/<id>/webhook.ts); absent: no receiver for the gateway. */
  webhook?: GatewayWebhook;
  /**
   * true when every webhook this gateway sends about a charge carries RouteGate's charge id, as its webhook mapping's
   * `reference` (an order code, a metadata field): its webhooks then find the charge by that id, and the gateway's id
   * for it is indexed only where compatibility mode's native calls need it (docs/compatibility.md, "Which gateway ids
   * are indexed"). Absent: the gateway's id is always indexed, for notifications that name nothing else.
   */
  webhooksNameChargeId?: boolean;
  /**
   * When the gateway is told its notification was taken (docs/webhooks.md, "Acknowledgement per gateway").
   * 'after-forward' (the default): 200 once the merchant's backend answered 2xx, else a non-2xx the gateway retries.
   * 'on-store': 200 as soon as the event is stored with its delivery in the outbox, for a gateway that punishes
   * failed deliveries harder than a retry (a paused queue): the outbox then retries the backend on its own.
   */
  webhookAck?: WebhookAck;
  /**
   * Native id prefixes of the card tokens and saved payment methods this gateway issues (only ones no other gateway
   * uses): a token carrying one is only ever sent to this gateway, whatever the account's primary.
   */
  tokenPrefixes?: readonly string[];
  /**
   * What this gateway's split recipient ids look like (coproducers store one per gateway; a raw split recipient_id
   * is checked against the gateway it is given for). Absent: any non-empty id is taken.
   */
  splitRecipient?: { pattern: string; description: string };
  /** Credentials the emulator accepts; the sandbox and the tests store them. */
  sandboxCredentials: Readonly<Record<string, string>>;
  wireSettings?: readonly WireSettingSpec[];
  accountSettings?: Readonly<Record<string, AccountSettingSpec>>;
  /** Account settings the sandbox's demo account uses for this gateway. */
  sandboxAccountSettings?: Readonly<Record<string, unknown>>;
  /**
   * Compatibility mode: the gateway's own API served by RouteGate (src/gateways/<id>/compat.ts; docs/compatibility.md).
   * Absent = accounts may not set compatibilityMode to this gateway's native paths (POST /api/v1/charges still
   * takes its native create body through native.request).
   */
  compat?: CompatSurface;
}
