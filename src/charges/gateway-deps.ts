import type { Store } from '../store';
import type { ChargeRecord } from '../store/charges';
import type { CredentialVault } from '../accounts/credential-vault';
import type { GatewayId } from '../gateways/registry-ids';
import type { GatewayHttp } from '../gateways/http-client';
import type { CallContext, RefundResult } from '../gateways/types';
import type { MappingRegistry } from '../mapping/loader';
import type { RouteGateError } from '../errors';
import { wireContext } from './wire-context';

export interface GatewayDeps {
  store: Store;
  vault: CredentialVault;
  mappings: MappingRegistry;
  http: GatewayHttp;
  gatewayUrls: Record<GatewayId, string>;
  /** Response timeout of one gateway call. */
  timeoutMs: number;
  /** A client request's overall budget (ROUTEGATE_REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
  /** First delay before an unsettled charge is checked again (ROUTEGATE_RECONCILE_BACKOFF_MS). */
  reconcileBackoffMs?: number;
  /**
   * How long after a create last left RouteGate a lookup's "none" proves it absent (ROUTEGATE_SETTLE_HORIZON_MS,
   * default 10 minutes; docs/charges.md, "Proof of absence").
   */
  settleHorizonMs?: number;
  /** Wire settings and the public URL the account's webhook URLs start with (src/config.ts). */
  wire?: import('../gateways/types').WireSettings;
  publicUrl?: string;
  /** Where a fact an operator must see is logged (a gateway's plan charged for another total than it quoted). */
  log?: { warn(obj: object, msg: string): void };
}

export const DEFAULT_SETTLE_HORIZON_MS = 600_000;

/** The settle horizon these dependencies run with (ROUTEGATE_SETTLE_HORIZON_MS, else the default). */
export const settleHorizonMs = (deps: GatewayDeps): number => deps.settleHorizonMs ?? DEFAULT_SETTLE_HORIZON_MS;

export interface ChargeResult {
  charge: ChargeRecord;
  raw?: unknown;
  /** `raw` as the gateway's text, where it is exactly that text parsed (ChargeOutcome.rawText). */
  rawText?: string;
  /** Set when the charge did not go through: the public error to answer with. */
  error?: RouteGateError;
  /** Set by refunds: the refund as the gateway recorded it. */
  refund?: RefundResult;
}

/** The per-call context an adapter needs. `credentials` were read once for the whole client request. */
export async function gatewayContext(
  deps: GatewayDeps, accountId: string, gateway: GatewayId, credentials: Record<string, string>, chargeId: string, idempotencyKey: string, deadline?: number,
): Promise<CallContext> {
  return {
    gateway, baseUrl: deps.gatewayUrls[gateway], credentials, http: deps.http, mappings: deps.mappings.get(gateway)!,
    idempotencyKey, chargeId, timeoutMs: deps.timeoutMs, deadline,
    ...(await wireContext(deps, accountId, gateway)),
  };
}

/** Reads the credentials and builds the context; undefined when the account has none for that gateway. */
export async function callContext(deps: GatewayDeps, accountId: string, gateway: GatewayId, chargeId: string, idempotencyKey: string, deadline?: number): Promise<CallContext | undefined> {
  const credentials = await deps.vault.reveal(accountId, gateway);
  return credentials && await gatewayContext(deps, accountId, gateway, credentials, chargeId, idempotencyKey, deadline);
}

/** Backoff of the reconciler for one charge: `baseMs` (5 s) doubling to an hour, with jitter so a backlog spreads out. */
export function reconcileDelayMs(attempts: number, baseMs = 5_000): number {
  const delay = Math.min(baseMs * 2 ** Math.min(attempts, 20), 3_600_000);
  return Math.round(delay * (0.75 + Math.random() * 0.5));
}
